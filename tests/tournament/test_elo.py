"""The match arithmetic against published values of cutechess-cli and fastchess, and against
independent computations.

Sources:
* fastchess's own unit tests (github.com/Disservin/fastchess, app/tests/elo_test.cpp and
  app/tests/sprt_test.cpp), listed in `FASTCHESS_LLR` and `FASTCHESS_NELO` below:
  ``Stats(wins, losses, draws)`` 136/96/111 has Elo 40.70 ± 30.43 (LOS 99.60 %).
  Pentanomial, ``Stats(LL, LD, WL, DD, WD, WW)``: 34/54/31/32/64/75 is 55.58 ± 27.65, LOS
  "100.00 %", score 0.579; 332/433/457/41/333/334 is -8.64 ± 10.33, LOS "5.05 %", score
  0.488; 7895/8757/5485/200/568/9999 is -21.04 ± 2.95, LOS "0.00 %", score 0.470. Their
  LLRs and nElo are checked with doctest's ``Approx(...).epsilon(0.01)`` (1% relative);
  we compare the printed digits where ours agree to them, and 1% where fastchess stops its
  normalized fixed point early (10 steps of 1e-4) and we do not.
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
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.tournament.elo import (
    Z95,
    Pentanomial,
    Sprt,
    elo_of_score,
    estimate,
    pair_estimate,
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


FASTCHESS_LLR = [
    # (model, pairs?, fastchess's Stats(...) arguments, elo0, elo1, LLR): sprt_test.cpp
    ("normalized", False, (36433, 36027, 68692), 0, 2, 0.92),
    ("normalized", False, (10871, 10650, 20431), -1.75, 0.25, 2.30),
    ("normalized", False, (4250, 0, 0), 0, 10, 120.56),
    ("logistic", False, (21404, 21184, 40708), 0.5, 2.5, -1.57),
    ("logistic", False, (57433, 57030, 106593), 0, 2, -2.59),
    ("bayesian", False, (68965, 68526, 128429), 0, 2, -1.26),
    ("bayesian", False, (21629, 21484, 41111), 0.5, 2.5, -1.13),
    ("normalized", True, (365, 16618, 36029, 200, 16974, 390), 0, 2, 2.25),
    ("normalized", True, (127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01),
    ("normalized", True, (0, 0, 0, 0, 0, 5550), 0, 5, 111.82),
    ("logistic", True, (223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
    ("logistic", True, (871, 26175, 55003, 980, 26678, 821), 0, 2, -4.98),
]


@pytest.mark.parametrize(("model", "paired", "stats", "elo0", "elo1", "llr"), FASTCHESS_LLR)
def test_fastchess_published_llr_of_every_model(
    model: str, paired: bool, stats: tuple[int, ...], elo0: float, elo1: float, llr: float
) -> None:
    sprt = Sprt(elo0, elo1, model=model)
    if paired:
        got = pair_llr(Pentanomial(*stats), elo0, elo1, model)
        state = sprt.pair_state(Pentanomial(*stats))
    else:
        wins, losses, draws = stats
        got = sprt_llr(wins, draws, losses, elo0, elo1, model)
        state = sprt.state(wins, draws, losses)
    assert got == pytest.approx(llr, rel=0.01)
    if abs(llr) < 10:  # the printed digits (the large ones differ in the 4th: see above)
        assert round(got, 2) == llr
    assert state.llr == got
    assert state.model == ("pentanomial" if paired else "trinomial")
    assert state.verdict == ("H1" if llr >= 2.944 else "H0" if llr <= -2.944 else None)


def test_the_models_decide_differently_on_the_same_pairs() -> None:
    """The issue's case: fastchess's logistic pentanomial data for [0.5, 2.5] is rejected
    on the logistic scale and goes on on the normalized one, the default."""
    pairs = Pentanomial(223, 9863, 20279, 1000, 10037, 246)
    assert Sprt(0.5, 2.5).model == "normalized"
    assert Sprt(0.5, 2.5).pair_state(pairs).verdict is None
    assert round(Sprt(0.5, 2.5).pair_state(pairs).llr, 2) == 0.41
    assert Sprt(0.5, 2.5, model="logistic").pair_state(pairs).verdict == "H0"
    with pytest.raises(ValueError, match="no test of game pairs"):
        pair_llr(pairs, 0, 2, "bayesian")
    assert not Sprt(model="bayesian").pairs
    # bayesian: no LLR before a win and a loss
    assert sprt_llr(5, 3, 0, 0, 5, "bayesian") == 0.0


FASTCHESS_NELO = [
    # (pairs?, Stats(...) arguments, nElo, margin, Elo, margin or None): elo_test.cpp
    (False, (76, 89, 123), -20.76, 40.13, None, None),
    (False, (136, 96, 111), 49.77, 36.77, 40.70, 30.43),
    (False, (34, 356, 0), -508.44, 34.48, None, None),
    (True, (34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65),
    (True, (332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33),
    (True, (7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95),
]


@pytest.mark.parametrize(("paired", "stats", "nelo", "nmargin", "elo", "margin"), FASTCHESS_NELO)
def test_fastchess_published_nelo(
    paired: bool,
    stats: tuple[int, ...],
    nelo: float,
    nmargin: float,
    elo: float | None,
    margin: float | None,
) -> None:
    if paired:
        got = pair_estimate(Pentanomial(*stats))
    else:
        wins, losses, draws = stats
        got = estimate(wins, draws, losses)
    assert got is not None and got.nelo is not None and got.nelo_margin is not None
    assert (round(got.nelo, 2), round(got.nelo_margin, 2)) == (nelo, nmargin)
    if elo is not None:
        assert (round(got.elo, 2), round(got.margin, 2)) == (elo, margin)


def test_pentanomial_draw_ratio_is_fastchess_s() -> None:
    """fastchess's ``drawRatioPenta``: the pairs that scored one point of two (WL + DD)."""
    got = pair_estimate(Pentanomial(34, 54, 31, 32, 64, 75))
    assert got is not None and got.draw_ratio == pytest.approx((31 + 32) / 290)
    games = estimate(136, 111, 96)
    assert games is not None and games.draw_ratio == pytest.approx(111 / 343)


