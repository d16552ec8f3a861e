"""The bookkeeping of a match (`hub.tournament.tally`): W/D/L, points, pairs, ranks."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.tournament.elo import Pentanomial, pair_kind
from hub.tournament.tally import GameOutcome, Tally


def test_pair_kinds_and_the_tally_of_pairs() -> None:
    assert [pair_kind(a, b) for a, b in [(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (0.5, 1), (1, 1)]
            ] == ["LL", "LD", "WL", "DD", "WD", "WW"]  # fmt: skip
    assert pair_kind(0, 1) == "WL" and pair_kind(0.5, 0) == "LD"
    tally = Tally(("a", "b"))
    tally.add(GameOutcome((0, 1), winners=(0,), round=0))  # a wins as seat 0
    assert (tally.pentanomial.pairs, tally.unpaired) == (0, 1)
    tally.add(GameOutcome((1, 0), winners=(0, 1), round=0))  # a draw, seats swapped
    tally.add(GameOutcome((0, 1), winners=(1,), round=1))  # b wins
    tally.add(GameOutcome((1, 0), aborted=True, round=1))  # its pair is never complete
    tally.add(GameOutcome((0, 1), winners=(1,), round=2))
    tally.add(GameOutcome((1, 0), winners=(1,), round=2))  # a wins as seat 1: a split pair
    assert tally.pentanomial == Pentanomial(wd=1, wl=1)
    assert tally.unpaired == 1
    elo = tally.head_to_head()
    assert elo is not None and elo.model == "pentanomial" and elo.pairs == 2
    assert (elo.wins, elo.draws, elo.losses) == (2, 1, 2)
    assert Tally(("a", "b", "c")).pentanomial.pairs == 0


def test_two_player_tally() -> None:
    tally = Tally(("a", "b"))
    tally.add(GameOutcome((0, 1), winners=(0,)))  # a wins as seat 0
    tally.add(GameOutcome((1, 0), winners=(0,)))  # b wins as seat 0
    tally.add(GameOutcome((1, 0), winners=(1,)))  # a wins as seat 1
    tally.add(GameOutcome((0, 1), winners=(0, 1)))  # a shared win: a draw
    tally.add(GameOutcome((0, 1), winners=()))  # nobody won: a draw
    tally.add(GameOutcome((0, 1), aborted=True))
    a, b = tally.players
    assert (a.wins, a.draws, a.losses, a.points) == (2, 2, 1, 3.0)
    assert (b.wins, b.draws, b.losses, b.points) == (1, 2, 2, 2.0)
    assert (tally.games, tally.aborted) == (5, 1)
    elo = tally.head_to_head()
    assert elo is not None
    assert (elo.wins, elo.draws, elo.losses) == (2, 2, 1)
    assert [(s.rank, s.name) for s in tally.standings()] == [(1, "a"), (2, "b")]


def test_multi_player_points_and_ranks() -> None:
    tally = Tally(("a", "b", "c"))
    tally.add(GameOutcome((0, 1, 2), winners=(2,), scores=(10, 12, 3)))  # c wins
    tally.add(GameOutcome((1, 2, 0), winners=(0, 1), scores=(4, 4, 20)))  # b and c share
    tally.add(GameOutcome((2, 0, 1), winners=(2,), scores=(7, 8, 1)))  # b wins
    standings = {s.name: s for s in tally.standings()}
    assert {name: s.points for name, s in standings.items()} == {"a": 0.0, "b": 1.5, "c": 1.5}
    assert {name: s.rank for name, s in standings.items()} == {"a": 3, "b": 1, "c": 1}
    assert {name: (s.wins, s.draws, s.losses) for name, s in standings.items()} == {
        "a": (0, 0, 3),
        "b": (1, 1, 1),
        "c": (1, 1, 1),
    }
    assert {name: s.game_score for name, s in standings.items()} == {"a": 38, "b": 17, "c": 14}
    assert tally.head_to_head() is None
    b = standings["b"].score
    assert b is not None
    # points 0, 0.5, 1: mean 0.5, population variance 1/6, over 3 games
    assert (b.mean, b.stdev) == (0.5, pytest.approx(math.sqrt(1 / 6 / 3)))


@given(st.lists(st.sampled_from([(0,), (1,), (0, 1), ()]), max_size=40))
def test_two_player_intervals_are_the_trinomial_ones(results: list[tuple[int, ...]]) -> None:
    tally = Tally(("a", "b"))
    for winners in results:
        tally.add(GameOutcome((0, 1), winners=winners))
    a = tally.players[0]
    elo = tally.head_to_head()
    line = next(s for s in tally.standings() if s.name == "a")
    if not results:
        assert elo is None and line.score is None
        return
    assert elo is not None and line.score is not None
    assert line.score.mean == pytest.approx(elo.score.mean)
    assert line.score.stdev == pytest.approx(elo.score.stdev, abs=1e-12)
    assert a.wins + a.draws + a.losses == len(results)
