"""Kalah on the core match loop: the pure codec (what each side hears, fault by fault), the
notation and view, and the timing boundaries through the core's clocks on trio's virtual
clock (limit - 1 ms in time, limit + 1 ms ``TIME``, 0 = no limit) for both kinds of seat."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.model.referee import Outcome, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.vocabulary import Fault, MatchResult
from hub.games.kalah.codec import end_lines, result_word, state_from_view, state_view
from hub.games.kalah.game import KalahGame
from hub.games.kalah.players import scripted_seat
from hub.games.kalah.rules import PIE, KalahState, Move, new_game, play, turn
from hub.games.kalah.seats import KalahSeat, client_seat, new_match
from tests.kalah.helpers import DEADLOCK_SECONDS, ProtocolClient

# -- pure pieces -----------------------------------------------------------------------------

NORMAL = Outcome((5, 3), [0])
TIED = Outcome((4, 4), [0, 1])


@pytest.mark.parametrize(
    ("fault", "to_faulty", "to_other"),
    [
        (None, ["WINNER"], ["LOSER"]),
        (Fault(1, Termination.TIMEOUT), ["LOSER"], ["WINNER"]),  # TIME went at the deadline
        (Fault(1, Termination.TIMEOUT, move=turn(2)), ["LOSER"], ["2", "WINNER"]),
        (Fault(1, Termination.ILLEGAL_MOVE, move=turn(1, 1)), ["ILLEGAL", "LOSER"],
         ["1 1", "ILLEGAL", "WINNER"]),
        (Fault(1, Termination.MALFORMED), ["ILLEGAL", "LOSER"], ["ILLEGAL", "WINNER"]),
        (Fault(1, Termination.DISCONNECT), [], ["WINNER"]),
        (Fault(1, Termination.RESIGNATION), [], ["WINNER"]),
        (Fault(None, Termination.ABORTED), [], []),
    ],
)  # fmt: skip
def test_end_lines_fault_by_fault(
    fault: Fault | None, to_faulty: list[str], to_other: list[str]
) -> None:
    """Seat 1 is at fault (or seat 0 won by the rules): what each side is told last."""
    outcome = NORMAL if fault is None else Outcome((0, 0), [] if fault.seat is None else [0])
    assert end_lines(1, outcome, fault) == (["LOSER"] if fault is None else to_faulty)
    assert end_lines(0, outcome, fault) == (["WINNER"] if fault is None else to_other)
    assert end_lines(0, TIED, None) == end_lines(1, TIED, None) == ["TIE"]
    assert [result_word(TIED.winners, seat) for seat in (0, 1)] == ["TIE", "TIE"]


def test_notation_view_and_forfeit() -> None:
    state = play(play(new_game(4, 1, pie=True), turn(4, 3)), PIE)
    view = state_view(state)
    # 4 3 captured one seed (store 3); after the swap seat 0 has seat 1's old side
    assert view == {"holes": 4, "board": [0, 1, 1, 1, 0, 1, 1, 0, 0, 3], "to_move": 0,
                    "swapped": True}  # fmt: skip
    assert state_from_view(view).board == state.board
    assert state_from_view(view).swapped and state_from_view(view).mover == 0
    game = KalahGame()
    assert game.name == "kalah" and game.view(state, None) == view
    assert [game.move_text(state, move) for move in (turn(4, 3), PIE)] == ["4 3", "P"]
    outcome = game.forfeit(state, Fault(0, Termination.TIMEOUT))
    assert (outcome.scores, outcome.winners, outcome.termination) == (
        (0, 3),
        {1},
        Termination.TIMEOUT,
    )
    assert game.forfeit(state, Fault(None, Termination.ABORTED)).winners == frozenset()


# -- timing through the core's clocks ----------------------------------------------------------

ONE_HOLE = new_game(1, 1)
"""Seat 0's only move, ``1``, ends the game: a tie."""
TWO_HOLES = new_game(2, 1)
"""Seat 0's ``1`` does not end the game (its other hole is not empty)."""


