"""The Kalah AI's C search against its pure-Python twin, the top level on Kalah(6,4) against
every lower level and, move by move, against the exhaustive solver (issue 28, item 4).

Deterministic: every search is bounded by nodes, never by time."""

from __future__ import annotations

import random

import pytest

from hub.games.kalah.ai import LEVEL_DEPTH, MAX_LEVEL, NATIVE, Search
from hub.games.kalah.rules import KalahState, legal_moves, new_game, play
from hub.games.kalah.solver import Solver

needs_native = pytest.mark.skipif(
    not NATIVE, reason="the C search is not built (pip install -e . builds it)"
)

TOP_NODES = 300_000
"""The top level's nodes per turn in these games (a few tens of ms of the C search)."""
SOLVED_MARGIN = 8
"""Kalah(6,4), pie rule off: the first player wins by 8 under perfect play (hub's rule: a
capture needs seeds opposite; kalah.md)."""


def in_play(state: KalahState) -> int:
    return sum(state.side(0)) + sum(state.side(1))


def play_levels(top: int, low: int, nodes: int = TOP_NODES) -> list[KalahState]:
    """Kalah(6,4) without the pie: level ``top`` first, level ``low`` second, each within
    ``nodes`` per turn, its table kept across its turns; every state of the game."""
    state = new_game(6, 4)
    searches = (Search(6, state.total), Search(6, state.total))
    depths = (LEVEL_DEPTH[top], LEVEL_DEPTH[low])
    states = [state]
    while not state.over:
        mover = state.mover
        assert mover is not None
        result = searches[mover].run(state, max_depth=depths[mover], max_nodes=nodes)
        state = play(state, result.move)
        states.append(state)
    return states


@needs_native
@pytest.mark.parametrize(
    ("holes", "seeds", "pie", "seed"),
    [(6, 4, False, 1), (6, 4, True, 2), (6, 6, False, 3), (4, 3, True, 4), (9, 10, False, 5)],
)
def test_c_and_python_searches_agree_move_for_move(
    holes: int, seeds: int, pie: bool, seed: int
) -> None:
    """Whole games, each turn searched by both (tables kept across turns, as the AI does):
    the same move, value, depth, node count and proof; the game goes on with that move."""
    rng = random.Random(seed)
    state = new_game(holes, seeds, pie=pie)
    native = Search(holes, state.total, native=True, table_size=1 << 12)
    python = Search(holes, state.total, native=False, table_size=1 << 12)
    assert native.native and not python.native
    turns = 0
    while not state.over and turns < 40:
        limit = rng.choice([300, 2000, 8000])
        a = native.run(state, max_nodes=limit)
        b = python.run(state, max_nodes=limit)
        assert (a.move, a.value, a.depth, a.nodes, a.solved) == (
            b.move,
            b.value,
            b.depth,
            b.nodes,
            b.solved,
        ), (state, limit)
        state = play(state, a.move if rng.random() < 0.7 else rng.choice(legal_moves(state)))
        turns += 1


@needs_native
@pytest.mark.parametrize("low", range(1, MAX_LEVEL + 1))
def test_top_level_first_wins_against_every_level(low: int) -> None:
    """The top level as the first player wins by at least the solved margin, against every
    level (itself included), each with the same nodes per turn."""
    final = play_levels(MAX_LEVEL, low)[-1]
    assert final.store(0) - final.store(1) >= SOLVED_MARGIN


def test_top_level_agrees_with_the_solver_move_by_move() -> None:
    """Kalah(6,4) positions with at most 10 seeds left in the holes (the solver's second),
    from games of the top level and of random play: every turn of the top level is one the
    solver rates best, and its value is the solver's."""
    rng = random.Random(64)
    solver = Solver()
    checked = 0
    while checked < 40:
        state = new_game(6, 4)
        while not state.over and in_play(state) > 10:
            search = Search(6, state.total)
            if rng.random() < 0.5:
                move = search.run(state, max_nodes=2000).move
            else:
                move = rng.choice(legal_moves(state))
            state = play(state, move)
        while not state.over:
            search = Search(6, state.total)
            result = search.run(state, max_depth=LEVEL_DEPTH[MAX_LEVEL])
            values = solver.move_values(state)
            assert values[result.move] == max(values.values()), state
            if len(search.root_moves(state)) > 1:  # a forced turn is played without a search
                assert result.solved and result.value == max(values.values()), state
            checked += 1
            state = play(state, rng.choice(legal_moves(state)))
