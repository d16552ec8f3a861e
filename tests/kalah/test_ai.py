"""The AI against an exhaustive solver, a plain minimax, fake clocks and the referee."""

from __future__ import annotations

import itertools
import random

import pytest

from hub.games.kalah.ai import (
    CHECK_EVERY,
    LEVEL_DEPTH,
    KalahSearch,
    budget_seconds,
    check_level,
    choose,
    greedy,
)
from hub.games.kalah.rules import PIE, KalahState, legal_moves, new_game, play, random_layout
from hub.games.kalah.solver import Solver


def play_random(state: KalahState, rng: random.Random, turns: int) -> KalahState:
    for _ in range(turns):
        if state.over:
            break
        state = play(state, rng.choice(legal_moves(state)))
    return state


def minimax(state: KalahState, depth: int) -> int:
    """Plain depth-limited negamax over the referee's moves with the AI's evaluation."""
    mover = state.mover
    if mover is None or depth == 0:
        seat = mover if mover is not None else 0
        value = state.store(seat) - state.store(1 - seat)
        return value
    values = []
    for move in legal_moves(state):
        after = play(state, move)
        if after.mover is None:
            values.append(after.store(mover) - after.store(1 - mover))
        else:
            values.append(-minimax(after, depth - 1))
    return max(values)


@pytest.mark.parametrize(
    ("holes", "seeds", "pie"),
    [(3, 2, False), (3, 2, True), (4, 1, False), (4, 1, True), (3, 3, False), (3, 3, True)],
)
def test_solves_small_games_from_the_start(holes: int, seeds: int, pie: bool) -> None:
    state = new_game(holes, seeds, pie=pie)
    solver = Solver()
    result = KalahSearch(holes, state.total).run(state)
    assert result.solved
    assert result.value == solver.mover_value(state)
    assert solver.move_values(state)[result.move] == result.value
    if pie:
        assert result.value <= 0  # the first player can never gain under the pie rule


def test_plays_perfectly_in_random_small_positions() -> None:
    """Positions from random games on boards up to 6x3, once few seeds are left in play."""
    rng = random.Random(2024)
    solver = Solver()
    checked = 0
    configs = itertools.cycle([(4, 2, True), (5, 2, False), (6, 3, True), (4, 3, False)])
    while checked < 60:
        holes, seeds, pie = next(configs)
        layout = random_layout(holes, seeds, rng) if rng.random() < 0.5 else None
        state = new_game(holes, seeds, pie=pie, layout=layout)
        while not state.over and sum(state.side(0)) + sum(state.side(1)) > 9:
            state = play(state, rng.choice(legal_moves(state)))
        if state.over:
            continue
        search = KalahSearch(holes, state.total)
        result = search.run(state)
        values = solver.move_values(state)
        assert values[result.move] == max(values.values()), state
        if len(search.root_moves(state)) > 1:  # a forced turn is played without a search
            assert result.solved
            assert result.value == max(values.values()), state
        checked += 1


def test_pie_decision_is_searched() -> None:
    rng = random.Random(5)
    solver = Solver()
    choices: set[bool] = set()
    for _ in range(20):
        state = new_game(3, rng.randint(1, 3), pie=True)
        state = play(state, rng.choice(legal_moves(state)))
        if state.over:
            continue
        assert state.pie_available
        result = KalahSearch(3, state.total).run(state)
        values = solver.move_values(state)
        assert values[result.move] == max(values.values())
        assert result.value == max(values.values())
        choices.add(result.move == PIE)
    assert choices == {True, False}  # both decisions occurred


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_equals_minimax_at_fixed_depth(depth: int) -> None:
    rng = random.Random(depth)
    for _ in range(12):
        holes = rng.randint(3, 6)
        state = play_random(new_game(holes, rng.randint(2, 4)), rng, rng.randint(0, 6))
        if state.over:
            continue
        search = KalahSearch(holes, state.total, use_table=False)
        if len(search.root_moves(state)) == 1:
            continue  # a forced turn is played without a search
        result = search.run(state, max_depth=depth)
        assert result.value == minimax(state, depth)


