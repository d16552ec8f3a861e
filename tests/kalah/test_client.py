"""The client's side of the protocol, against our server and against scripted servers."""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.io.output import Output
from hub.core.model.clock import TimeControl
from hub.core.play.fed import ask
from hub.core.play.vocabulary import SeatFailure
from hub.games.kalah.client import ProtocolError, play_remote
from hub.games.kalah.codec import result_word, state_view
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import ai_seat, person_seat, scripted_seat
from hub.games.kalah.rules import new_game, play, turn
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import (
    DEADLOCK_SECONDS,
    Keys,
    RecordingOutput,
    connect,
    new_server,
    scripted,
)


def quiet() -> Output:
    return RecordingOutput()


async def test_our_client_against_our_server(autojump_clock: trio.testing.MockClock) -> None:
    rng = random.Random(1)
    for game in range(12):
        options = GameOptions(
            KalahSettings(
                rng.randint(1, 9),
                rng.randint(1, 10),
                pie=rng.random() < 0.5,
                time_ms=rng.choice([0, 1000]),
                random=rng.random() < 0.5,
            ),
            first=rng.choice(["client", "server", "random"]),
            seed=game,
        )
        server = new_server(options)
        async with connect(server) as client:
            result = await play_remote(
                client.lines,
                ai_seat(threaded=False, max_nodes=200),
                pie=options.settings.pie,
                out=quiet(),
            )
        ((_number, record),) = server.records
        assert record.fault is None
        seat = 0 if result.info.first else 1
        assert result.result == result_word(record.winners, seat)
        assert state_view(result.state) == record.final_state


async def run_against(
    server_lines: list[str], client_moves: list[str], pie: bool = False
) -> tuple[str | ProtocolError, list[str]]:
    """Feed scripted server lines (a line "<-" waits for one client line) to `play_remote`."""
    server_end, client_end = trio.testing.memory_stream_pair()
    server = LineStream(server_end, server_end)
    received: list[str] = []
    outcome: list[str | ProtocolError] = []

    async def serve() -> None:
        for line in server_lines:
            if line == "<-":
                received.append(await server.receive_line())
            else:
                await server.send_line(line)
        await server_end.aclose()

    async def play() -> None:
        player = scripted_seat([_move(text) for text in client_moves])
        try:
            result = await play_remote(
                LineStream(client_end, client_end), player, pie=pie, out=quiet()
            )
            outcome.append(result.result)
        except ProtocolError as exc:
            outcome.append(exc)

    with trio.fail_after(DEADLOCK_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve)
            nursery.start_soon(play)
    return outcome[0], received


def _move(text: str) -> object:
    from hub.games.kalah.protocol import parse_move

    return parse_move(text, 9)


async def test_worked_example_1_as_the_client(autojump_clock: trio.testing.MockClock) -> None:
    script = ["WELCOME", "INFO 4 1 5000 F S", "<-", "BEGIN", "<-", "OK", "P", "<-", "<-"]
    script += ["OK", "2", "LOSER"]
    result, sent = await run_against(script, ["4 3", "4 3"])
    assert result == "LOSER"
    assert sent == ["READY", "4 3", "OK", "4 3"]


async def test_a_server_that_omits_begin(autojump_clock: trio.testing.MockClock) -> None:
    script = ["WELCOME", "INFO 4 1 5000 F S", "<-", "<-", "OK", "P", "<-", "<-"]
    script += ["OK", "2", "<-", "LOSER"]
    begun = trio.current_time()
    result, sent = await run_against(script, ["4 3", "4 3"])
    assert result == "LOSER"
    assert sent == ["READY", "4 3", "OK", "4 3", "OK"]
    assert trio.current_time() - begun == pytest.approx(1.0)  # waited a second for BEGIN


async def test_server_pie_accepted_without_our_pie_flag(
    autojump_clock: trio.testing.MockClock,
) -> None:
    script = ["WELCOME", "INFO 4 1 5000 F S", "<-", "BEGIN", "<-", "OK", "P", "<-", "<-", "OK"]
    script += ["TIE"]
    result, sent = await run_against(script, ["4 3", "4 3"], pie=False)
    assert result == "TIE"
    assert sent[2] == "OK"


