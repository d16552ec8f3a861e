"""The W/D/L rules and the maximum-likelihood Elo fit of `hub games stats`."""

from __future__ import annotations

import math
import random

import pytest

from hub.records.rating import (
    PlayerStats,
    fit_ratings,
    pair_results,
    player_stats,
    seat_scores,
)


def test_seat_scores() -> None:
    assert seat_scores(2, [0]) == [1.0, 0.0]
    assert seat_scores(2, [0, 1]) == [0.5, 0.5]  # a drawn chess game
    assert seat_scores(2, []) == [0.5, 0.5]  # nobody won
    assert seat_scores(3, [2]) == [0.0, 0.0, 1.0]
    assert seat_scores(4, [0, 3]) == [1.0, 0.0, 0.0, 1.0]


def test_pairs_of_a_multi_player_game() -> None:
    pairs = pair_results([(["c", "a", "b"], [1]), (["a", "b"], [0, 1]), (["a", "a"], [0])])
    assert pairs == {("a", "c"): (1, 1.0), ("a", "b"): (2, 1.5), ("b", "c"): (1, 0.5)}


def test_two_players_without_prior_is_the_classic_formula() -> None:
    # 3 wins, 1 loss: the score 0.75 is worth 400 log10(3) = 190.85 Elo.
    ratings = fit_ratings({("a", "b"): (4, 3.0)}, prior=0)
    assert ratings["a"] - ratings["b"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings["a"] + ratings["b"] == pytest.approx(0, abs=1e-9)
    # 50 % is 0; 60 % is -400 log10(1/0.6 - 1) = 70.44
    assert fit_ratings({("a", "b"): (10, 5.0)}, prior=0)["a"] == pytest.approx(0, abs=1e-9)
    sixty = fit_ratings({("a", "b"): (10, 6.0)}, prior=0)
    assert sixty["a"] - sixty["b"] == pytest.approx(70.437, abs=1e-3)


def expected(diff: float) -> float:
    return 1 / (1 + 10 ** (-diff / 400))


def test_the_fit_is_the_maximum_likelihood_with_the_prior() -> None:
    """At the maximum every player's expected score equals its actual score, the virtual
    draw against the anchor (rated 0) included: the equations the fit solves. An undefeated
    player stays finite."""
    rng = random.Random(7)
    strength = {"a": 300, "b": 100, "c": 0, "d": -250, "e": 50}
    games: list[tuple[list[str], list[int]]] = []
    for _ in range(120):
        x, y = rng.sample(sorted(strength), 2)
        p, roll = expected(strength[x] - strength[y]), rng.random()
        games.append(([x, y], [0] if roll < 0.9 * p else [1] if roll > 0.9 * p + 0.1 else [0, 1]))
    games.append((["z", "a"], [0]))  # z won its only game
    pairs = pair_results(games)
    ratings = fit_ratings(pairs, prior=1.0, centre=False)
    for name, rating in ratings.items():
        actual, predicted = 0.5, expected(rating)  # one virtual draw against the anchor
        for (a, b), (count, score) in pairs.items():
            if name in (a, b):
                other = b if name == a else a
                actual += score if name == a else count - score
                predicted += count * expected(rating - ratings[other])
        assert predicted == pytest.approx(actual, abs=1e-5), name
    assert ratings["a"] > ratings["b"] > ratings["c"] > ratings["d"]
    assert math.isfinite(ratings["z"])
    centred = fit_ratings(pairs, prior=1.0)
    assert sum(centred.values()) == pytest.approx(0, abs=1e-6)
    assert centred["a"] - centred["d"] == pytest.approx(ratings["a"] - ratings["d"])


def test_order_does_not_matter() -> None:
    games = [(["a", "b"], [0]), (["b", "c"], [1]), (["a", "c"], [0, 1]), (["c", "a"], [0])]
    forward = fit_ratings(pair_results(games))
    backward = fit_ratings(pair_results(games[::-1]))
    for name in forward:
        assert forward[name] == pytest.approx(backward[name], abs=1e-6)


def test_player_stats() -> None:
    games = [
        (["ann", "bob"], [0]),
        (["bob", "ann"], [0, 1]),
        (["ann", "bob", "cy"], [2]),
        (["bob", "cy"], [0]),
    ]
    stats = {player.name: player for player in player_stats(games)}
    assert stats["ann"] == PlayerStats("ann", 3, 1, 1, 1, stats["ann"].rating)
    assert stats["bob"] == PlayerStats("bob", 4, 1, 1, 2, stats["bob"].rating)
    assert stats["cy"] == PlayerStats("cy", 2, 1, 0, 1, stats["cy"].rating)
    assert stats["ann"].score == 0.5
    assert [player.name for player in player_stats(games)] == sorted(
        stats, key=lambda name: -stats[name].rating
    )
    assert player_stats([]) == []
    assert PlayerStats("x", 0, 0, 0, 0).score == 0.0
