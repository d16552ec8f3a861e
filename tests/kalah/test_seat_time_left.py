"""A local player is asked with what is left of its clock, not the whole limit: a loaded
server may reach the AI's turn well after the clock started (at the mover's ``OK``), and an
AI that then searched for its share of the whole limit answered after the deadline
(bench/load.py, 500 games at 100 ms: found by the load benchmark of issue 11)."""

from __future__ import annotations

import time

import pytest
import trio
import trio.testing

from hub.core.clock import SeatClock, TimeControl
from hub.core.match import Turn
from hub.core.seats import StopFlag, ThreadSeat, TurnTime
from hub.games.kalah.ai import (
    MOVES_AHEAD,
    TIME_MARGIN,
    TIME_SHARE,
    budget_seconds,
    game_clock_budget,
    greedy,
    hard_margin,
)
from hub.games.kalah.players import KalahAi, KalahAiSeat, limit_left_ms
from hub.games.kalah.rules import PIE, KalahState, Move, new_game, play, turn


class Recorder:
    """A local AI's ``think`` that notes the limit it would budget from."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def __call__(self, state: KalahState, time: TurnTime, stop: object) -> int:
        self.asked.append(limit_left_ms(time.control, time.left))
        return 0


def turn_started(ago: float, limit_ms: int) -> Turn[KalahState]:
    control = TimeControl.per_move_ms(limit_ms)
    clock = SeatClock(control)
    deadline = clock.start(trio.current_time() - ago)
    return Turn(0, new_game(6, 4), deadline, clock, 1)


async def test_the_player_gets_the_time_left(autojump_clock: trio.testing.MockClock) -> None:
    recorder = Recorder()
    seat = ThreadSeat(recorder, threaded=False)
    for ago, expected in ((0.0, 100), (0.04, 60), (0.0999, 1), (0.5, 1)):
        await seat.choose(turn_started(ago, 100))
        assert recorder.asked[-1] == expected
    # 60 ms left: the AI searches 14 ms, not the 30 ms of a whole 100 ms turn
    assert budget_seconds(60) < budget_seconds(100) - 0.01
    assert budget_seconds(1) == 0.0  # nothing left: its one-turn lookahead, at once


async def test_no_limit_stays_none(autojump_clock: trio.testing.MockClock) -> None:
    recorder = Recorder()
    seat = ThreadSeat(recorder, threaded=False)
    await seat.choose(turn_started(5.0, 0))
    assert recorder.asked == [0]


async def test_the_hard_stop_answers_when_the_search_does_not(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A search thread that does not answer (a machine too busy to run it) is given up at
    `hard_margin` before the deadline: the seat answers with the greedy turn, in time."""
    ai = KalahAi()

    def stuck(state: KalahState, time: TurnTime, stop: StopFlag) -> Move:
        stop.wait()  # returns once the seat gives up on it
        return PIE

    seat = KalahAiSeat(stuck, ai=ai)
    turn = turn_started(0.0, 100)
    started = trio.current_time()
    move = await seat.choose(turn)
    assert move == greedy(turn.state)
    assert trio.current_time() - started == pytest.approx(0.1 - hard_margin(0.1), abs=0.002)
    assert trio.current_time() < turn.deadline


def test_the_fallback_is_the_best_move_so_far() -> None:
    ai = KalahAi()
    state = new_game(6, 4)
    running = ai._take(state)
    assert ai.fallback(state) == greedy(state)  # nothing found yet
    running.best = (state, turn(1))
    assert ai.fallback(state) == turn(1)
    assert ai.fallback(play(state, turn(1))) != turn(1)  # not for another state


def test_a_game_clock_is_shared_over_the_turns_ahead() -> None:
    """On a game clock the AI spends a share of what is left plus most of the increment,
    never the 1 s of a game without a limit, nor most of its clock."""
    assert game_clock_budget(10.0) == pytest.approx(10.0 / MOVES_AHEAD - TIME_MARGIN)
    assert game_clock_budget(10.0, 0.1) > game_clock_budget(10.0)
    assert game_clock_budget(0.05, 5.0) <= 0.05 * TIME_SHARE
    assert game_clock_budget(0.0) == 0.0
    seen: list[float] = []

    class Noting(KalahAi):
        def search(self, state: KalahState, seconds: float, stop: StopFlag) -> Move:
            seen.append(seconds)
            return turn(1)

    ai = Noting(1)
    state = new_game(6, 4)
    control = TimeControl.fischer(2.0, 0.1)
    ai(state, TurnTime(2.0, control, 2.0, 2.0, time.perf_counter()), StopFlag())
    assert 0 < seen[-1] <= game_clock_budget(2.0, 0.1)