async def test_illegal_server_move_is_not_acknowledged(
    autojump_clock: trio.testing.MockClock,
) -> None:
    script = ["WELCOME", "INFO 6 6 1000 S R 6 4 7 6 5 8", "<-", "BEGIN", "1 1", "ILLEGAL"]
    script += ["WINNER"]
    result, sent = await run_against(script, [])
    assert result == "WINNER"
    assert sent == ["READY"]


async def test_slow_server_time_move_winner(autojump_clock: trio.testing.MockClock) -> None:
    script = ["WELCOME", "INFO 4 1 1000 F S", "<-", "BEGIN", "<-", "OK", "TIME", "2", "WINNER"]
    result, _sent = await run_against(script, ["1"])
    assert result == "WINNER"


@pytest.mark.parametrize(
    "script",
    [
        ["HELLO"],
        ["WELCOME", "INFO 4 1"],
        ["WELCOME", "INFO 4 1 1000 F S", "<-", "BEGIN", "<-", "WHAT"],
        ["WELCOME", "INFO 4 1 1000 S S", "<-", "BEGIN", "9"],
        ["WELCOME", "INFO 4 1 1000 S S", "<-", "BEGIN"],  # then the server hangs up
        ["WELCOME", "INFO 4 1 1000 F S", "<-", "BEGIN", "<-", "OK", "\x1b[2J"],
    ],
)
async def test_protocol_errors(autojump_clock: trio.testing.MockClock, script: list[str]) -> None:
    result, _sent = await run_against(script, ["1"])
    assert isinstance(result, ProtocolError)
    assert "\x1b" not in str(result)


async def test_human_against_our_server(autojump_clock: trio.testing.MockClock) -> None:
    server = new_server(
        GameOptions(KalahSettings(4, 1, pie=True, time_ms=0), first="client"), scripted("P", "2")
    )
    out = RecordingOutput()
    # Junk, an empty hole and a cut-short turn are re-asked; "4" then "3" make one turn.
    keys = Keys("", "x", "9", "P", "4", "4", "3", "4 3")
    human = person_seat(keys, out, ("you", "server"))  # type: ignore[arg-type]
    async with connect(server) as client:
        result = await play_remote(client.lines, human, pie=True, out=out)
    assert result.result == "LOSER"
    text = "\n".join(out.lines)
    assert "type a hole number" in text
    assert "is not a hole number" in text
    assert "no hole 9" in text
    assert "the pie is only allowed" in text
    assert "hole 4 is empty" in text
    assert "move again" in text
    assert [move for _seat, move in result.moves] == [turn(4, 3), _move("P"), turn(4, 3), turn(2)]


async def test_human_quits(autojump_clock: trio.testing.MockClock) -> None:
    human = person_seat(Keys("q"), RecordingOutput())  # type: ignore[arg-type]
    server = new_server(GameOptions(KalahSettings(4, 1), first="client"))
    async with connect(server) as client:
        with pytest.raises(SeatFailure):
            await play_remote(client.lines, human, out=quiet())
    human = person_seat(Keys(), RecordingOutput())  # type: ignore[arg-type]
    server = new_server(GameOptions(KalahSettings(4, 1), first="client"))
    async with connect(server) as client:
        with pytest.raises(SeatFailure):  # end of input
            await play_remote(client.lines, human, out=quiet())
    ((_n, record),) = server.records
    assert record.fault is not None


async def test_a_person_moving_second_sees_itself_at_the_bottom() -> None:
    out = RecordingOutput()
    human = person_seat(Keys("1"), out, ("you", "server"))  # type: ignore[arg-type]
    state = play(new_game(4, 1), turn(2))  # seat 1 (the person) to move
    assert await ask(human, state, TimeControl(), index=1) == turn(1)
    bottom = [line for line in out.lines if line.lstrip().startswith("1 ")]
    assert bottom and bottom[0].endswith("you (North)")
    top = [line for line in out.lines if line.lstrip().startswith("4 ")]
    assert top[0].endswith("server (South)")
