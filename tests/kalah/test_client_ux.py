"""The client as a person meets it (issues 11 and 12), all on trio's virtual clock: a dead
server noticed at once, a silent one given up on, the countdown, type-ahead dropped, results
in words, and a local game's opening board drawn once."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.model.clock import TimeControl
from hub.core.play.fed import ask
from hub.core.play.person import (
    TYPED_AHEAD,
    PersonSeat,
    TypeAhead,
    countdown_frame,
    dropping_type_ahead,
    open_keyboard,
)
from hub.core.play.vocabulary import BaseSeat, SeatFailure, Turn
from hub.games.kalah.client import (
    EXIT_GONE,
    EXIT_RESULT,
    EXIT_TOO_SLOW,
    ServerGone,
    ServerTooSlow,
    _report,
    play_remote,
    server_wait,
)
from hub.games.kalah.local import play_local
from hub.games.kalah.options import (
    GameOptions,
    OptionsError,
    PlayOptions,
    parse_play,
    parse_serve,
)
from hub.games.kalah.players import (
    PERSON_MIN_MS,
    limit_left_ms,
    person_seat,
    scripted_seat,
)
from hub.games.kalah.printer import ResultCause, remote_result_line
from hub.games.kalah.rules import PIE, KalahState, Move, new_game, turn
from hub.games.kalah.seats import KalahSeat
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import DEADLOCK_SECONDS, Keys, RecordingOutput

Server = Callable[[LineStream], Awaitable[None]]


class TimedKeys:
    """A keyboard whose lines arrive at given trio times (then nothing, or end of input)."""

    def __init__(self, *typed: tuple[float, str], eof: bool = False) -> None:
        self.typed = list(typed)
        self.eof = eof

    async def receive(self) -> str | None:
        if not self.typed:
            if self.eof:
                return None
            await trio.sleep_forever()
        at, line = self.typed[0]
        await trio.sleep_until(at)
        self.typed.pop(0)
        return line


class BreakableReceive(trio.abc.ReceiveStream):
    """A receive stream that breaks (as a reset connection does) once ``broken`` is set."""

    def __init__(self, inner: trio.abc.ReceiveStream) -> None:
        self.inner = inner
        self.broken = trio.Event()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data: bytes | None = None
        async with trio.open_nursery() as nursery:

            async def receive() -> None:
                nonlocal data
                data = await self.inner.receive_some(max_bytes)
                nursery.cancel_scope.cancel()

            async def reset() -> None:
                await self.broken.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(receive)
            nursery.start_soon(reset)
        if data is None:
            raise trio.BrokenResourceError("connection reset by peer")
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


async def against(
    server: Server,
    player: KalahSeat,
    *,
    human: bool = True,
    quiet: bool = False,
    breakable: BreakableReceive | None = None,
    grace_ms: int = 2000,
) -> tuple[int, RecordingOutput, RecordingOutput, float]:
    """`_report` (play, then the words and exit status) against ``server``; the status,
    stdout, stderr and the trio time at which the client finished."""
    server_end, client_end = trio.testing.memory_stream_pair()
    receive: trio.abc.ReceiveStream = client_end
    if breakable is not None:
        breakable.inner = client_end
        receive = breakable
    out, err = RecordingOutput(), RecordingOutput()
    options = PlayOptions(game=GameOptions(), human=human, quiet=quiet, grace_ms=grace_ms)
    status: list[int] = []
    ended: list[float] = []

    async def serve() -> None:
        await server(LineStream(server_end, server_end, ignore_send_errors=True))

    async def play(cancel: trio.CancelScope) -> None:
        lines = LineStream(receive, client_end, ignore_send_errors=True)
        status.append(await _report(lines, player, options, out, err))
        ended.append(trio.current_time())
        cancel.cancel()  # a server that never ends by itself

    with trio.fail_after(DEADLOCK_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve)
            nursery.start_soon(play, nursery.cancel_scope)
    return status[0], out, err, ended[0]


async def handshake(server: LineStream, info: str) -> None:
    await server.send_line("WELCOME")
    await server.send_line(info)
    assert await server.receive_line() == "READY"
    await server.send_line("BEGIN")


def never_types() -> PersonSeat[KalahState, Move]:
    return person_seat(TimedKeys(), RecordingOutput(), ("you", "opponent"), terminal=False)


# -- a server that goes away ---------------------------------------------------------------


@pytest.mark.parametrize("how", ["closed", "reset"])
async def test_a_dead_server_is_noticed_at_once_while_the_person_thinks(
    autojump_clock: trio.testing.MockClock, how: str
) -> None:
    """The person is to move and types nothing; the server goes away 3 s into the turn: the
    client says so at that very moment, with exit status 3, without a keystroke."""
    breakable = BreakableReceive(trio.testing.MemoryReceiveStream()) if how == "reset" else None
    gone_at: list[float] = []

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 F S")
        await trio.sleep(3)
        gone_at.append(trio.current_time())
        if breakable is not None:
            breakable.broken.set()
        else:
            await lines.aclose()

    status, _out, err, ended = await against(server, never_types(), breakable=breakable)
    assert status == EXIT_GONE
    assert err.lines == ["hub play kalah: the server has gone away"]
    assert ended - gone_at[0] < 1.0
    assert ended == gone_at[0]  # at once, in fact: the socket is read all along


async def test_a_dead_server_is_noticed_while_the_ai_thinks(
    autojump_clock: trio.testing.MockClock,
) -> None:
    gone_at: list[float] = []

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 F S")
        await trio.sleep(1)
        gone_at.append(trio.current_time())
        await lines.aclose()

    slow_ai = scripted_seat([turn(1)], delays=[4.0])
    status, _out, err, ended = await against(server, slow_ai, human=False)
    assert status == EXIT_GONE and err.lines == ["hub play kalah: the server has gone away"]
    assert ended == gone_at[0]  # the AI was stopped, not waited for


async def test_a_server_gone_while_we_wait_for_its_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 S S")
        await trio.sleep(0.5)
        await lines.aclose()

    with pytest.raises(ServerGone):
        await _play_against(server, never_types())


async def _play_against(server: Server, player: KalahSeat) -> None:
    """`play_remote` against ``server``, re-raising what it raised (not in a group)."""
    server_end, client_end = trio.testing.memory_stream_pair()
    failure: list[Exception] = []

    async def play(cancel: trio.CancelScope) -> None:
        try:
            await play_remote(LineStream(client_end, client_end), player, out=RecordingOutput())
        except Exception as exc:
            failure.append(exc)
        cancel.cancel()  # the server may still be waiting

    with trio.fail_after(DEADLOCK_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(server, LineStream(server_end, server_end))
            nursery.start_soon(play, nursery.cancel_scope)
    if failure:
        raise failure[0]


# -- BEGIN ----------------------------------------------------------------------------------


class TimedLimits(BaseSeat[KalahState, Move]):
    """A seat that notes when it was asked to move and with what limit, then plays 1."""

    def __init__(self) -> None:
        self.asked: list[tuple[float, int]] = []

    async def choose(self, turn_: Turn[KalahState]) -> Move:
        limit_ms = limit_left_ms(turn_.clock.control, turn_.time_left())
        self.asked.append((trio.current_time(), limit_ms))
        return turn(1)


@pytest.mark.parametrize("delay", [0.0, 0.3, 0.999])
async def test_moving_first_the_client_moves_as_soon_as_begin_comes(
    autojump_clock: trio.testing.MockClock, delay: float
) -> None:
    """The wait for ``BEGIN`` (at most min(1 s, t/5)) ends when ``BEGIN`` arrives: the
    client is asked for its move at that instant, with its whole limit (it once skipped the
    ``BEGIN`` and waited out the full second, eating into its first turn)."""
    ready_at: list[float] = []
    moved_at: list[float] = []

    async def server(lines: LineStream) -> None:
        await lines.send_line("WELCOME")
        await lines.send_line("INFO 4 1 5000 F S")
        assert await lines.receive_line() == "READY"
        ready_at.append(trio.current_time())
        await trio.sleep(delay)
        await lines.send_line("BEGIN")
        assert await lines.receive_line() == "1"
        moved_at.append(trio.current_time())
        await lines.send_line("OK")
        await lines.send_line("WINNER")

    player = TimedLimits()
    await _play_against(server, player)
    assert player.asked == [(ready_at[0] + delay, 5000)]
    assert moved_at == [ready_at[0] + delay]


# -- a server that says nothing -------------------------------------------------------------


def test_server_wait_is_twice_the_limit_plus_the_grace() -> None:
    assert server_wait(1000) == 4.0
    assert server_wait(5000, grace=0.5) == 10.5
    assert server_wait(0) == float("inf")


async def test_a_silent_server_is_given_up_on_after_its_move_is_overdue(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The server moves first with 1 s per move and never does: 2 * 1 s + 2 s after BEGIN
    the client reports it too slow (exit 4), and not a moment earlier."""
    begun: list[float] = []

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 S S")
        begun.append(trio.current_time())
        await trio.sleep_forever()  # cancelled when the client has gone

    status, _out, err, ended = await against(server, never_types())
    assert status == EXIT_TOO_SLOW
    assert err.lines == ["hub play kalah: the server is too slow: nothing from it for 4 s"]
    assert ended - begun[0] == pytest.approx(4.0)


