"""The server's conversation over memory streams, timed on trio's virtual (autojump) clock."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.core.play.fed import ask
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import KalahAi, ai_seat
from hub.games.kalah.rules import legal_moves, new_game
from hub.games.kalah.server import KalahServer
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import Keys, RecordingOutput, connect, new_server, scripted

EX1 = GameOptions(KalahSettings(4, 1, pie=True, time_ms=5000), first="client")


def records(server: KalahServer) -> list[Any]:
    return [record for _number, record in server.records]


@pytest.mark.parametrize(
    ("move", "ok", "move_again"),
    [("4 3", "OK", "4 3"), ("  4   3 \r", " OK", "4\t3")],
    ids=["as-in-the-spec", "liberal-spacing"],
)
async def test_worked_example_1(
    autojump_clock: trio.testing.MockClock, move: str, ok: str, move_again: str
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with connect(server) as client:
        await client.start("INFO 4 1 5000 F S")
        await client.send(move)
        await client.expect("OK", "P")
        await client.send(ok)
        await client.send(move_again)
        await client.expect("OK", "2", "LOSER")
        await client.expect_closed()
    (record,) = records(server)
    assert record.scores == (3, 5)
    assert record.termination == Termination.NORMAL
    assert server.out.lines == ["game 1: test (first) vs AI: AI won 3-5"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("delay", "in_time"), [(4.999, True), (5.001, False)])
async def test_client_moving_first_is_timed_from_begin(
    autojump_clock: trio.testing.MockClock, delay: float, in_time: bool
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with connect(server) as client:
        await client.start("INFO 4 1 5000 F S")
        begun = trio.current_time()
        async with trio.open_nursery() as nursery:

            async def move_later() -> None:
                await trio.sleep(delay)
                await client.send("4 3")

            nursery.start_soon(move_later)
            if in_time:
                await client.expect("OK")
            else:
                await client.expect("TIME")
                assert trio.current_time() - begun == pytest.approx(5.0)  # not waiting longer
                await client.expect("LOSER")
                await client.expect_closed()
    (record,) = records(server)
    if not in_time:
        assert record.fault.termination == Termination.TIMEOUT and record.winners == (1,)


@pytest.mark.parametrize(("delay", "in_time"), [(0.999, True), (1.001, False)])
async def test_client_moving_second_is_timed_from_its_ok(
    autojump_clock: trio.testing.MockClock, delay: float, in_time: bool
) -> None:
    options = GameOptions(
        KalahSettings(6, 6, time_ms=1000, layout=(6, 4, 7, 6, 5, 8)), first="server"
    )
    server = new_server(options, scripted("2"))
    async with connect(server) as client:
        await client.start("INFO 6 6 1000 S R 6 4 7 6 5 8")
        await client.expect("2")
        await trio.sleep(0.5)  # a slow OK (within the limit): the clock starts when it arrives
        await client.send("OK")
        await trio.sleep(delay)
        await client.send("2")
        if in_time:
            await client.expect("OK")
        else:
            await client.expect("TIME", "LOSER")


async def test_no_time_limit_waits_forever(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=0), first="client")
    server = new_server(options, scripted("2"))
    async with connect(server) as client:
        await client.start("INFO 4 1 0 F S")
        await trio.sleep(10**7)
        await client.send("4 3")
        await client.expect("OK", "2")
        await trio.sleep(10**7)  # no limit on the OK either
        await client.send("OK")
        await trio.sleep(10**7)
        await client.send("1")
        await client.expect("OK")


async def test_the_ok_must_come_within_the_limit(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 2, time_ms=1000), first="server")
    server = new_server(options, scripted("1"))
    async with connect(server) as client:
        await client.start("INFO 4 2 1000 S S")
        await client.expect("1")
        await client.expect("TIME", "LOSER")
    (record,) = records(server)
    assert record.fault.termination == Termination.TIMEOUT and record.fault.seat == 1


async def test_anything_but_ok_is_illegal(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 2, time_ms=1000), first="server")
    server = new_server(options, scripted("1"))
    async with connect(server) as client:
        await client.start("INFO 4 2 1000 S S")
        await client.expect("1")
        await client.send("2")  # a move before acknowledging the server's
        await client.expect("ILLEGAL", "LOSER")


@pytest.mark.parametrize(
    "line",
    [
        "1",  # legal (a control case): 2 seeds from hole 1 end in hole 3
        "3",  # 2 seeds from hole 3 end in the store: the turn is cut short
        "3 3",  # then hole 3 is empty
        "5",  # no such hole
        "0",
        "junk",
        "4.3",
        "1\x1b[2J",
        "P",  # early pie
        "",
    ],
)
async def test_illegal_client_moves(autojump_clock: trio.testing.MockClock, line: str) -> None:
    options = GameOptions(KalahSettings(4, 2, pie=True, time_ms=1000), first="client")
    server = new_server(options)
    async with connect(server) as client:
        await client.start("INFO 4 2 1000 F S")
        await client.send(line)
        if line == "1":  # legal after all: 2 seeds from hole 1 end in hole 3
            await client.expect("OK")
            return
        await client.expect("ILLEGAL", "LOSER")
        await client.expect_closed()
    (record,) = records(server)
    well_formed = line in ("3", "3 3", "P")  # the others are not moves at all
    assert record.termination == (
        Termination.ILLEGAL_MOVE if well_formed else Termination.MALFORMED
    )
    assert record.winners == (1,)
    assert "\x1b" not in server.out.lines[0]  # type: ignore[attr-defined]


async def test_an_endless_line_is_illegal(autojump_clock: trio.testing.MockClock) -> None:
    server = new_server(EX1)
    async with connect(server) as client:
        await client.start("INFO 4 1 5000 F S")
        async with trio.open_nursery() as nursery:

            async def flood() -> None:
                for _ in range(100):
                    await client.send_raw(b"1 " * 5000)

            nursery.start_soon(flood)
            await client.expect("ILLEGAL", "LOSER")
            nursery.cancel_scope.cancel()


async def test_pie_rules_on_the_wire(autojump_clock: trio.testing.MockClock) -> None:
    # The client, second, takes the pie: OK, then the server moves again from the other side.
    options = GameOptions(KalahSettings(4, 1, pie=True, time_ms=1000), first="server")
    server = new_server(options, scripted("4 3", "4 3", "2"))
    async with connect(server) as client:
        await client.start("INFO 4 1 1000 S S")
        await client.expect("4 3")
        await client.send("OK")
        await client.send("P")
        await client.expect("OK", "4 3")
        await client.send("OK")
        await client.send("2")
        await client.expect("OK", "WINNER")
    # A late pie, and a pie in a game without the rule.
    for pie, script in ((True, ("4 3", "2")), (False, ("4 3",))):
        options = GameOptions(KalahSettings(4, 1, pie=pie, time_ms=1000), first="server")
        server = new_server(options, scripted(*script))
        async with connect(server) as client:
            await client.start("INFO 4 1 1000 S S")
            await client.expect("4 3")
            await client.send("OK")
            if pie:
                await client.send("3")
                await client.expect("OK", "2")
                await client.send("OK")
            await client.send("P")
            await client.expect("ILLEGAL", "LOSER")


async def test_slow_server_sends_time_then_the_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), server_time_ms=500, first="client")
    server = new_server(options, scripted("2", delays=[0.7]))
    async with connect(server) as client:
        await client.start("INFO 4 1 1000 F S")
        await client.send("1")
        await client.expect("OK")
        ok_at = trio.current_time()
        await client.expect("TIME")
        assert trio.current_time() - ok_at == pytest.approx(0.5)
        await client.expect("2", "WINNER")
        assert trio.current_time() - ok_at == pytest.approx(0.7)
    (record,) = records(server)
    assert record.fault.termination == Termination.TIMEOUT and record.winners == (0,)
    assert record.fault.move == "2"  # the late move, shown to the client


async def test_server_in_time_at_the_limit_minus_a_millisecond(
    autojump_clock: trio.testing.MockClock,
) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), server_time_ms=500, first="server")
    server = new_server(options, scripted("2", delays=[0.499]))
    async with connect(server) as client:
        await client.start("INFO 4 1 1000 S S")
        await client.expect("2")


async def test_worked_example_2_illegal_server_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    options = GameOptions(
        KalahSettings(6, 6, time_ms=1000, layout=(6, 4, 7, 6, 5, 8)), first="server"
    )
    server = new_server(options, scripted("1 1"))
    async with connect(server) as client:
        await client.start("INFO 6 6 1000 S R 6 4 7 6 5 8")
        await client.expect("1 1", "ILLEGAL", "WINNER")
        await client.send("OK")  # the client may still acknowledge it: ignored
        await client.expect_closed()
    (record,) = records(server)
    assert record.fault.termination == Termination.ILLEGAL_MOVE and record.winners == (1,)
    assert record.fault.move == "1 1"


async def test_client_disconnects_mid_game(autojump_clock: trio.testing.MockClock) -> None:
    server = new_server(EX1, scripted("P"))
    async with connect(server) as client:
        await client.start("INFO 4 1 5000 F S")
        await client.send("4 3")
        await client.expect("OK", "P")
    (record,) = records(server)
    assert record.termination == Termination.DISCONNECT
    assert record.winners == (1,)
    assert "disconnected" in server.out.lines[0]  # type: ignore[attr-defined]


async def test_no_ready_means_no_game(autojump_clock: trio.testing.MockClock) -> None:
    server = new_server(EX1)
    async with connect(server) as client:
        await client.expect("WELCOME", "INFO 4 1 5000 F S")
        await client.send("HELLO")
        await client.expect_closed()
    server = new_server(EX1)
    async with connect(server) as client:
        await client.expect("WELCOME", "INFO 4 1 5000 F S")
        await client.expect_closed()  # silence: the handshake deadline passes
    assert not server.records


async def test_random_first_and_layout_are_seeded(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(5, 3, random=True), first="random", seed=42)
    infos = []
    for _ in range(2):
        server = new_server(options)
        seen = []
        for _game in range(6):
            async with connect(server) as client:
                await client.expect("WELCOME")
                seen.append(await client.receive())
        infos.append(seen)
    assert infos[0] == infos[1]  # the same seed, the same games
    assert len(set(infos[0])) > 1
    assert {line.split()[4] for line in infos[0]} == {"F", "S"}
    assert all(line.split()[5] == "R" and len(line.split()) == 11 for line in infos[0])


async def test_clients_paired_two_by_two(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), first="client", opponent="client")
    server = new_server(options)
    async with connect(server, "A") as a:
        await a.expect("WELCOME")
        await trio.sleep(5)  # A waits for a partner
        async with connect(server, "B") as b:
            await b.expect("WELCOME")
            await a.ready("INFO 4 1 1000 F S")
            await b.ready("INFO 4 1 1000 S S")
            await a.expect("BEGIN")
            await b.expect("BEGIN")
            await a.send("4 3")
            await a.expect("OK")
            await b.expect("4 3")
            await trio.sleep(0.9)  # B's clock starts only at its OK
            await b.send("OK")
            await trio.sleep(0.9)
            await b.send("3")
            await b.expect("OK")
            await a.expect("3")
            await a.send("OK")
            await a.send("3")  # empty: illegal
            await a.expect("ILLEGAL", "LOSER")
            await b.expect("3", "ILLEGAL", "WINNER")
    (record,) = records(server)
    assert record.winners == (1,)
    assert server.out.lines[0].startswith("game 1: A (first) vs B: B won")  # type: ignore[attr-defined]


async def test_pair_timeouts_and_disconnects(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), first="client", opponent="client")
    server = new_server(options)
    async with connect(server, "A") as a:
        await a.expect("WELCOME")
        await trio.sleep(1)  # A is surely first in the lobby
        async with connect(server, "B") as b:
            await a.ready("INFO 4 1 1000 F S")
            await b.start("INFO 4 1 1000 S S")
            await a.expect("BEGIN")
            await a.expect("TIME", "LOSER")
            await b.expect("TIME", "WINNER")
    server = new_server(options)
    async with connect(server, "A") as a:
        await a.expect("WELCOME")
        await trio.sleep(1)
        async with connect(server, "B") as b:
            await a.ready("INFO 4 1 1000 F S")
            await b.start("INFO 4 1 1000 S S")
            await b.lines.aclose()  # B leaves
            await a.expect("BEGIN")
            await a.send("4 3")
            await a.expect("OK", "WINNER")  # B left: A wins
    (record,) = records(server)
    assert record.termination == Termination.DISCONNECT


async def test_a_waiting_client_that_leaves_is_not_paired(
    autojump_clock: trio.testing.MockClock,
) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), first="client", opponent="client")
    server = new_server(options)
    async with connect(server, "ghost") as ghost:
        await ghost.expect("WELCOME")
        await trio.sleep(1)
    assert server.lobby.waiting == ()
    async with connect(server, "A") as a:
        await a.expect("WELCOME")
        await trio.sleep(1)
        async with connect(server, "B") as b:
            await a.ready("INFO 4 1 1000 F S")
            await b.start("INFO 4 1 1000 S S")
            await a.expect("BEGIN")


async def test_a_person_at_the_server(autojump_clock: trio.testing.MockClock) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=0), first="client", opponent="human")
    out = RecordingOutput()
    server = KalahServer(options, out=out, keyboard=Keys("hello", "3", "1", "2"))  # type: ignore[arg-type]
    async with connect(server, "C") as client:
        await client.start("INFO 4 1 0 F S")
        await client.send("4 3")
        await client.expect("OK", "3")  # after "hello", which was re-asked
        await client.send("OK")
        await client.send("1")
        await client.expect("OK", "2", "LOSER")  # the person's 1 (empty) was re-asked
    text = "\n".join(out.lines)
    assert "the client sows 4 3" in text and "is not a hole number" in text
    assert "your move" in text and "hole 1 is empty" in text
    assert "game over: WINNER for you" in text


async def test_the_real_ai_is_threaded_and_keeps_to_its_limit() -> None:
    """Real time: the AI searches in a worker thread and answers well inside 100 ms."""
    options = GameOptions(KalahSettings(6, 4, time_ms=100), first="client")
    assert options.server_limit_ms == 100
    server = KalahServer(options, out=RecordingOutput())
    async with connect(server) as client:
        await client.start("INFO 6 4 100 F S")
        await client.send("1")
        await client.expect("OK")
        ok_at = trio.current_time()
        reply = await client.receive()
        assert reply not in ("TIME", "ILLEGAL")
        assert trio.current_time() - ok_at < 0.1


async def test_ai_without_a_free_worker_answers_inline_in_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    limiter = trio.CapacityLimiter(1)
    busy = object()
    await limiter.acquire_on_behalf_of(busy)  # every worker is busy (an overloaded server)
    seat = ai_seat(limiter=limiter)
    state = new_game(6, 4)
    asked = trio.current_time()
    move = await ask(seat, state, TimeControl.per_move_ms(100))
    # at once, without waiting for a worker: queued searches starved the event loop
    assert trio.current_time() == asked
    assert move in legal_moves(state)
    ai = seat.think
    assert isinstance(ai, KalahAi) and ai.last is not None and ai.last.depth == 1
    limiter.release_on_behalf_of(busy)
