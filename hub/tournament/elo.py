"""The arithmetic of a match's results (pure), as chess engine testers compute it.

Two players, from the first player's side, with ``W`` wins, ``D`` draws, ``L`` losses in
``N`` games (the trinomial model of cutechess-cli and fastchess):

* score ``mu = (W + D/2) / N``; per-game variance ``var = w(1-mu)^2 + d(1/2-mu)^2 + l mu^2``
  (``w, d, l`` the fractions); the score's standard deviation ``s = sqrt(var / N)`` and
  its 95% interval ``mu +- z s`` with ``z = 1.95996...``, the 97.5% normal quantile;
* Elo difference ``E(mu) = -400 log10(1/mu - 1)`` and its margin
  ``(E(mu + z s) - E(mu - z s)) / 2`` (cutechess's ``Elo::errorMargin``, fastchess's
  ``EloWDL``);
* normalized Elo ``nElo = (mu - 1/2) / sqrt(var) * 800 / ln 10`` (fastchess, OpenBench,
  fishtest; its margin likewise from the interval's ends): the score's distance from even
  in standard deviations of one game, so it does not depend on how drawish the games are;
* likelihood of superiority ``LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2``
  (cutechess-cli).

Game pairs (two players; the two games of a round start from the same opening with the sides
swapped) are counted as pairs too, as fastchess does (``app/src/matchmaking/elo/
elo_pentanomial.cpp``, ``sprt/sprt.cpp``): the first player's points over a pair, 0, 1/2, 1,
3/2 or 2, are the pentanomial counts ``LL, LD, WL + DD, WD, WW``; the pair score is
``mu = WW + 3/4 WD + 1/2 (WL + DD) + 1/4 LD`` (fractions of the pairs), its per-pair variance
the spread of those five values, ``s = sqrt(var / pairs)``, and Elo and margin are as above
with five outcomes ``a = 0, 1/4, 1/2, 3/4, 1`` instead of three; nElo divides by
``sqrt(2 var)`` (a pair is two games). The LOS of pairs is fastchess's
``(1 - erf(-(mu - 1/2) / sqrt(2 s^2))) / 2``, its draw ratio the share of pairs that scored
one point of two (``WL + DD``). A pair's two games are not independent (same opening), which
is why the pentanomial interval is the honest one.

The interval is the normal one whenever it is finite (its ends inside (0, 1) and a spread
above zero), with no win yet as much as with many. Only when it is not (every game or pair
the same points, or an end beyond 0 or 1) does the estimate give the Wilson score interval,
which stays inside [0, 1], and say why in `EloEstimate.bound` (``"no win yet"``, ``"no loss
yet"``, ``"no win or loss yet"``, no spread, too few).

**SPRT** (`Sprt`), the generalised SPRT of fastchess with its three models: for each
hypothesis ``elo_k`` the maximum-likelihood distribution over the outcomes ``a_i`` nearest
the observed frequencies ``phat_i`` (a count of zero taken as 0.001) under that hypothesis,
and ``LLR = N sum phat_i log(p1_i / p0_i)``, compared with the bounds
``ln(beta / (1 - alpha))`` (accept H0) and ``ln((1 - beta) / alpha)`` (accept H1).

* ``normalized`` (the default, as in fastchess and OpenBench): ``elo_k`` is nElo; the
  hypothesis fixes ``t = (mu - 1/2) / sigma = elo_k / (800 / ln 10)`` (times sqrt 2 for
  pairs), and the distribution with that ``t`` is found by M. Van den Bergh's fixed point
  ("Comments on normalized Elo", section 4.1): from the uniform distribution, repeatedly
  ``phi_i = a_i - 1/2 - t sigma (1 + ((a_i - mu) / sigma)^2) / 2`` with ``mu, sigma`` of the
  current distribution, ``theta`` solving ``sum phat_i phi_i / (1 + theta phi_i) = 0`` and
  ``p_i = phat_i / (1 + theta phi_i)``, until it stops moving;
* ``logistic``: ``elo_k`` is logistic Elo, its expected score ``s_k = 1 / (1 +
  10^(-elo_k/400))``, and ``p_i = phat_i / (1 + theta (a_i - s_k))`` where ``theta`` solves
  ``sum phat_i (a_i - s_k) / (1 + theta (a_i - s_k)) = 0`` (Van den Bergh, "Comparing the
  approximations for the generalized log likelihood ratio");
* ``bayesian`` (games only, as in fastchess): ``elo_k`` is BayesElo with the draw Elo
  estimated from the games, ``drawelo = 200 log10((1 - l)/l (1 - w)/w)``, and the expected
  score ``P(win) + P(draw) / 2`` of that model in the logistic computation; no LLR (0) before
  a win and a loss.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from statistics import NormalDist

import attrs

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% normal quantile, 1.959964 (fastchess's ``CI95ZSCORE``)."""
ZERO_COUNT = 1e-3
"""What a zero count is taken as in the SPRT (fastchess's ``regularize``)."""


