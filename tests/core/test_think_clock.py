"""Built-in players keep to their clocks: the one budget rule (`hub.core.model.clock.think_budget`,
`hub.core.play.threads.TurnTime.budget`) and the seat's hard stop behind it (`ThreadSeat` with
a ``fallback``), on trio's virtual clock: an AI that never answers by itself still answers
before its deadline, with the move it offered or any legal move, and its late answer is
dropped."""

from __future__ import annotations

import math
import random
import sys
import threading
from typing import Any

import pytest
import trio
import trio.testing

from hub.core.model.clock import TimeControl, hard_margin, think_budget
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.fed import ask
from hub.core.play.game import Ai
from hub.core.play.match import Match
from hub.core.play.threads import SWITCH_INTERVAL, StopFlag, ThreadSeat, TurnTime
from hub.declared.seats import ai_seat
from hub.games.connect4 import Board, ConnectFour, negamax
from hub.games.connect4.ai import DEPTHS
from tests.core.toys import Nim, NimState

# -- the budget (pure) ------------------------------------------------------------------------


def test_no_limit_is_no_budget() -> None:
    assert think_budget(math.inf) is None
    assert TurnTime().budget() is None
    assert TurnTime().hard_stop() == math.inf


def test_a_per_move_limit_is_shared_less_the_margin() -> None:
    assert think_budget(0.1) == pytest.approx(0.1 * 0.5 - 0.010)
    assert think_budget(1.0) == pytest.approx(0.49)
    assert think_budget(1.0, share=0.3) == pytest.approx(0.29)
    assert think_budget(0.015) == 0.0  # never below zero
    assert think_budget(0.0) == 0.0


def test_a_game_clock_is_shared_over_the_moves_to_go_with_the_increment() -> None:
    # 60 s left of 60+1, 30 moves to go: 2 s, plus three quarters of the increment
    assert think_budget(60.0, 60.0, 1.0) == pytest.approx(2.0 + 0.75 - 0.010)
    assert think_budget(60.0, 60.0, 1.0, moves_to_go=10) == pytest.approx(6.0 + 0.75 - 0.010)
    assert think_budget(60.0, 60.0) == pytest.approx(2.0 - 0.010)
    # a clock nearly out: never past the share of what is left, however big the increment
    assert think_budget(0.2, 0.2, 5.0) == pytest.approx(0.1 - 0.010)
    # a game clock with a shorter per-move limit: the limit's share wins
    assert think_budget(0.1, 60.0, 1.0) == pytest.approx(0.04)


def test_the_hard_margin_is_30_percent_of_the_time_left_within_bounds() -> None:
    assert hard_margin(0.1) == pytest.approx(0.030)
    assert hard_margin(1.0) == pytest.approx(0.100)  # at most 100 ms
    assert hard_margin(0.2) == pytest.approx(0.060)
    assert hard_margin(0.005) == pytest.approx(0.003)  # at least 3 ms


def test_the_turn_budget_comes_before_the_hard_stop() -> None:
    for left in (0.02, 0.1, 1.0, 10.0):
        budget = think_budget(left)
        assert budget is not None
        assert budget < left - hard_margin(left)


# -- the hard stop (virtual clock) -----------------------------------------------------------

PER_MOVE = TimeControl.per_move_ms(100)


