"""The match arithmetic against published values of cutechess-cli and fastchess, and against
independent computations.

Sources:
* fastchess's own unit tests (github.com/Disservin/fastchess, app/tests/elo_test.cpp and
  app/tests/sprt_test.cpp): ``Stats(wins, losses, draws)`` 136/96/111 has Elo 40.70 ± 30.43
  (LOS 99.60 %); the logistic trinomial LLR of 21404/21184/40708 for [0.5, 2.5] is -1.57 and
  of 57433/57030/106593 for [0, 2] is -2.59. Pentanomial, ``Stats(LL, LD, WL, DD, WD, WW)``:
  34/54/31/32/64/75 is 55.58 ± 27.65, LOS "100.00 %", score 0.579; 332/433/457/41/333/334
  is -8.64 ± 10.33, LOS "5.05 %", score 0.488; 7895/8757/5485/200/568/9999 is -21.04 ±
  2.95, LOS "0.00 %", score 0.470; the logistic pentanomial LLR of 223/9863/20279/1000/
  10037/246 for [0.5, 2.5] is -3.07 and of 871/26175/55003/980/26678/821 for [0, 2] is
  -4.98 (doctest's ``Approx(...).epsilon(0.01)``; we compare the printed digits).
* cutechess-cli output published in github.com/PS-Wizard/OopsMate
  (archive/data/results/v16_lazysmp.md): "Score of OopsMate vs Sayuri 2018.05.23: 99 - 97 -
  104 [0.503] 300 ... Elo difference: 2.3 +/- 31.8, LOS: 55.7 %, DrawRatio: 34.7 %" and
  "Score of OopsMate vs SF-2100: 45 - 37 - 18 [0.540] 100 ... Elo difference: 27.9 +/- 62.4,
  LOS: 81.2 %". cutechess computes its 95% quantile with an approximation of erf^-1
  (projects/lib/src/elo.cpp, ``Elo::erfInv``), 1.9552 instead of 1.95996, so its margins are
  0.25% smaller; `cutechess_margin` below redoes that to compare to its printed digits.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.tournament.stats import (
    Z95,
    GameOutcome,
    Pentanomial,
    Sprt,
    Tally,
    elo_of_score,
    estimate,
    pair_estimate,
    pair_kind,
    pair_llr,
    parse_sprt,
    score_of_elo,
    sprt_llr,
    wilson,
)


def cutechess_quantile() -> float:
    """cutechess's ``phiInv(0.975)``: sqrt(2) erfInv(0.95) with Winitzki's approximation."""
    a = 8.0 * (math.pi - 3.0) / (3.0 * math.pi * (4.0 - math.pi))
    x = 2 * 0.975 - 1
    y = math.log(1.0 - x * x)
    z = 2.0 / (math.pi * a) + y / 2.0
    return math.sqrt(2.0) * math.sqrt(math.sqrt(z * z - y / a) - z)


def cutechess_margin(wins: int, losses: int, draws: int) -> float:
    got = estimate(wins, draws, losses)
    assert got is not None
    mu, sd, q = got.score.mean, got.score.stdev, cutechess_quantile()
    return (elo_of_score(mu + q * sd) - elo_of_score(mu - q * sd)) / 2


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo", "margin", "los"),
    [(99, 97, 104, 2.3, 31.8, 55.7), (45, 37, 18, 27.9, 62.4, 81.2)],
)
def test_cutechess_published_results(
    wins: int, losses: int, draws: int, elo: float, margin: float, los: float
) -> None:
    got = estimate(wins, draws, losses)
    assert got is not None
    assert round(got.elo, 1) == elo
    assert round(100 * got.los, 1) == los
    assert round(cutechess_margin(wins, losses, draws), 1) == margin
    # ours uses the exact quantile: the same margin scaled by 1.95996 / 1.9552
    assert got.margin == pytest.approx(margin * Z95 / cutechess_quantile(), abs=0.06)


def test_fastchess_published_result() -> None:
    got = estimate(136, 111, 96)
    assert got is not None
    assert (round(got.elo, 2), round(got.margin, 2)) == (40.70, 30.43)
    assert got.score.mean == pytest.approx((136 + 111 / 2) / 343)


def test_score_interval_by_hand() -> None:
    # 3 wins, 1 draw, 0 losses: mu = 0.875; var = 0.75*0.125^2 + 0.25*0.375^2 = 0.046875
    got = estimate(3, 1, 0)
    assert got is not None
    assert got.score.mean == 0.875
    assert got.score.stdev == pytest.approx(math.sqrt(0.046875 / 4))
    assert got.score.high == 1.0  # clipped
    assert got.score.low == pytest.approx(0.875 - Z95 * math.sqrt(0.046875 / 4))


def test_a_perfect_score_is_bounded_by_the_wilson_interval() -> None:
    got = estimate(5, 0, 0)
    assert got is not None
    assert got.elo == math.inf and got.high == math.inf
    assert got.bound == "no loss yet"
    # Wilson's lower bound of a mean of 1 in n values: n / (n + z^2)
    assert got.low == pytest.approx(elo_of_score(5 / (5 + Z95**2)))
    lost = estimate(0, 0, 5)
    assert lost is not None and lost.bound == "no win yet"
    assert (lost.low, lost.high) == (-math.inf, pytest.approx(-got.low))
    drawn = estimate(0, 5, 0)
    assert drawn is not None and drawn.bound == "no win or loss yet"
    assert math.isfinite(drawn.low) and drawn.high == pytest.approx(-drawn.low)
    assert drawn.high > 0
    assert estimate(0, 0, 0) is None
    assert estimate(3, 2, 4) is not None and estimate(3, 2, 4).bound is None  # type: ignore[union-attr]


@given(st.integers(1, 500), st.integers(0, 500))
def test_the_wilson_interval_by_its_definition(samples: int, successes: int) -> None:
    """Its bounds are the p where |mean - p| = z sqrt(p (1 - p) / n)."""
    mean = min(successes, samples) / samples
    low, high = wilson(samples, mean)
    assert 0.0 <= low <= mean <= high <= 1.0
    for p in (low, high):
        if 0.0 < p < 1.0:
            assert abs(mean - p) == pytest.approx(Z95 * math.sqrt(p * (1 - p) / samples))


@pytest.mark.parametrize(
    ("counts", "elo", "margin", "los", "score"),
    [
        ((34, 54, 31, 32, 64, 75), 55.58, 27.65, "100.00", 0.579),
        ((332, 433, 457, 41, 333, 334), -8.64, 10.33, "5.05", 0.488),
        ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, "0.00", 0.470),
    ],
)
def test_fastchess_published_pentanomial_results(
    counts: tuple[int, ...], elo: float, margin: float, los: str, score: float
) -> None:
    got = pair_estimate(Pentanomial(*counts))
    assert got is not None and got.model == "pentanomial" and got.bound is None
    assert (round(got.elo, 2), round(got.margin, 2)) == (elo, margin)
    assert f"{100 * got.los:.2f}" == los
    assert round(got.score.mean, 3) == score
    assert got.pairs == sum(counts)


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "llr"),
    [
        ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
        ((871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, -4.98),
    ],
)
def test_fastchess_published_pentanomial_llr(
    counts: tuple[int, ...], elo0: float, elo1: float, llr: float
) -> None:
    assert round(pair_llr(Pentanomial(*counts), elo0, elo1), 2) == llr
    state = Sprt(elo0, elo1).pair_state(Pentanomial(*counts))
    assert (round(state.llr, 2), state.verdict, state.model) == (llr, "H0", "pentanomial")


def test_pentanomial_llr_matches_the_normal_approximation() -> None:
    """LLR ~ N (s1 - s0) (2 mu - s0 - s1) / (2 var), with N pairs and the pair variance."""
    pairs = Pentanomial(34, 54, 31, 32, 64, 75)
    score = pairs.score()
    assert score is not None
    n, mu = pairs.pairs, score.mean
    var = score.stdev**2 * n
    s0, s1 = score_of_elo(0), score_of_elo(5)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert pair_llr(pairs, 0, 5) == pytest.approx(approx, rel=0.05)


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


@given(st.floats(min_value=-1500, max_value=1500))
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo, abs=1e-6)


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo0", "elo1", "llr"),
    [(21404, 21184, 40708, 0.5, 2.5, -1.57), (57433, 57030, 106593, 0.0, 2.0, -2.59)],
)
def test_fastchess_published_llr(
    wins: int, losses: int, draws: int, elo0: float, elo1: float, llr: float
) -> None:
    assert round(sprt_llr(wins, draws, losses, elo0, elo1), 2) == llr


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "elo0", "elo1"),
    [(120, 200, 100, 0, 5), (400, 350, 380, -3, 3), (21404, 40708, 21184, 0.5, 2.5)],
)
def test_llr_matches_the_normal_approximation(
    wins: int, draws: int, losses: int, elo0: float, elo1: float
) -> None:
    """Van den Bergh's approximation of the GSPRT, computed independently:
    LLR ~ N (s1 - s0) (2 mu - s0 - s1) / (2 var)."""
    n = wins + draws + losses
    mu = (wins + draws / 2) / n
    var = (wins * (1 - mu) ** 2 + draws * (0.5 - mu) ** 2 + losses * mu**2) / n
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert sprt_llr(wins, draws, losses, elo0, elo1) == pytest.approx(approx, rel=0.02, abs=0.01)


def test_sprt_bounds_and_verdicts() -> None:
    sprt = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert sprt.state(0, 0, 0).verdict is None
    assert sprt.state(600, 300, 100).verdict == "H1"
    assert sprt.state(100, 300, 600).verdict == "H0"
    assert sprt.state(10, 30, 10).verdict is None
    # zero counts are regularised rather than dividing by zero
    assert math.isfinite(sprt.state(3, 0, 0).llr)


def test_parse_sprt() -> None:
    assert parse_sprt("elo0=0,elo1=5,alpha=0.05,beta=0.05") == Sprt(0, 5, 0.05, 0.05)
    assert parse_sprt("elo1=10") == Sprt(elo1=10)
    assert parse_sprt("elo0=-1.5, elo1=2.5") == Sprt(-1.5, 2.5)
    bad_specs = ["elo0=5,elo1=0", "alpha=0", "beta=1.5", "gamma=1", "elo0", "elo1=x",
                 "elo1=1,elo1=2", "alpha=0.6,beta=0.5"]  # fmt: skip
    for bad in bad_specs:
        with pytest.raises(ValueError):
            parse_sprt(bad)


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