def elo_of_score(score: float) -> float:
    """The logistic Elo difference that expects ``score`` (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0.0 for an even score


def score_of_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """cutechess-cli's LOS: the probability that the first player is the stronger one."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def wilson(samples: int, mean: float) -> tuple[float, float]:
    """The Wilson score interval (95%) of a mean of ``samples`` values in [0, 1]: unlike the
    normal interval it does not shrink to a point when every value is the same."""
    z2 = Z95 * Z95
    centre = (mean + z2 / (2 * samples)) / (1 + z2 / samples)
    half = (
        Z95
        / (1 + z2 / samples)
        * math.sqrt(max(0.0, mean * (1 - mean)) / samples + z2 / (4 * samples * samples))
    )
    # clamped around the mean: at a mean of 0 or 1 rounding must not move the bound off it
    return min(mean, max(0.0, centre - half)), max(mean, min(1.0, centre + half))


@attrs.frozen
class Interval:
    """A mean of per-game (or per-pair) points and its 95% interval."""

    games: int
    """How many values the mean is of (games, or pairs)."""
    mean: float
    stdev: float
    """Standard deviation of the mean (of the per-game points, divided by sqrt(games))."""

    @property
    def degenerate(self) -> bool:
        """Every value was the same: the normal interval would be a point."""
        return self.stdev <= 0.0

    @property
    def low(self) -> float:
        if self.degenerate:
            return wilson(self.games, self.mean)[0]
        return max(0.0, self.mean - Z95 * self.stdev)

    @property
    def high(self) -> float:
        if self.degenerate:
            return wilson(self.games, self.mean)[1]
        return min(1.0, self.mean + Z95 * self.stdev)

    @property
    def margin(self) -> float:
        return Z95 * self.stdev


def interval(games: int, total: float, squares: float) -> Interval | None:
    """The interval of the mean of ``games`` values summing to ``total`` (their squares to
    ``squares``); None without games."""
    if games <= 0:
        return None
    mean = total / games
    return _interval(games, mean, squares / games - mean * mean)


def _interval(count: int, mean: float, variance: float) -> Interval:
    """The interval of a mean of ``count`` values (games, or pairs) whose variance is
    ``variance``: the one computation of the trinomial and the pentanomial figures."""
    if variance < 1e-12:  # rounding of equal values
        variance = 0.0
    return Interval(count, mean, math.sqrt(variance / count))


# -- game pairs --------------------------------------------------------------------------------

PAIR_KINDS = ("LL", "LD", "WL", "DD", "WD", "WW")
"""The results of a game pair from the first player's side, worst first (WL and DD both
score one point of two)."""
PAIR_POINTS = {"LL": 0.0, "LD": 0.5, "WL": 1.0, "DD": 1.0, "WD": 1.5, "WW": 2.0}
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's score (its points / 2) in each of `Pentanomial.five`'s classes."""


def pair_kind(first: float, second: float) -> str:
    """The pentanomial class of a pair from the first player's points in its two games."""
    total = first + second
    if total == 1.0:
        return "DD" if first == 0.5 else "WL"
    return {0.0: "LL", 0.5: "LD", 1.5: "WD", 2.0: "WW"}[total]