async def test_the_grace_is_an_option(autojump_clock: trio.testing.MockClock) -> None:
    assert parse_play([]).grace_ms == 2000
    assert parse_play(["--connect", "localhost:1", "--grace-ms", "500"]).grace_ms == 500
    with pytest.raises(OptionsError):
        parse_play(["--grace-ms", "-1"])
    begun: list[float] = []

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 S S")
        begun.append(trio.current_time())
        await trio.sleep_forever()

    status, _out, err, ended = await against(server, never_types(), grace_ms=500)
    assert status == EXIT_TOO_SLOW and err.lines[0].endswith("nothing from it for 2.5 s")
    assert ended - begun[0] == pytest.approx(2.5)


async def test_a_server_that_never_acknowledges_our_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    sent: list[float] = []

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 F S")
        assert await lines.receive_line() == "1"
        sent.append(trio.current_time())
        await trio.sleep_forever()

    with pytest.raises(ServerTooSlow):
        await _play_against(server, scripted_seat([turn(1)]))
    assert trio.current_time() - sent[0] == pytest.approx(4.0)


async def test_with_no_limit_the_client_waits_as_long_as_it_takes(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A limit of 0 means wait forever (the spec): an hour's silence is not too slow."""

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 0 S S")
        await trio.sleep(3600)
        await lines.send_line("TIE")

    status, out, _err, _ended = await against(server, never_types(), quiet=True)
    assert (status, out.lines) == (EXIT_RESULT, ["TIE"])


# -- the countdown ---------------------------------------------------------------------------


async def test_the_countdown_on_a_terminal(autojump_clock: trio.testing.MockClock) -> None:
    """On a terminal the status line above ``> `` counts down every 0.1 s, rewritten in
    place; the move typed at 0.35 s ends it."""
    out, frames = RecordingOutput(), list[str]()
    start = trio.current_time()
    keys = TimedKeys((start + 0.35, "1"))
    human = person_seat(keys, out, ("you", "server"), terminal=True, write=frames.append)
    assert await ask(human, new_game(4, 1), TimeControl.per_move_ms(5000)) == turn(1)
    prompt = "your move (holes 1-4, q to quit)"
    assert out.lines[-1] == f"{prompt}, 5.0 s left"
    assert frames == [
        "> ",
        countdown_frame(f"{prompt}, 4.9 s left"),
        countdown_frame(f"{prompt}, 4.8 s left"),
        countdown_frame(f"{prompt}, 4.7 s left"),
    ]
    assert countdown_frame("x") == "\x1b7\x1b[A\rx\x1b[K\x1b8"


async def test_the_countdown_reaches_time_is_up(autojump_clock: trio.testing.MockClock) -> None:
    """At the deadline the status says so and stops; when the turn is then taken away (the
    game is over), the input line is ended so that what follows starts on its own line."""
    frames: list[str] = []
    human = person_seat(TimedKeys(), RecordingOutput(), terminal=True, write=frames.append)
    with trio.move_on_after(1):
        await ask(human, new_game(4, 1), TimeControl.per_move_ms(300))
    prompt = "your move (holes 1-4, q to quit)"
    assert frames == [
        "> ",
        countdown_frame(f"{prompt}, 0.2 s left"),
        countdown_frame(f"{prompt}, 0.1 s left"),
        countdown_frame(f"{prompt}: time is up"),
        "\n",
    ]


async def test_no_countdown_when_output_is_not_a_terminal(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A pipe gets the limit once per turn and plain lines: no escapes, no redraws."""
    out, frames = RecordingOutput(), list[str]()
    start = trio.current_time()
    keys = TimedKeys((start + 2.0, "4"), (start + 2.5, "3"))
    human = person_seat(keys, out, terminal=False, write=frames.append)
    assert await ask(human, new_game(4, 1), TimeControl.per_move_ms(5000)) == turn(4, 3)
    assert frames == []
    assert [line for line in out.lines if "5 s" in line] == ["(you have 5 s for the whole turn)"]
    assert not any("\x1b" in line or "\r" in line for line in out.lines)
    assert out.lines.count("your move (holes 1-4, q to quit)> ") == 2


async def test_no_countdown_without_a_limit(autojump_clock: trio.testing.MockClock) -> None:
    out, frames = RecordingOutput(), list[str]()
    keys = TimedKeys((trio.current_time() + 30, "1"))
    human = person_seat(keys, out, terminal=True, write=frames.append)
    assert await ask(human, new_game(4, 1), TimeControl.per_move_ms(0)) == turn(1)
    assert frames == ["> "] and out.lines[-1] == "your move (holes 1-4, q to quit)"


async def test_a_person_who_runs_out_of_time_reads_so_in_words(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The server's TIME comes while the person is still at the prompt: the prompt is
    given up at once and the result says why."""

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 F S")
        await trio.sleep(1)
        await lines.send_line("TIME")
        await lines.send_line("LOSER")

    frames: list[str] = []
    human = person_seat(TimedKeys(), RecordingOutput(), terminal=True, write=frames.append)
    start = trio.current_time()
    status, out, _err, ended = await against(server, human)
    assert ended == start + 1  # at the server's TIME, not at the next keystroke
    assert status == EXIT_RESULT and frames[-1] == "\n"
    assert out.lines[-1] == "you lost on time (stores: you 0, opponent 0)"
    assert "LOSER" not in "\n".join(out.lines) and "TIME" not in "\n".join(out.lines)


# -- type-ahead -------------------------------------------------------------------------------


async def test_lines_typed_while_the_server_thinks_are_dropped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The server thinks for 2 s; the person types "2" and "3" meanwhile (dropped, said
    once), then "1" once it is their turn: "1" is the move sent."""
    received: list[str] = []

    async def server_then_move(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 S S")
        await trio.sleep(2)
        await lines.send_line("1")
        assert await lines.receive_line() == "OK"
        received.append(await lines.receive_line())
        await lines.send_line("OK")
        await lines.send_line("LOSER")

    start = trio.current_time()
    typed = [(start + 0.5, "2"), (start + 1.0, "3"), (start + 3.0, "1")]
    human_out = RecordingOutput()
    async with dropping_type_ahead(TimedKeys(*typed)) as keys:
        human = person_seat(keys, human_out, ("you", "server"), terminal=False)
        status, out, _err, _ended = await against(server_then_move, human)
    assert status == EXIT_RESULT
    assert received == ["1"]
    assert human_out.lines.count(TYPED_AHEAD) == 1
    assert out.lines[-1].startswith("the server ended the game: you lose")


async def test_type_ahead_keeps_what_is_typed_in_the_turn_and_the_end_of_input(
    autojump_clock: trio.testing.MockClock,
) -> None:
    start = trio.current_time()
    source = TimedKeys((start + 1, "3"), (start + 3, "4"), (start + 3.5, "3"), eof=True)
    async with dropping_type_ahead(source) as keys:
        assert isinstance(keys, TypeAhead)
        await trio.sleep(2)  # "3" arrives before the turn
        out = RecordingOutput()
        human = person_seat(keys, out, terminal=False)
        assert await ask(human, new_game(4, 1), TimeControl.per_move_ms(0)) == turn(
            4, 3
        )  # typed in the turn
        assert out.lines.count(TYPED_AHEAD) == 1
        await trio.sleep(1)  # end of input came meanwhile: never dropped
        out = RecordingOutput()
        with pytest.raises(SeatFailure):
            await ask(
                person_seat(keys, out, terminal=False), new_game(4, 1), TimeControl.per_move_ms(0)
            )
        assert TYPED_AHEAD not in out.lines  # nothing was typed ahead this time


async def test_open_keyboard_drops_type_ahead_on_a_terminal_only() -> None:
    """A pseudo-terminal gets a `TypeAhead`; a pipe (a script) gets its lines in order."""
    read_fd, write_fd = os.pipe()
    primary, secondary = os.openpty()
    try:
        with trio.fail_after(10):
            os.write(write_fd, b"3\n")
            async with open_keyboard(read_fd) as keys:
                assert not isinstance(keys, TypeAhead)
                assert await keys.receive() == "3"
            os.write(primary, b"4\n")
            async with open_keyboard(secondary) as keys:
                assert isinstance(keys, TypeAhead)
                assert await keys.receive() == "4"
    finally:
        for fd in (read_fd, write_fd, primary, secondary):
            os.close(fd)


async def test_type_ahead_is_bounded(autojump_clock: trio.testing.MockClock) -> None:
    """A paste of many lines before the turn: all dropped, counted, none kept as moves."""
    typed = [(trio.current_time(), "1")] * 40 + [(trio.current_time() + 5, "2")]
    async with dropping_type_ahead(TimedKeys(*typed)) as keys:
        assert isinstance(keys, TypeAhead)
        await trio.sleep(1)
        assert keys.drop_typed_ahead() == 40
        assert await keys.receive() == "2"


# -- results in words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "ending", "names", "stores", "words"),
    [
        ("WINNER", ResultCause.RULES, ("you", "opponent"), (16, 5), "you win 16-5"),
        ("LOSER", ResultCause.RULES, ("you", "opponent"), (5, 16), "opponent wins 16-5"),
        ("WINNER", ResultCause.RULES, ("AI", "opponent"), (16, 5), "AI wins 16-5"),
        ("TIE", ResultCause.RULES, ("you", "opponent"), (8, 8), "tie, 8-8"),
        (
            "LOSER",
            ResultCause.LATE,
            ("you", "opponent"),
            (0, 3),
            "you lost on time (stores: you 0, opponent 3)",
        ),
        (
            "LOSER",
            ResultCause.REFUSED,
            ("AI", "opponent"),
            (1, 2),
            "AI lost: the server refused the move as illegal (stores: AI 1, opponent 2)",
        ),
        (
            "WINNER",
            ResultCause.SERVER_LATE,
            ("you", "opponent"),
            (1, 2),
            "you win: the opponent ran out of time (stores: you 1, opponent 2)",
        ),
        (
            "WINNER",
            ResultCause.SERVER_ILLEGAL,
            ("you", "opponent"),
            (1, 2),
            "you win: the opponent played an illegal move (stores: you 1, opponent 2)",
        ),
        (
            "WINNER",
            ResultCause.SERVER_ENDED,
            ("you", "opponent"),
            (1, 2),
            "the server ended the game: you win (stores: you 1, opponent 2)",
        ),
        (
            "LOSER",
            ResultCause.RULES,  # the server's word disagrees with the stores
            ("AI", "opponent"),
            (9, 2),
            "the server ended the game: AI loses (stores: AI 9, opponent 2)",
        ),
    ],
)
def test_remote_results_in_words(
    word: str, ending: ResultCause, names: tuple[str, str], stores: tuple[int, int], words: str
) -> None:
    assert remote_result_line(word, ending, names, stores) == words


async def test_worked_example_1_ends_in_words(autojump_clock: trio.testing.MockClock) -> None:
    """The spec's first worked example, as a person would read its end: the board, then
    ``opponent wins 5-3``; ``--quiet`` keeps the bare protocol word."""

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 F S")
        assert await lines.receive_line() == "4 3"
        await lines.send_line("OK")
        await lines.send_line("P")
        assert await lines.receive_line() == "OK"
        assert await lines.receive_line() == "4 3"
        await lines.send_line("OK")
        await lines.send_line("2")
        await lines.send_line("LOSER")

    for quiet, last in ((False, "opponent wins 5-3"), (True, "LOSER")):
        player = scripted_seat([turn(4, 3), turn(4, 3)])
        status, out, _err, _ended = await against(server, player, quiet=quiet)
        assert status == EXIT_RESULT and out.lines[-1] == last
        assert not quiet or out.lines == ["LOSER"]


async def test_a_slow_server_ends_in_words(autojump_clock: trio.testing.MockClock) -> None:
    """``TIME``, the late move, ``WINNER``: the late move is still read within the server's
    5 s of grace after its TIME (beyond the usual wait)."""

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 1000 S S")
        await trio.sleep(1)
        await lines.send_line("TIME")
        await trio.sleep(5)
        await lines.send_line("2")
        await lines.send_line("WINNER")

    status, out, _err, _ended = await against(server, never_types(), human=False)
    assert status == EXIT_RESULT
    assert out.lines[-1] == "AI wins: the opponent ran out of time (stores: AI 0, opponent 0)"


# -- a local game ------------------------------------------------------------------------------


async def test_a_local_game_draws_the_opening_board_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    out = RecordingOutput()
    options = PlayOptions(game=GameOptions(KalahSettings(4, 1, time_ms=0)), record=None)
    await play_local(options, out, Keys("q"))  # type: ignore[arg-type]
    first_prompt = next(i for i, line in enumerate(out.lines) if line.startswith("your move"))
    boards = [line for line in out.lines[:first_prompt] if line.lstrip().startswith("1 ")]
    assert len(boards) == 1
    assert out.lines[-1] == "AI wins 0-0 (quit: you)"


# -- issue 20: a limit a person can play, and who is who ---------------------------------------


async def _time_up_after_one_second(lines: LineStream) -> None:
    await handshake(lines, "INFO 4 1 1000 F S")
    await trio.sleep(1)
    await lines.send_line("TIME")
    await lines.send_line("LOSER")


async def test_a_person_is_told_the_limit_and_warned_when_it_is_too_short(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Issue 20, item 4: before the first move the person reads the limit and, below 5 s,
    that it is too short to type a move and who sets it; the AI client is not warned."""
    status, out, _err, _ended = await against(_time_up_after_one_second, never_types())
    assert status == EXIT_RESULT
    assert out.lines[:2] == [
        "4 holes, 1 seeds, 1 s per turn, standard layout; you move first",
        "warning: 1 s a turn is too short for a person to type a move (allow 5 s at least); "
        "the server sets it (hub serve kalah --time-ms)",
    ]
    _status, out, _err, _ended = await against(
        _time_up_after_one_second, never_types(), human=False
    )
    assert out.lines[0] == "4 holes, 1 seeds, 1 s per turn, standard layout; AI moves first"
    assert not any(line.startswith("warning") for line in out.lines)


@pytest.mark.parametrize("info", ["INFO 4 1 5000 F S", "INFO 4 1 0 F S"])
async def test_no_warning_for_a_limit_a_person_can_play(
    autojump_clock: trio.testing.MockClock, info: str
) -> None:
    async def server(lines: LineStream) -> None:
        await handshake(lines, info)
        await lines.send_line("WINNER")

    _status, out, _err, _ended = await against(server, never_types())
    limit = "5 s per turn" if " 5000 " in info else "no time limit"
    assert out.lines[0] == f"4 holes, 1 seeds, {limit}, standard layout; you move first"
    assert not any(line.startswith("warning") for line in out.lines)


async def test_a_local_game_warns_a_person_of_a_short_limit(
    autojump_clock: trio.testing.MockClock,
) -> None:
    out = RecordingOutput()
    options = PlayOptions(game=GameOptions(KalahSettings(4, 1, time_ms=2500)), record=None)
    await play_local(options, out, Keys("q"))  # type: ignore[arg-type]
    assert out.lines[:2] == [
        "Kalah: you (South, moves first) vs AI (North)",
        "warning: 2.5 s a turn is too short for a person to type a move (allow 5 s at least); "
        "give a longer --time-ms, or 0 for no limit",
    ]


def _serve_examples(page: str) -> list[str]:
    """The example lines of ``page`` that start ``hub serve kalah`` and offer the server to a
    person (``--human`` on the same line), without the comment."""
    text = (Path(__file__).resolve().parents[2] / page).read_text(encoding="utf-8")
    return [
        line.split("#")[0]
        for line in map(str.strip, text.splitlines())
        if line.startswith("hub serve kalah") and "--human" in line
    ]


@pytest.mark.parametrize("page", ["README.md", "docs/kalah.md"])
def test_the_documented_example_for_a_person_has_a_playable_limit(page: str) -> None:
    """Issue 20, item 4: the README's example gave a person 1 s a turn."""
    examples = _serve_examples(page)
    assert examples, f"{page} shows no example of a person playing a server"
    for example in examples:
        options = parse_serve(example.split()[3:])
        time_ms = options.game.settings.time_ms
        assert time_ms == 0 or time_ms >= PERSON_MIN_MS, example


async def test_the_ai_client_says_who_is_who(autojump_clock: trio.testing.MockClock) -> None:
    """Issue 20, item 5: the spec's first worked example as the ``--ai`` client prints it:
    its own moves as the AI's, the other side as the opponent (it may be another client,
    not the server), the pie in words."""

    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 F S")
        assert await lines.receive_line() == "4 3"
        await lines.send_line("OK")
        await lines.send_line("P")
        assert await lines.receive_line() == "OK"
        assert await lines.receive_line() == "4 3"
        await lines.send_line("OK")
        await lines.send_line("2")
        await lines.send_line("LOSER")

    player = scripted_seat([turn(4, 3), turn(4, 3)])
    status, out, _err, _ended = await against(server, player, human=False)
    assert status == EXIT_RESULT
    assert out.lines == [
        "4 holes, 1 seeds, 5 s per turn, standard layout; AI moves first",
        "AI: 4 3",
        "the opponent swapped sides (pie rule)",
        "AI: 4 3",
        "opponent: 2",
        "opponent wins 5-3",
    ]
    # a person reads the same words, and the board names the opponent too
    player = scripted_seat([turn(4, 3), turn(4, 3)])
    _status, out, _err, _ended = await against(server, player)
    assert "the opponent swapped sides (pie rule)" in out.lines
    assert "you: 4 3" in out.lines and out.lines[-1] == "opponent wins 5-3"
    assert not any("server" in line for line in out.lines)


async def test_a_client_taking_the_pie_says_so(autojump_clock: trio.testing.MockClock) -> None:
    async def server(lines: LineStream) -> None:
        await handshake(lines, "INFO 4 1 5000 S S")
        await lines.send_line("4 3")
        assert await lines.receive_line() == "OK"
        assert await lines.receive_line() == "P"
        await lines.send_line("OK")
        await lines.send_line("WINNER")

    player = scripted_seat([PIE])
    _status, out, _err, _ended = await against(server, player, human=False)
    assert out.lines[1:3] == ["opponent: 4 3", "AI swapped sides (pie rule)"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--time-ms", "-5"],
            "argument --time-ms: the time per move must be 0..999999999 ms (0: no limit), not -5",
        ),
        (
            ["--time-ms", "5s"],
            "argument --time-ms: the time per move must be a whole number, 0..999999999 ms "
            "(0: no limit), not '5s'",
        ),
        (
            ["--server-time-ms", "-1"],
            "argument --server-time-ms: the opponent's time per move must be 0..999999999 ms "
            "(0: no limit), not -1",
        ),
        (["--holes", "-3"], "argument --holes: holes must be 1..20, not -3"),
    ],
)
def test_a_negative_number_is_out_of_range_not_junk(args: list[str], message: str) -> None:
    """Issue 20, item 5: ``--time-ms -5`` said ``time must be a whole number, not '-5'``."""
    with pytest.raises(OptionsError) as caught:
        parse_play(args)
    assert str(caught.value) == message
