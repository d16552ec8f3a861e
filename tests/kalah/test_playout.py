"""Kalah's cheap playout for the general player (`rules.random_playout`): random sowings on one
list end the game as the rules do: every seed in a store, the winners those with the most."""

from __future__ import annotations

import random

import pytest

from hub.games.kalah.rules import legal_moves, new_game, outcome, play, random_playout


@pytest.mark.parametrize(("holes", "seeds", "pie"), [(6, 4, False), (6, 4, True), (4, 3, False)])
def test_a_playout_ends_the_game_with_every_seed_in_a_store(
    holes: int, seeds: int, pie: bool
) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        state = new_game(holes, seeds, pie=pie)
        for _ in range(seed % 7):  # a few whole turns in
            if state.over:
                break
            state = play(state, rng.choice(legal_moves(state)))
        ended = random_playout(state, rng)
        assert sum(ended.scores) == 2 * holes * seeds
        best = max(ended.scores)
        assert ended.winners == {s for s in (0, 1) if ended.scores[s] == best}


def test_a_finished_game_is_its_outcome() -> None:
    state = new_game(1, 1)
    state = play(state, legal_moves(state)[0])
    while not state.over:
        state = play(state, legal_moves(state)[0])
    assert random_playout(state, random.Random(0)) == outcome(state)


def test_the_playouts_of_a_position_vary_with_the_seed() -> None:
    state = new_game(6, 4)
    results = {random_playout(state, random.Random(seed)).scores for seed in range(20)}
    assert len(results) > 5