@attrs.frozen
class Pentanomial:
    """Game pairs counted by the first player's points over the pair (fastchess's
    ``penta_LL`` ... ``penta_WW``)."""

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @classmethod
    def of(cls, kinds: Sequence[str]) -> Pentanomial:
        return cls(*(kinds.count(kind) for kind in PAIR_KINDS))

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def counts(self) -> dict[str, int]:
        """``{"LL": n, "LD": n, "WL": n, "DD": n, "WD": n, "WW": n}``."""
        return dict(zip(PAIR_KINDS, attrs.astuple(self), strict=True))

    def five(self) -> tuple[int, int, int, int, int]:
        """The counts of 0, 1/2, 1, 3/2 and 2 points (WL and DD together)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def score(self) -> Interval | None:
        """The pair score (points over the pair / 2) and its interval; None without pairs."""
        pairs = self.pairs
        if not pairs:
            return None
        fractions = [count / pairs for count in self.five()]
        mean = sum(f * v for f, v in zip(fractions, PAIR_SCORES, strict=True))
        variance = sum(f * (v - mean) ** 2 for f, v in zip(fractions, PAIR_SCORES, strict=True))
        return _interval(pairs, mean, variance)


# -- Elo ---------------------------------------------------------------------------------------

NELO_SCALE = 800.0 / math.log(10.0)
"""nElo per standard deviation of the score (fastchess's ``800 / ln 10``)."""


def nelo_of_score(score: float, deviation: float) -> float:
    """The normalized Elo of ``score`` with ``deviation`` the standard deviation of one game
    (of a pair: ``sqrt(2 var)``); inf when there is no spread."""
    if deviation <= 0.0:
        return math.copysign(math.inf, score - 0.5) if score != 0.5 else 0.0
    return (score - 0.5) / deviation * NELO_SCALE + 0.0


@attrs.frozen
class EloEstimate:
    """Two players' results from the first player's side."""

    wins: int
    draws: int
    losses: int
    score: Interval
    """Per game (``trinomial``) or per pair (``pentanomial``)."""
    elo: float
    margin: float
    """fastchess's ``(E(mu + z s) - E(mu - z s)) / 2``; inf when a bound is not finite."""
    los: float
    model: str = "trinomial"
    """``"trinomial"`` (games) or ``"pentanomial"`` (game pairs)."""
    low: float = -math.inf
    """The interval's Elo bounds (from the Wilson interval when `bound` is set)."""
    high: float = math.inf
    bound: str | None = None
    """Why `low` and `high` are the Wilson interval's (`NO_WIN`, `NO_LOSS`,
    `NO_WIN_OR_LOSS`, `NO_SPREAD`, `TOO_FEW`: the normal interval is a point or not
    finite); None: they are the normal interval's."""
    nelo: float | None = None
    """The normalized Elo; None when the results have no spread (it is infinite)."""
    nelo_margin: float | None = None
    """Its 95% margin, None where the normal interval is not finite (`bound` set)."""
    draw_ratio: float = 0.0
    """As fastchess reports it: the share of drawn games, or of game pairs (pentanomial)
    that scored one point of two (WL + DD)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return self.score.games if self.model == "pentanomial" else 0


NO_WIN, NO_LOSS, NO_WIN_OR_LOSS = "no win yet", "no loss yet", "no win or loss yet"
NO_SPREAD = "no spread in the results"
TOO_FEW = "too few for a normal interval"
"""`EloEstimate.bound`: why the interval is Wilson's (the first three: the Elo is bounded on
one side only, or both when all were draws)."""


def _bound_label(wins: int, losses: int) -> str | None:
    if wins == 0 and losses == 0:
        return NO_WIN_OR_LOSS
    if wins == 0:
        return NO_WIN
    if losses == 0:
        return NO_LOSS
    return None


def _estimate(
    wins: int,
    draws: int,
    losses: int,
    score: Interval,
    model: str,
    los: float,
    draw_ratio: float,
) -> EloEstimate:
    """The estimate from the score: the normal interval whenever it is finite, else
    Wilson's with the reason (module doc)."""
    ends = (score.mean - Z95 * score.stdev, score.mean + Z95 * score.stdev)
    low, high = (elo_of_score(value) for value in ends)
    finite = not score.degenerate and math.isfinite(low) and math.isfinite(high)
    margin = (high - low) / 2.0 if finite else math.inf
    # the deviation of one game (of a pair: sqrt(2 var), fastchess's nElo of pairs)
    per = 2.0 if model == "pentanomial" else 1.0
    deviation = score.stdev * math.sqrt(score.games * per)
    nelo: float | None = None
    nelo_margin: float | None = None
    if not score.degenerate:
        nelo = nelo_of_score(score.mean, deviation)
        nelo_margin = Z95 * score.stdev / deviation * NELO_SCALE if finite else None
    bound = None
    if not finite:
        bound = _bound_label(wins, losses) or (NO_SPREAD if score.degenerate else TOO_FEW)
        low, high = (elo_of_score(value) for value in wilson(score.games, score.mean))
    return EloEstimate(
        wins,
        draws,
        losses,
        score,
        elo_of_score(score.mean),
        margin,
        los,
        model,
        low,
        high,
        bound,
        nelo,
        nelo_margin,
        draw_ratio,
    )


