"""The arithmetic of a match's results (pure), as chess engine testers compute it.

Two players, from the first player's side, with ``W`` wins, ``D`` draws, ``L`` losses in
``N`` games (the trinomial model of cutechess-cli and fastchess):

* score ``mu = (W + D/2) / N``; per-game variance ``var = w(1-mu)^2 + d(1/2-mu)^2 + l mu^2``
  (``w, d, l`` the fractions); the score's standard deviation ``s = sqrt(var / N)`` and
  its 95% interval ``mu +- z s`` with ``z = 1.95996...``, the 97.5% normal quantile;
* Elo difference ``E(mu) = -400 log10(1/mu - 1)`` and its margin
  ``(E(mu + z s) - E(mu - z s)) / 2`` (cutechess's ``Elo::errorMargin``, fastchess's
  ``EloWDL``);
* likelihood of superiority ``LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2``
  (cutechess-cli);
* SPRT: the generalised SPRT on the logistic Elo scale (fastchess's default ``logistic``
  model, after M. Van den Bergh, "Comments on Normalized Elo"): for each hypothesis'
  expected score ``s_k = 1 / (1 + 10^(-elo_k/400))`` the maximum-likelihood trinomial with
  that expectation is ``p_i = phat_i / (1 + theta (a_i - s_k))`` where ``theta`` solves
  ``sum phat_i (a_i - s_k) / (1 + theta (a_i - s_k)) = 0`` (``a = 0, 1/2, 1``; a count of
  zero is taken as 0.001); ``LLR = N sum phat_i log(p1_i / p0_i)``, compared with the bounds
  ``ln(beta / (1 - alpha))`` (accept H0: not ``elo1`` better) and ``ln((1 - beta) / alpha)``
  (accept H1).

Any number of players: each game gives one point, shared by its winners (nobody won: shared
by all), so a two-player draw is half a point each. Each player's score is its points per
game with a 95% interval from the per-game points' variance (for two players exactly the
trinomial interval above); the rank is by points. Aborted games (no result: a kit or worker
failure, a stopped match) count for nobody.
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


@attrs.frozen
class Interval:
    """A mean of per-game points and its 95% interval."""

    games: int
    mean: float
    stdev: float
    """Standard deviation of the mean (of the per-game points, divided by sqrt(games))."""

    @property
    def low(self) -> float:
        return max(0.0, self.mean - Z95 * self.stdev)

    @property
    def high(self) -> float:
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
    variance = max(0.0, squares / games - mean * mean)
    return Interval(games, mean, math.sqrt(variance / games))


@attrs.frozen
class EloEstimate:
    """Two players' results from the first player's side."""

    wins: int
    draws: int
    losses: int
    score: Interval
    elo: float
    margin: float
    los: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def estimate(wins: int, draws: int, losses: int) -> EloEstimate | None:
    """Score, Elo ± margin and LOS of ``wins``/``draws``/``losses``; None without games."""
    games = wins + draws + losses
    score = interval(games, wins + 0.5 * draws, wins + 0.25 * draws)
    if score is None:
        return None
    low = elo_of_score(score.mean - Z95 * score.stdev)
    high = elo_of_score(score.mean + Z95 * score.stdev)
    margin = (high - low) / 2.0 if math.isfinite(high - low) else math.inf
    return EloEstimate(
        wins,
        draws,
        losses,
        score,
        elo_of_score(score.mean),
        margin,
        likelihood_of_superiority(wins, losses),
    )


# -- SPRT --------------------------------------------------------------------------------------

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")
SCORES = (0.0, 0.5, 1.0)


def _max_likelihood(probs: Sequence[float], expected: float) -> list[float]:
    """The distribution over `SCORES` nearest ``probs`` whose mean is ``expected``."""
    shifted = [a - expected for a in SCORES]

    def slope(theta: float) -> float:  # decreasing in theta
        return sum(p * d / (1.0 + theta * d) for p, d in zip(probs, shifted, strict=True))

    low, high = -1.0 / shifted[-1], -1.0 / shifted[0]
    for _ in range(200):  # bisection to the floating-point limit
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    theta = (low + high) / 2.0
    return [p / (1.0 + theta * d) for p, d in zip(probs, shifted, strict=True)]


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), logistic GSPRT."""
    counts = [float(n) if n else ZERO_COUNT for n in (losses, draws, wins)]
    total = sum(counts)
    probs = [n / total for n in counts]
    p0 = _max_likelihood(probs, score_of_elo(elo0))
    p1 = _max_likelihood(probs, score_of_elo(elo1))
    return total * sum(
        p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
    )


