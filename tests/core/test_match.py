"""run_match drives a referee and its seats; faults name the seat and the cause."""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from hub.core.match import SeatFailure, run_match
from hub.core.referee import IllegalMove
from tests.core.toys import Nim, NimState


@attrs.define
class Scripted:
    moves: Iterator[int | str]
    log: list[str]
    name: str

    async def begin(self, state: NimState) -> None:
        self.log.append(f"{self.name} begin {state.pile}")

    async def observe(self, before: NimState, move: int, after: NimState) -> None:
        self.log.append(f"{self.name} saw {move}")

    async def choose(self, state: NimState) -> int:
        move = next(self.moves)
        if isinstance(move, str):
            raise SeatFailure(move)
        return move


async def test_plays_to_the_outcome_and_tells_observers_first() -> None:
    log: list[str] = []
    seats = [Scripted(iter([3, 3]), log, "A"), Scripted(iter([1, 3]), log, "B")]
    watcher = Scripted(iter([]), log, "W")
    result = await run_match(Nim(), NimState(10), seats, [watcher])
    assert result.fault is None
    assert result.moves == [(0, 3), (1, 1), (0, 3), (1, 3)]
    assert result.outcome is not None and result.outcome.winners == {1}
    assert result.state.pile == 0
    assert log[:3] == ["W begin 10", "A begin 10", "B begin 10"]
    assert log[3:6] == ["W saw 3", "A saw 3", "B saw 3"]
    assert len(log) == 3 + 4 * 3


async def test_illegal_move_is_the_movers_fault() -> None:
    log: list[str] = []
    seats = [Scripted(iter([2]), log, "A"), Scripted(iter([4]), log, "B")]
    result = await run_match(Nim(), NimState(10), seats)
    assert result.outcome is None
    assert result.fault is not None
    assert result.fault.seat == 1
    assert isinstance(result.fault.error, IllegalMove)
    assert result.fault.move == 4
    assert result.state.pile == 8  # the state before the illegal move


async def test_seat_failure_ends_the_match() -> None:
    log: list[str] = []
    seats = [Scripted(iter(["quit"]), log, "A"), Scripted(iter([]), log, "B")]
    result = await run_match(Nim(), NimState(5), seats)
    assert result.fault is not None
    assert result.fault.seat == 0
    assert isinstance(result.fault.error, SeatFailure)
    assert result.fault.error.reason == "quit"
    assert result.moves == []


async def test_wrong_number_of_seats_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="1 seats for a 2-seat game"):
        await run_match(Nim(), NimState(5), [Scripted(iter([]), [], "A")])
