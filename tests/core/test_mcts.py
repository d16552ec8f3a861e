"""The general game player (hub/core/play/mcts.py): it beats a random mover on Connect Four, Kalah
and a game declared here with turns of several moves (for two and three seats), from the
rules alone; it is deterministic for a seed and a budget, keeps to a time budget and a stop
flag and always answers a legal move; rewards split draws and shared wins."""

from __future__ import annotations

import math
import random
import threading
from typing import Any

import attrs
import pytest

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Game
from hub.core.play.mcts import (
    LEVELS,
    PLAYOUT_CHECK,
    Budget,
    choose,
    general_move,
    level_playouts,
    rewards,
    think_seconds,
)
from hub.games.connect4 import ConnectFour
from hub.games.kalah.game import KalahGame


@attrs.frozen
class Heap:
    stones: int
    mover: int = 0
    last: int = -1


class TakeThreeAgain(Game[Heap, int]):
    """Take 1 to 3 stones from one heap; taking 3 (with stones left) is a turn of several
    moves: the same seat moves again; whoever takes the last stone wins. 2 to 4 seats."""

    name = "take-three-again"
    players = (2, 4)

    def start(self, rng: random.Random) -> Heap:
        return Heap(21)

    def to_move(self, state: Heap) -> int | None:
        return None if state.stones == 0 else state.mover

    def legal_moves(self, state: Heap) -> list[int]:
        return [n for n in (1, 2, 3) if n <= state.stones]

    def apply(self, state: Heap, move: int) -> Heap:
        if move not in self.legal_moves(state):
            raise IllegalMove(f"cannot take {move} of {state.stones}")
        again = move == 3 and state.stones > 3
        mover = state.mover if again else (state.mover + 1) % self.seat_count
        return Heap(state.stones - move, mover, state.mover)

    def outcome(self, state: Heap) -> Outcome | None:
        if state.stones:
            return None
        return Outcome([int(s == state.last) for s in range(self.seat_count)], [state.last])

    def view(self, state: Heap, seat: int | None = None) -> dict[str, int]:
        return {"stones": state.stones, "to_move": state.mover}


def wins_against_random(game: Game[Any, Any], playouts: int, games: int) -> int:
    """Games the general player wins alone, in every seat in turn, against random movers."""
    search = type(game).search
    won = 0
    for number in range(games):
        rng = random.Random(number)
        state = game.start(rng)
        seats = game.seats(state)
        mine = number % seats
        while game.outcome(state) is None:
            if game.to_move(state) == mine:
                move = choose(game, state, rng, Budget(playouts=playouts), search=search)
            else:
                move = rng.choice(list(game.legal_moves(state)))
            state = game.apply(state, move)
        outcome = game.outcome(state)
        assert outcome is not None
        won += outcome.winners == {mine}
    return won


def test_it_beats_random_at_connect_four() -> None:
    assert wins_against_random(ConnectFour(), playouts=100, games=40) >= 38


def test_it_beats_random_at_kalah() -> None:
    assert wins_against_random(KalahGame(), playouts=60, games=40) >= 38


@pytest.mark.parametrize("seats", [2, 3])
def test_it_beats_random_in_a_game_with_turns_of_several_moves(seats: int) -> None:
    assert wins_against_random(TakeThreeAgain(seats=seats), playouts=200, games=40) >= 38


def test_it_finds_a_forced_win_where_there_is_one() -> None:
    game = TakeThreeAgain()
    for stones in range(2, 13):
        state = Heap(stones)
        winning = [m for m in game.legal_moves(state) if wins_from(game, game.apply(state, m), 0)]
        if winning:
            assert choose(game, state, random.Random(stones), Budget(playouts=500)) in winning


def wins_from(game: TakeThreeAgain, state: Heap, seat: int) -> bool:
    """Whether ``seat`` wins from ``state`` with best play (exhaustive)."""
    ended = game.outcome(state)
    if ended is not None:
        return ended.winners == {seat}
    results = [wins_from(game, game.apply(state, move), seat) for move in game.legal_moves(state)]
    return any(results) if game.to_move(state) == seat else all(results)


def test_the_same_seed_and_budget_give_the_same_move_and_another_seed_may_not() -> None:
    game = ConnectFour()
    state = game.start(random.Random(0))
    for move in (4, 4, 3):
        state = game.apply(state, move)
    chosen = [choose(game, state, random.Random(7), Budget(playouts=150)) for _ in range(3)]
    assert len(set(chosen)) == 1
    assert chosen[0] in game.legal_moves(state)