@attrs.frozen
class SprtState:
    llr: float
    lower: float
    upper: float
    verdict: str | None
    """``"H1"`` (elo1 accepted: stronger), ``"H0"`` (elo0 accepted) or None (go on)."""


@attrs.frozen
class Sprt:
    """A sequential probability ratio test of ``elo0`` against ``elo1``."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError("elo0 must be less than elo1")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("alpha + beta must be less than 1")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1.0 - self.beta) / self.alpha)

    def state(self, wins: int, draws: int, losses: int) -> SprtState:
        llr = sprt_llr(wins, draws, losses, self.elo0, self.elo1) if wins + draws + losses else 0.0
        verdict = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return SprtState(llr, self.lower, self.upper, verdict)

    def describe(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def parse_sprt(text: str) -> Sprt:
    """``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (any subset, the rest default); `ValueError`."""
    values: dict[str, float] = {}
    for part in filter(None, (piece.strip() for piece in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in SPRT_KEYS:
            raise ValueError(f"{part!r}: expected one of {', '.join(k + '=X' for k in SPRT_KEYS)}")
        if key in values:
            raise ValueError(f"{key} given twice")
        if not _NUMBER.fullmatch(value.strip()):
            raise ValueError(f"{key}={value}: not a number")
        values[key] = float(value)
    return Sprt(**values)


# -- standings (any number of players) ----------------------------------------------------------


@attrs.frozen
class GameOutcome:
    """One game's result as the match sees it: who sat where, who won, and the scores."""

    seating: tuple[int, ...]
    """The match player in each seat."""
    winners: tuple[int, ...] = ()
    """Winning seats (several: a shared win, a draw between two)."""
    scores: tuple[float, ...] = ()
    """The game's own scores per seat (clubs points, Kalah stores), as recorded."""
    aborted: bool = False

    def points(self) -> dict[int, float]:
        """Each player's share of the game's one point."""
        if self.aborted:
            return {}
        sharing = [self.seating[seat] for seat in self.winners] or list(self.seating)
        share = 1.0 / len(sharing)
        got = dict.fromkeys(self.seating, 0.0)
        for player in sharing:
            got[player] += share
        return got


@attrs.define
class PlayerTally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    squares: float = 0.0
    game_score: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@attrs.frozen
class Standing:
    """One player's line of the final table."""

    player: int
    name: str
    rank: int
    wins: int
    draws: int
    losses: int
    points: float
    game_score: float
    score: Interval | None


@attrs.define
class Tally:
    """The running results of a match."""

    names: tuple[str, ...]
    players: list[PlayerTally] = attrs.field()
    aborted: int = 0
    games: int = 0
    """Games with a result (aborted ones are not counted)."""

    @players.default
    def _players(self) -> list[PlayerTally]:
        return [PlayerTally() for _ in self.names]

    def add(self, outcome: GameOutcome) -> None:
        if outcome.aborted:
            self.aborted += 1
            return
        self.games += 1
        winners = {outcome.seating[seat] for seat in outcome.winners}
        shared = len(winners) != 1
        for player, points in outcome.points().items():
            tally = self.players[player]
            if player in winners and not shared:
                tally.wins += 1
            elif player in winners or not winners:
                tally.draws += 1
            else:
                tally.losses += 1
            tally.points += points
            tally.squares += points * points
        for seat, score in enumerate(outcome.scores):
            if seat < len(outcome.seating):
                self.players[outcome.seating[seat]].game_score += score

    def standings(self) -> list[Standing]:
        """Every player, best first (equal points share a rank)."""
        lines = []
        for player, (name, tally) in enumerate(zip(self.names, self.players, strict=True)):
            score = interval(tally.games, tally.points, tally.squares)
            lines.append((player, name, tally, score))
        lines.sort(key=lambda line: -line[2].points)
        result: list[Standing] = []
        for position, (player, name, tally, score) in enumerate(lines):
            rank = position + 1
            if position and math.isclose(lines[position - 1][2].points, tally.points):
                rank = result[-1].rank
            result.append(
                Standing(
                    player,
                    name,
                    rank,
                    tally.wins,
                    tally.draws,
                    tally.losses,
                    tally.points,
                    tally.game_score,
                    score,
                )
            )
        return result

    def head_to_head(self) -> EloEstimate | None:
        """The first player's Elo estimate against the second (two players only)."""
        if len(self.names) != 2:
            return None
        first = self.players[0]
        return estimate(first.wins, first.draws, first.losses)