def estimate(wins: int, draws: int, losses: int) -> EloEstimate | None:
    """Score, Elo ± margin, nElo and LOS of ``wins``/``draws``/``losses`` as independent
    games (the trinomial model); None without games."""
    games = wins + draws + losses
    score = interval(games, wins + 0.5 * draws, wins + 0.25 * draws)
    if score is None:
        return None
    los = likelihood_of_superiority(wins, losses)
    return _estimate(wins, draws, losses, score, "trinomial", los, draws / games)


def pair_estimate(
    pairs: Pentanomial, wins: int = 0, draws: int = 0, losses: int = 0
) -> EloEstimate | None:
    """Elo ± margin, nElo and LOS of game pairs (the pentanomial model, fastchess's
    ``EloPentanomial``); ``wins``/``draws``/``losses`` are the games' counts (for the
    record and for `EloEstimate.bound`; by default those of the pairs). None without pairs."""
    score = pairs.score()
    if score is None:
        return None
    if wins + draws + losses == 0:
        wins = 2 * pairs.ww + pairs.wd + pairs.wl
        losses = 2 * pairs.ll + pairs.ld + pairs.wl
        draws = pairs.ld + 2 * pairs.dd + pairs.wd
    if score.degenerate:
        los = likelihood_of_superiority(wins, losses)
    else:
        los = (1.0 - math.erf(-(score.mean - 0.5) / math.sqrt(2.0) / score.stdev)) / 2.0
    draw_ratio = (pairs.wl + pairs.dd) / pairs.pairs
    return _estimate(wins, draws, losses, score, "pentanomial", los, draw_ratio)


# -- SPRT --------------------------------------------------------------------------------------

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
SPRT_MODELS = ("normalized", "logistic", "bayesian")
"""`Sprt.model`: the scale of ``elo0`` and ``elo1`` (module doc); the first is the default."""
SCORES = (0.0, 0.5, 1.0)


def _theta(probs: Sequence[float], shifts: Sequence[float]) -> float:
    """The root of ``sum p_i d_i / (1 + theta d_i) = 0`` between ``-1 / max d`` and
    ``-1 / min d`` (where every ``1 + theta d_i`` is positive), by bisection to the
    floating-point limit; the sum decreases in theta."""

    def slope(theta: float) -> float:
        total = 0.0
        for p, d in zip(probs, shifts, strict=True):
            denominator = 1.0 + theta * d
            if denominator <= 0.0:  # rounding at an end of the interval: the pole's side
                return math.inf if d > 0.0 else -math.inf
            total += p * d / denominator
        return total

    low, high = -1.0 / max(shifts), -1.0 / min(shifts)
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _max_likelihood(
    probs: Sequence[float], expected: float, scores: Sequence[float] = SCORES
) -> list[float]:
    """The distribution over ``scores`` nearest ``probs`` whose mean is ``expected``."""
    shifted = [a - expected for a in scores]
    theta = _theta(probs, shifted)
    return [p / (1.0 + theta * d) for p, d in zip(probs, shifted, strict=True)]