def test_no_win_keeps_the_normal_interval_when_it_is_finite() -> None:
    """The issue's chess match: 0 wins, 19 draws, 5 losses. The normal interval is finite,
    so it is kept (with the estimate), not replaced by a bound."""
    got = estimate(0, 19, 5)
    assert got is not None and got.bound is None
    assert round(got.elo, 1) == -73.5 and math.isfinite(got.margin)
    mu, s = got.score.mean, got.score.stdev
    assert got.low == pytest.approx(elo_of_score(mu - Z95 * s))
    assert got.high == pytest.approx(elo_of_score(mu + Z95 * s))
    # as pairs (fastchess's figures of such a match): still the normal interval
    pairs = pair_estimate(Pentanomial(ll=0, ld=5, dd=7), 0, 19, 5)
    assert pairs is not None and pairs.bound is None and pairs.nelo_margin is not None
    # without spread (every game lost), or an end beyond 0, the Wilson bound remains
    lost = estimate(0, 0, 5)
    assert lost is not None and lost.bound == "no win yet" and lost.nelo is None
    few = estimate(0, 1, 3)  # mu - z s < 0
    assert few is not None and few.bound == "no win yet" and few.nelo_margin is None


def test_pentanomial_llr_matches_the_normal_approximation() -> None:
    """LLR ~ N (s1 - s0) (2 mu - s0 - s1) / (2 var), with N pairs and the pair variance."""
    pairs = Pentanomial(34, 54, 31, 32, 64, 75)
    score = pairs.score()
    assert score is not None
    n, mu = pairs.pairs, score.mean
    var = score.stdev**2 * n
    s0, s1 = score_of_elo(0), score_of_elo(5)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert pair_llr(pairs, 0, 5, "logistic") == pytest.approx(approx, rel=0.05)