def test_table_does_not_change_solved_values() -> None:
    rng = random.Random(11)
    for _ in range(10):
        state = play_random(new_game(4, 2), rng, rng.randint(1, 5))
        if state.over or len(KalahSearch(4, state.total).root_moves(state)) == 1:
            continue
        with_table = KalahSearch(4, state.total).run(state)
        without = KalahSearch(4, state.total, use_table=False).run(state)
        assert with_table.solved and without.solved
        assert with_table.value == without.value


class StepClock:
    """A fake clock that advances a fixed step at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("budget", [0.0, 0.001, 0.05, 0.5])
def test_search_stops_inside_its_budget(budget: float) -> None:
    state = play_random(new_game(6, 6), random.Random(3), 2)
    clock = StepClock(0.0005)
    result = KalahSearch(6, state.total, clock=clock).run(state, budget=budget)
    assert result.move in legal_moves(state)
    # One clock step may pass between the deadline and the check that notices it.
    assert result.elapsed <= budget + 2 * clock.step
    if budget >= 0.05:
        assert result.depth >= 1


def test_node_limit_and_stop_flag() -> None:
    state = new_game(6, 6)
    search = KalahSearch(6, state.total)
    result = search.run(state, max_nodes=2000)
    assert result.nodes <= 2000 + CHECK_EVERY + 100 and result.move in legal_moves(state)
    readings = itertools.count()

    def clock() -> float:  # another thread sets `stop` after a few clock readings
        if next(readings) == 5:
            search.stop = True
        return 0.0

    search = KalahSearch(6, state.total, clock=clock)
    result = search.run(state)
    assert search.stop and result.move in legal_moves(state)
    assert result.nodes <= 6 * (CHECK_EVERY + 100)  # plus one frontier node's children


def test_levels_cap_the_depth_and_greedy_is_legal() -> None:
    state = new_game(6, 4)
    for level in (1, 2, 3):
        result = choose(state, level=level, budget=10)
        assert result.depth <= LEVEL_DEPTH[level]
        assert result.move in legal_moves(state)
    assert greedy(state) in legal_moves(state)
    with pytest.raises(ValueError):
        check_level(0)
    assert budget_seconds(0) > 0
    assert budget_seconds(100) < 0.1
    assert budget_seconds(5) == 0.0


def test_ai_moves_are_always_legal_across_settings() -> None:
    rng = random.Random(99)
    for _ in range(6):
        holes, seeds = rng.randint(1, 9), rng.randint(1, 10)
        pie = rng.random() < 0.5
        layout = random_layout(holes, seeds, rng) if rng.random() < 0.5 else None
        state = new_game(holes, seeds, pie=pie, layout=layout)
        search = KalahSearch(holes, state.total)
        while not state.over:
            if state.mover == 0:
                move = search.run(state, max_nodes=300).move
                assert move in legal_moves(state)
            else:
                move = rng.choice(legal_moves(state))
            state = play(state, move)


def test_the_top_levels_differ_by_the_nodes_they_may_visit() -> None:
    """Levels 6-8 are node budgets four times apart (a short clock truncates depth caps
    alike); level 9 has none but its clock. Without a clock each level's search stays within
    its own (deterministic: nodes, not time)."""
    from hub.core.play.threads import StopFlag
    from hub.games.kalah.ai import LEVEL_NODES
    from hub.games.kalah.players import KalahAi

    budgets = [LEVEL_NODES[level] for level in (6, 7, 8)]
    assert budgets == sorted(budgets) and LEVEL_NODES.get(9) is None
    assert all(
        b is not None and a is not None and b == 4 * a for a, b in itertools.pairwise(budgets)
    )
    state = play_random(new_game(6, 4), random.Random(3), 4)
    searched = {}
    for level in (6, 7):
        ai = KalahAi(level, budget=1000.0)  # (a budget no search here comes near)
        ai.search(state, 1000.0, StopFlag())
        assert ai.last is not None
        searched[level] = ai.last.nodes
        budget = LEVEL_NODES[level]
        assert budget is not None and ai.last.nodes <= budget + CHECK_EVERY
    assert searched[7] > searched[6]