def _normalized_step(
    probs: Sequence[float], t: float, scores: Sequence[float], start: Sequence[float]
) -> list[float] | None:
    """Van den Bergh's fixed point for ``t`` from ``start``; None when it does not get there
    (no root to bracket, or not settled in 100 steps)."""
    current = list(start)
    for _ in range(100):
        mu = sum(p * a for p, a in zip(current, scores, strict=True))
        sigma = math.sqrt(sum(p * (a - mu) ** 2 for p, a in zip(current, scores, strict=True)))
        if sigma <= 0.0:
            return None
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        if min(phi) >= 0.0 or max(phi) <= 0.0:
            return None
        theta = _theta(probs, phi)
        denominators = [1.0 + theta * f for f in phi]
        if min(denominators) <= 0.0:
            return None
        updated = [p / d for p, d in zip(probs, denominators, strict=True)]
        moved = max(abs(a - b) for a, b in zip(updated, current, strict=True))
        current = updated
        if moved < 1e-12:
            return current
    return None


def _normalized_max_likelihood(
    probs: Sequence[float], t: float, scores: Sequence[float]
) -> list[float]:
    """The distribution over ``scores`` nearest ``probs`` whose ``(mu - 1/2) / sigma`` is
    ``t`` (Van den Bergh's fixed point, module doc).

    The fixed point can settle on more than one distribution with that ``t`` (for a
    hypothesis far from the data, one that piles the games on 3/4 and one on a whole point),
    and only the nearest is the likelihood's maximum, so it is started from several points:
    the data itself, the uniform distribution (fastchess's one start) and a distribution
    heaped on each score; the nearest of those it reaches is taken. Near the data they all
    settle on the same point. When none gets there (no root to bracket), by continuation:
    ``t`` moved from the data's own value (where the answer is the data) in steps, each
    started from the last, halved when one fails and doubled when one succeeds."""
    count = len(scores)
    starts = [list(probs), [1.0 / count] * count]
    for heaped in range(count):
        starts.append([0.9 if i == heaped else 0.1 / (count - 1) for i in range(count)])
    found = [q for start in starts if (q := _normalized_step(probs, t, scores, start))]
    if found:
        return min(found, key=lambda q: _divergence(probs, q))
    mu = sum(p * a for p, a in zip(probs, scores, strict=True))
    sigma = math.sqrt(sum(p * (a - mu) ** 2 for p, a in zip(probs, scores, strict=True)))
    reached, current = (mu - 0.5) / sigma, list(probs)
    step = t - reached
    for _ in range(200):  # each success doubles the step, each failure halves it
        if reached == t or abs(step) < 1e-9:
            break
        target = t if abs(step) >= abs(t - reached) else reached + step
        moved = _normalized_step(probs, target, scores, current)
        if moved is None:
            step /= 2.0
        else:
            reached, current, step = target, moved, 2.0 * step
    return current


def _divergence(probs: Sequence[float], q: Sequence[float]) -> float:
    """How far ``q`` is from ``probs`` (Kullback-Leibler): what the likelihood loses."""
    return sum(p * (math.log(p) - math.log(b)) for p, b in zip(probs, q, strict=True))


def _frequencies(counts: Sequence[int]) -> tuple[float, list[float]]:
    """The total and the frequencies of ``counts``, a zero taken as 0.001 (fastchess)."""
    regular = [float(n) if n else ZERO_COUNT for n in counts]
    total = sum(regular)
    return total, [n / total for n in regular]