def never_answers(offer: int | None = None) -> Any:
    """A think that waits for its stop flag (as a search that never looks at the clock would
    run on), then answers late (3)."""

    def think(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        if offer is not None:
            stop.offer(offer)
        stop.wait()
        return 3

    return think


async def test_an_ai_that_never_answers_is_answered_for_at_the_hard_stop(
    autojump_clock: trio.testing.MockClock,
) -> None:
    think = never_answers()
    seat: ThreadSeat[NimState, int] = ThreadSeat(think, fallback=lambda state: 1)
    start = trio.current_time()
    with trio.fail_after(1):  # (without the hard stop: never)
        move = await ask(seat, NimState(10), PER_MOVE)
    assert move == 1  # the fallback, not the late 3
    assert seat.hard_stops == 1
    # at the hard stop: 100 ms less 30% of it (less the real moments of asking)
    assert 0.050 < trio.current_time() - start <= 0.070


async def test_the_hard_stop_plays_the_move_the_search_offered(
    mock_clock: trio.testing.MockClock,
) -> None:
    offered = trio.Event()

    def think(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        stop.offer(2)
        trio.from_thread.run_sync(offered.set)
        stop.wait()
        return 3

    seat: ThreadSeat[NimState, int] = ThreadSeat(think, fallback=lambda state: 1)
    got: list[int] = []

    async def asking() -> None:
        got.append(await ask(seat, NimState(10), PER_MOVE))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(asking)
        await offered.wait()  # (the clock stands still until the offer is made)
        mock_clock.jump(0.070)
    assert got == [2]


async def test_the_thread_is_told_to_stop_and_its_late_answer_is_dropped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    done = threading.Event()
    late: list[int] = []

    def think(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        stop.wait()
        late.append(3)
        done.set()
        return 3

    seat: ThreadSeat[NimState, int] = ThreadSeat(think, fallback=lambda state: 1)
    with trio.fail_after(1):
        assert await ask(seat, NimState(10), PER_MOVE) == 1
    assert await trio.to_thread.run_sync(done.wait, 5.0)  # the flag was set: it ended
    assert late == [3]


async def test_an_ai_in_time_is_not_stopped(mock_clock: trio.testing.MockClock) -> None:
    # (a clock that stands still while the thread answers: autojump would race it)
    seat: ThreadSeat[NimState, int] = ThreadSeat(lambda s, t, f: 2, fallback=lambda state: 1)
    assert await ask(seat, NimState(10), PER_MOVE) == 2
    assert seat.hard_stops == 0


async def test_without_a_limit_there_is_no_hard_stop(
    autojump_clock: trio.testing.MockClock,
) -> None:
    def think(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        return 2 if not stop.wait(0.01) else 1  # (real time: the thread is not stopped)

    seat: ThreadSeat[NimState, int] = ThreadSeat(think, fallback=lambda state: 1)
    assert await ask(seat, NimState(10), TimeControl()) == 2


async def test_a_game_with_ais_that_never_answer_has_no_time_loss(
    autojump_clock: trio.testing.MockClock,
) -> None:
    seats = []
    for name in "AB":
        think = never_answers()
        seats.append(ThreadSeat(think, PlayerInfo(name, "ai"), fallback=lambda state: 1))
    with trio.fail_after(10):
        result = await Match(Nim(), NimState(6), seats, time_control=PER_MOVE).run()
    assert result.fault is None
    assert result.termination is not Termination.TIMEOUT
    assert len(result.record.moves) == 6
    assert all(move.elapsed < 0.1 for move in result.record.moves)
    assert [seat.hard_stops for seat in seats] == [3, 3]


# -- the budget a game's AI is given ----------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "expected"),
    [
        (TimeControl.per_move_ms(100), 0.04),
        (TimeControl.parse("60+1"), 2.74),
        (TimeControl(), math.inf),
    ],
)
async def test_a_declared_ai_is_given_its_budget(
    autojump_clock: trio.testing.MockClock, control: TimeControl, expected: float
) -> None:
    told: list[float] = []

    def move(game: Any, seen: Any, level: int, seconds: float, stop: StopFlag) -> Any:
        told.append(seconds)
        return 1

    class Budgeted(Nim):
        ai = Ai(range(1, 2), move)

    assert ai_seat(Budgeted(), 1, 0).fallback is not None  # every one has the hard stop
    seat = ai_seat(Budgeted(), 1, 0, threaded=False)  # (no worker thread's start to take off)
    assert await ask(seat, NimState(10), control) == 1
    # the rule's budget, less the (real) moments since the seat was asked
    [seconds] = told
    assert seconds == expected if expected == math.inf else expected - 0.05 < seconds <= expected


# -- Connect Four deepens within its budget ---------------------------------------------------


def test_connect_four_offers_each_depth_and_keeps_its_level_without_a_clock() -> None:
    game = ConnectFour()
    state = game.apply(game.apply(game.start(random.Random(1)), 4), 4)
    offered: list[int] = []

    class Recording(StopFlag):
        def offer(self, move: object) -> None:
            assert isinstance(move, int)
            offered.append(move)

    move = negamax(game, state, 4, math.inf, Recording())
    # one move per depth (level 4 looks 3 plies ahead), the last the answer
    assert len(offered) == DEPTHS[4] == 3
    assert offered[-1] == move


def test_connect_four_out_of_time_answers_its_first_depth() -> None:
    game = ConnectFour()
    state: Board = game.start(random.Random(1))
    flag = StopFlag()
    move = negamax(game, state, 8, 0.0, flag)
    assert flag.offered == move  # depth 1 only: the deeper ones ran out of time at once
    assert move in game.legal_moves(state)


def test_a_declared_ai_is_prepared_when_its_seat_is_made() -> None:
    prepared: list[int] = []

    class Prepared(Nim):
        ai = Ai(range(1, 2), lambda *_: 1, prepare=lambda: prepared.append(1))

    ai_seat(Prepared(), 1, 0)
    assert prepared == [1]


def test_chess_level_4_offers_level_3s_move_and_keeps_to_its_seconds() -> None:
    from hub.chess.game import chess_ai
    from hub.games.chess.game import ChessGame

    game = ChessGame()
    state = game.start(random.Random(0))
    flag = StopFlag()
    move = chess_ai(game, state, 4, 0.001, flag)
    legal = list(game.legal_moves(state))
    assert flag.offered in legal
    assert move in legal


async def test_a_seat_with_a_hard_stop_shortens_the_gil_switch_interval(
    mock_clock: trio.testing.MockClock,
) -> None:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # Python's default
    try:
        seat: ThreadSeat[NimState, int] = ThreadSeat(lambda s, t, f: 2, fallback=lambda s: 1)
        assert await ask(seat, NimState(10), PER_MOVE) == 2
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    finally:
        sys.setswitchinterval(before)