def test_no_time_at_all_still_gives_a_legal_move() -> None:
    game = ConnectFour()
    state = game.start(random.Random(0))
    assert choose(game, state, random.Random(1), Budget(seconds=0.0)) in game.legal_moves(state)
    assert choose(game, state, random.Random(1), Budget(playouts=1)) in game.legal_moves(state)


def test_a_set_stop_flag_ends_an_unlimited_search() -> None:
    game = ConnectFour()
    state = game.start(random.Random(0))
    stop = threading.Event()
    stop.set()
    move = choose(game, state, random.Random(1), Budget(seconds=math.inf), stop)
    assert move in game.legal_moves(state)


class CountingStop:
    """A stop flag that sets itself after ``after`` looks: the search must look at it."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > self.after


def test_the_search_looks_at_the_stop_flag_as_it_goes() -> None:
    game = ConnectFour()
    state = game.start(random.Random(0))
    stop = CountingStop(after=3)
    move = choose(game, state, random.Random(1), Budget(seconds=math.inf), stop)
    assert move in game.legal_moves(state)
    assert stop.looks == 4  # one before it starts, then every few playouts until it is set


def test_the_only_move_is_played_without_a_search() -> None:
    game = TakeThreeAgain()
    assert choose(game, Heap(1), random.Random(0), Budget(seconds=0)) == 1


def test_a_finished_game_has_no_move() -> None:
    with pytest.raises(ValueError, match="over"):
        choose(TakeThreeAgain(), Heap(0), random.Random(0), Budget(playouts=5))


def test_rewards_split_draws_and_shared_wins() -> None:
    assert rewards(Outcome([2, 0, 0], [0]), 3) == [1.0, 0.0, 0.0]
    assert rewards(Outcome([1, 1, 0], [0, 1]), 3) == [0.5, 0.5, 0.0]
    assert rewards(Outcome([0, 0], []), 2) == [0.5, 0.5]  # no winner: a draw of all


def test_levels_double_from_fifty_playouts() -> None:
    assert [level_playouts(level) for level in (1, 2, 3, 10)] == [50, 100, 200, 25600]
    assert list(LEVELS) == list(range(1, 11))
    with pytest.raises(ValueError):
        level_playouts(0)


def test_time_is_shared_from_the_clock() -> None:
    assert think_seconds(math.inf) is None
    assert think_seconds(0.1) == pytest.approx(0.04)  # half of a per-move limit, less 10 ms
    assert think_seconds(0.0) == 0.0
    # a game clock: a 30th of what is left plus most of the increment, capped at half
    assert think_seconds(60.0, 60.0, 1.0) == pytest.approx(2.0 + 0.75 - 0.01)
    assert think_seconds(0.2, 0.2, 1.0) == pytest.approx(0.09)


def test_a_level_is_its_budget_and_is_deterministic() -> None:
    game = TakeThreeAgain()
    state = Heap(11)
    first = general_move(game, state, 0, 2, None, None)
    assert first == general_move(game, state, 0, 2, None, None)
    assert first in game.legal_moves(state)


class LongWalk(Game[int, int]):
    """Two seats take turns adding 1 or 2 to a count; at 10,000 whoever moved last wins: a
    random playout from the start is thousands of plies."""

    name = "long-walk"
    players = (2, 2)
    applied = 0

    def start(self, rng: random.Random) -> int:
        return 0

    def to_move(self, state: int) -> int | None:
        return None if state >= 10_000 else state % 2

    def legal_moves(self, state: int) -> list[int]:
        return [1, 2]

    def apply(self, state: int, move: int) -> int:
        LongWalk.applied += 1
        return state + move

    def outcome(self, state: int) -> Outcome | None:
        if state < 10_000:
            return None
        winner = 1 - state % 2
        return Outcome([int(seat == winner) for seat in (0, 1)], [winner])

    def view(self, state: int, seat: int | None = None) -> int:
        return state


def test_a_long_playout_is_cut_and_dropped_when_the_stop_comes() -> None:
    """The stop flag (and the clock) are looked at inside a playout, not only after it: a
    search told to stop during its first playout ends within a few plies, not 10,000 (a
    chess playout at random overran the seat's budget into its hard stop)."""
    LongWalk.applied = 0
    stop = CountingStop(after=1)  # the look before the search, then the first in the playout
    move = choose(LongWalk(), 0, random.Random(1), Budget(seconds=math.inf), stop)
    assert move in (1, 2)
    assert stop.looks == 2
    assert LongWalk.applied <= PLAYOUT_CHECK + 1  # the expansion and the playout's first plies


def test_a_playout_budget_alone_never_cuts_a_playout() -> None:
    LongWalk.applied = 0
    choose(LongWalk(), 0, random.Random(1), Budget(playouts=2))
    assert LongWalk.applied > 10_000