def _llr(total: float, probs: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> float:
    return total * (_divergence(probs, p0) - _divergence(probs, p1))


def _logistic_llr(
    counts: Sequence[int], scores: Sequence[float], score0: float, score1: float
) -> float:
    total, probs = _frequencies(counts)
    p0 = _max_likelihood(probs, score0, scores)
    p1 = _max_likelihood(probs, score1, scores)
    return _llr(total, probs, p0, p1)


def _normalized_llr(
    counts: Sequence[int], scores: Sequence[float], elo0: float, elo1: float, per: float
) -> float:
    total, probs = _frequencies(counts)
    scale = math.sqrt(per) / NELO_SCALE
    p0 = _normalized_max_likelihood(probs, elo0 * scale, scores)
    p1 = _normalized_max_likelihood(probs, elo1 * scale, scores)
    return _llr(total, probs, p0, p1)


def bayeselo_score(elo: float, draw_elo: float) -> float:
    """The expected score of a BayesElo difference ``elo`` with draw Elo ``draw_elo``."""
    win = 1.0 / (1.0 + math.pow(10.0, (draw_elo - elo) / 400.0))
    loss = 1.0 / (1.0 + math.pow(10.0, (draw_elo + elo) / 400.0))
    return win + 0.5 * (1.0 - win - loss)


def sprt_llr(
    wins: int, draws: int, losses: int, elo0: float, elo1: float, model: str = "normalized"
) -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) of independent games
    (trinomial), on the scale of ``model`` (`SPRT_MODELS`)."""
    counts = (losses, draws, wins)
    if model == "normalized":
        return _normalized_llr(counts, SCORES, elo0, elo1, 1.0)
    if model == "bayesian":
        if not wins or not losses:
            return 0.0
        _, (loss, _draw, win) = _frequencies(counts)
        draw_elo = 200.0 * math.log10((1.0 - loss) / loss * (1.0 - win) / win)
        score0, score1 = bayeselo_score(elo0, draw_elo), bayeselo_score(elo1, draw_elo)
        return _logistic_llr(counts, SCORES, score0, score1)
    return _logistic_llr(counts, SCORES, score_of_elo(elo0), score_of_elo(elo1))


def pair_llr(pairs: Pentanomial, elo0: float, elo1: float, model: str = "normalized") -> float:
    """The same of game pairs (pentanomial; ``normalized`` or ``logistic``)."""
    if model == "normalized":
        return _normalized_llr(pairs.five(), PAIR_SCORES, elo0, elo1, 2.0)
    if model == "logistic":
        return _logistic_llr(pairs.five(), PAIR_SCORES, score_of_elo(elo0), score_of_elo(elo1))
    raise ValueError(f"the {model} SPRT model has no test of game pairs")


@attrs.frozen
class SprtState:
    llr: float
    lower: float
    upper: float
    verdict: str | None
    """``"H1"`` (elo1 accepted: stronger), ``"H0"`` (elo0 accepted) or None (go on)."""
    model: str = "trinomial"
    """What was counted: ``"trinomial"`` (games) or ``"pentanomial"`` (game pairs)."""


@attrs.frozen
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1`` on the scale of
    ``model`` (`SPRT_MODELS`: nElo by default, as fastchess and OpenBench)."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be less than elo1")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be less than 1")
        if self.model not in SPRT_MODELS:
            raise ValueError(f"model={self.model}: expected one of {', '.join(SPRT_MODELS)}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def pairs(self) -> bool:
        """Whether the model can test game pairs (``bayesian`` cannot: games only)."""
        return self.model != "bayesian"

    def _state(self, llr: float, counted: str) -> SprtState:
        verdict = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return SprtState(llr, self.lower, self.upper, verdict, counted)

    def state(self, wins: int, draws: int, losses: int) -> SprtState:
        """The test of independent games (trinomial)."""
        games = wins + draws + losses
        llr = sprt_llr(wins, draws, losses, self.elo0, self.elo1, self.model) if games else 0.0
        return self._state(llr, "trinomial")

    def pair_state(self, pairs: Pentanomial) -> SprtState:
        """The test of game pairs (pentanomial), as fastchess runs it."""
        llr = pair_llr(pairs, self.elo0, self.elo1, self.model) if pairs.pairs else 0.0
        return self._state(llr, "pentanomial")

    def describe(self) -> str:
        return (
            f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g},"
            f"model={self.model}"
        )


_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def parse_sprt(text: str) -> Sprt:
    """``elo0=0,elo1=5,alpha=0.05,beta=0.05,model=normalized`` (any subset, the rest
    default); `ValueError`."""
    values: dict[str, float] = {}
    model = SPRT_MODELS[0]
    seen: set[str] = set()
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in SPRT_KEYS:
            raise ValueError(f"{part!r}: expected one of {', '.join(k + '=X' for k in SPRT_KEYS)}")
        if key in seen:
            raise ValueError(f"{key} given twice")
        seen.add(key)
        if key == "model":
            if value not in SPRT_MODELS:
                raise ValueError(f"model={value}: expected one of {', '.join(SPRT_MODELS)}")
            model = value
            continue
        if not _NUMBER.fullmatch(value):
            raise ValueError(f"{key}={value}: not a number")
        values[key] = float(value)
    return Sprt(**values, model=model)