@asynccontextmanager
async def game_with_a_client(
    state: KalahState, client_first: bool, limits: Sequence[int], moves: list[Move], delay: float
) -> AsyncIterator[tuple[ProtocolClient, list[MatchResult[KalahState, Move]]]]:
    """A match between a client over a memory stream and a scripted local player that
    waits ``delay`` s before its move; yields the client's end and (after) the result."""
    server_end, client_end = trio.testing.memory_stream_pair()
    lines = LineStream(server_end, server_end, ignore_send_errors=True)
    remote = client_seat(lines, PlayerInfo("client", "remote"), 100)
    local = scripted_seat(moves, delays=[delay])
    seats: list[KalahSeat] = [remote, local] if client_first else [local, remote]
    results: list[MatchResult[KalahState, Move]] = []

    async def referee() -> None:
        results.append(await new_match(KalahGame(), state, seats, limits).run())
        await trio.aclose_forcefully(server_end)

    with trio.fail_after(DEADLOCK_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(referee)
            client = ProtocolClient(LineStream(client_end, client_end, ignore_send_errors=True))
            yield client, results
            await client.expect_closed()


@pytest.mark.parametrize(
    ("limit_ms", "delay", "late"),
    [(1000, 0.999, False), (1000, 1.001, True), (0, 10.0**6, False)],
    ids=["limit-1ms", "limit+1ms", "no-limit"],
)
async def test_a_client_on_the_shared_clock(
    autojump_clock: trio.testing.MockClock, limit_ms: int, delay: float, late: bool
) -> None:
    async with game_with_a_client(ONE_HOLE, True, [limit_ms, 0], [], 0) as (client, results):
        await client.expect("BEGIN")
        begun = trio.current_time()
        if late:
            await client.expect("TIME", "LOSER")
            assert trio.current_time() - begun == pytest.approx(1.0)  # not waiting for a move
            await trio.sleep(delay - 1.0)
            await client.send("1")  # too late: nobody reads it
        else:
            await trio.sleep(delay)
            await client.send("1")
            await client.expect("OK", "TIE")
    (result,) = results
    if late:
        assert result.fault is not None and result.fault.termination is Termination.TIMEOUT
        assert result.record.moves == ()
    else:
        assert result.fault is None
        assert result.record.moves[0].elapsed == pytest.approx(delay)
    assert result.record.time_controls[0] == ("1000ms" if limit_ms else "none")


@pytest.mark.parametrize(
    ("limit_ms", "delay", "late"),
    [(500, 0.499, False), (500, 0.501, True), (0, 10.0**6, False)],
    ids=["limit-1ms", "limit+1ms", "no-limit"],
)
async def test_a_local_player_on_the_shared_clock(
    autojump_clock: trio.testing.MockClock, limit_ms: int, delay: float, late: bool
) -> None:
    """The server's side is timed from its ``OK`` (here from ``BEGIN``: it moves first); a
    late move still comes, after ``TIME``."""
    async with game_with_a_client(ONE_HOLE, False, [limit_ms, 0], [turn(1)], delay) as (
        client,
        results,
    ):
        await client.expect("BEGIN")
        begun = trio.current_time()
        if late:
            await client.expect("TIME")
            assert trio.current_time() - begun == pytest.approx(0.5)
            await client.expect("1", "WINNER")
        else:
            await client.expect("1", "TIE")
        assert trio.current_time() - begun == pytest.approx(delay)
    (result,) = results
    assert (result.fault is not None) == late
    if result.fault is not None:
        assert result.fault.termination is Termination.TIMEOUT and result.fault.move == turn(1)
        assert result.record.fault is not None and result.record.fault.move == "1"


@pytest.mark.parametrize(("ok_after", "late"), [(0.999, False), (1.001, True)])
async def test_the_clients_clock_starts_when_its_ok_arrives(
    autojump_clock: trio.testing.MockClock, ok_after: float, late: bool
) -> None:
    """The ``OK`` is due within the client's limit; then its own turn has the whole limit
    from the ``OK``'s arrival (a silent client gets ``TIME`` one limit after it)."""
    async with game_with_a_client(TWO_HOLES, False, [0, 1000], [turn(1)], 0) as (client, results):
        await client.expect("BEGIN", "1")
        moved = trio.current_time()
        if not late:
            await trio.sleep(ok_after)
            await client.send("OK")
        await client.expect("TIME", "LOSER")
        waited = trio.current_time() - moved
        assert waited == pytest.approx(1.0 if late else ok_after + 1.0)
    (result,) = results
    assert result.fault is not None and result.fault.termination is Termination.TIMEOUT
    assert ("acknowledgement" in result.fault.detail) == late