@given(st.floats(min_value=-1500, max_value=1500))
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert elo_of_score(score_of_elo(elo)) == pytest.approx(elo, abs=1e-6)


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
    got = sprt_llr(wins, draws, losses, elo0, elo1, "logistic")
    assert got == pytest.approx(approx, rel=0.02, abs=0.01)


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
    assert parse_sprt("elo1=2,model=logistic") == Sprt(elo1=2, model="logistic")
    assert parse_sprt("model=bayesian").model == "bayesian"
    assert parse_sprt("").model == "normalized"
    assert Sprt().describe() == "elo0=0,elo1=5,alpha=0.05,beta=0.05,model=normalized"
    bad_specs = ["elo0=5,elo1=0", "alpha=0", "beta=1.5", "gamma=1", "elo0", "elo1=x",
                 "elo1=1,elo1=2", "alpha=0.6,beta=0.5", "model=elo", "model=logistic,"
                 "model=normalized"]  # fmt: skip
    for bad in bad_specs:
        with pytest.raises(ValueError):
            parse_sprt(bad)


@settings(deadline=None)  # (no timing: a far hypothesis takes some steps on a busy machine)
@given(
    st.lists(st.integers(0, 30), min_size=6, max_size=6),
    st.sampled_from([(-400.0, 0.0), (-50.0, 0.0), (0.0, 5.0), (0.0, 300.0)]),
    st.sampled_from(["normalized", "logistic"]),
)
def test_the_llr_is_finite_for_any_pairs(
    counts: list[int], hypotheses: tuple[float, float], model: str
) -> None:
    """Small and lopsided counts, hypotheses far from even: a number, never an error."""
    pairs = Pentanomial(*counts)
    sprt = Sprt(*hypotheses, model=model)
    assert math.isfinite(sprt.pair_state(pairs).llr)
    first = sprt_llr(counts[0], counts[1], counts[2], *hypotheses, model)
    assert math.isfinite(first)


@settings(deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=6, max_size=6),
    st.floats(-300, 300),
    st.floats(1, 200),
)
def test_the_normalized_llr_leans_towards_the_hypothesis_nearer_the_data(
    counts: list[int], elo0: float, width: float
) -> None:
    """The likelihood falls away from the data's own nElo, so data beyond ``elo1`` favour
    H1 (LLR > 0) and data below ``elo0`` favour H0, however far the hypotheses are (a
    hypothesis far from the data once left the fixed point at its start: the LLR said
    H0 for a player 300 nElo above both)."""
    pairs = Pentanomial(*counts)
    got = pair_estimate(pairs)
    if got is None or got.nelo is None or not math.isfinite(got.nelo):
        return
    elo1 = elo0 + width
    llr = pair_llr(pairs, elo0, elo1)
    if got.nelo > elo1 + 10:
        assert llr > 0
    elif got.nelo < elo0 - 10:
        assert llr < 0


def test_the_nearest_of_several_fixed_points_is_the_likelihood_s_maximum() -> None:
    """Far above the data (nElo about -199), both hypotheses have two fixed points, one
    piling the pairs on 3/4 and one on a whole point; the one reached from the data itself
    at 257 was the farther, which made the LLR favour 293 (+10.8, hypothesis found it). The
    nearest of the points reached from several starts is the maximum: H0 is favoured."""
    pairs = Pentanomial(0, 27, 0, 23, 0, 1)
    estimate = pair_estimate(pairs)
    assert estimate is not None and estimate.nelo is not None and estimate.nelo < -190
    assert pair_llr(pairs, 257, 293) == pytest.approx(-7.446, abs=1e-3)


def test_a_far_hypothesis_is_tested_by_continuation() -> None:
    """8 pairs, 5 won twice and 3 split (a real Kalah run): far above both -100 and 0."""
    pairs = Pentanomial(wl=3, ww=5)
    state = Sprt(-100, 0).pair_state(pairs)
    assert state.llr > 2.944 and state.verdict == "H1"
    assert Sprt(-100, 0, model="logistic").pair_state(pairs).llr > 0
