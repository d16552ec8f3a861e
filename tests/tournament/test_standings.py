"""A tournament's crosstable, its Elo fit and the history of its standings (pure)."""

from __future__ import annotations

import pytest

from hub.tournament.elo import SprtState
from hub.tournament.standings import HISTORY_LIMIT, Crosstable
from hub.tournament.tally import GameOutcome


def test_two_players_a_win_and_a_draw() -> None:
    table = Crosstable(("a", "b"))
    table.add(GameOutcome((0, 1), winners=(0,)), "g1")
    table.add(GameOutcome((1, 0), winners=()), "g2")
    assert (table.cell(0, 1).points, table.cell(0, 1).games) == (1.5, 2)
    assert (table.cell(1, 0).points, table.cell(1, 0).games) == (0.5, 2)
    assert table.cell(0, 1).results == [("g1", 1.0), ("g2", 0.5)]
    assert table.totals == [1.5, 0.5]


def test_a_table_of_three_counts_pairwise() -> None:
    table = Crosstable(("a", "b", "c"))
    table.add(GameOutcome((2, 0, 1), winners=(0,)), "g")  # c won, in seat 0
    assert table.cell(2, 0).points == table.cell(2, 1).points == 1.0
    assert table.cell(0, 1).points == table.cell(1, 0).points == 0.5  # both lost: a draw
    assert table.cell(0, 2).points == 0.0


def test_an_aborted_game_changes_nothing() -> None:
    table = Crosstable(("a", "b"))
    table.add(GameOutcome((0, 1), aborted=True), "g")
    assert table.games == 0 and not table.cells and not table.history


def test_the_elo_fit_orders_the_field_and_stays_finite() -> None:
    table = Crosstable(("strong", "middle", "weak"))
    for n in range(20):
        table.add(GameOutcome((0, 1), winners=(0,) if n % 4 else (1,)), f"a{n}")
        table.add(GameOutcome((1, 2), winners=(0,) if n % 4 else (1,)), f"b{n}")
        table.add(GameOutcome((0, 2), winners=(0,)), f"c{n}")  # a perfect score
    strong, middle, weak = table.ratings()
    assert strong.elo > middle.elo > weak.elo
    assert sum(r.elo for r in (strong, middle, weak)) == pytest.approx(0.0, abs=1e-6)
    assert 100 < strong.elo - middle.elo < 300  # 75% is about +191, the prior pulls it in
    assert all(0 < r.margin < 300 for r in (strong, middle, weak))
    fewer = Crosstable(("strong", "weak"))
    fewer.add(GameOutcome((0, 1), winners=(0,)), "x")
    assert fewer.ratings()[0].margin > strong.margin  # less evidence, a wider margin


def test_equal_players_are_rated_equal() -> None:
    table = Crosstable(("a", "b"))
    for n in range(10):
        table.add(GameOutcome((0, 1), winners=((0,), (1,))[n % 2]), f"g{n}")
    a, b = table.ratings()
    assert a.elo == pytest.approx(0.0, abs=1e-6) and b.elo == pytest.approx(0.0, abs=1e-6)


def test_the_history_is_bounded_and_keeps_the_llr() -> None:
    table = Crosstable(("a", "b"))
    state = SprtState(llr=0.5, lower=-2.94, upper=2.94, verdict=None)
    for n in range(3 * HISTORY_LIMIT):
        table.add(GameOutcome((0, 1), winners=(0,)), f"g{n}", state)
    assert len(table.history) < HISTORY_LIMIT and table.step > 1
    games = [point.games for point in table.history]
    assert games == sorted(games) and games[-1] <= 3 * HISTORY_LIMIT
    assert table.history[-1].points[0] == games[-1]  # a's points after that many wins
    assert table.history[-1].llr == 0.5
