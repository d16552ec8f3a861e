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

Game pairs (two players; the two games of a round start from the same opening with the sides
swapped) are counted as pairs too, as fastchess does (``app/src/matchmaking/elo/
elo_pentanomial.cpp``, ``sprt/sprt.cpp``): the first player's points over a pair, 0, 1/2, 1,
3/2 or 2, are the pentanomial counts ``LL, LD, WL + DD, WD, WW``; the pair score is
``mu = WW + 3/4 WD + 1/2 (WL + DD) + 1/4 LD`` (fractions of the pairs), its per-pair variance
the spread of those five values, ``s = sqrt(var / pairs)``, and Elo, margin and the logistic
GSPRT are as above with five outcomes ``a = 0, 1/4, 1/2, 3/4, 1`` instead of three. The LOS of
pairs is fastchess's ``(1 - erf(-(mu - 1/2) / sqrt(2 s^2))) / 2``. A pair's two games are not
independent (same opening), which is why the pentanomial interval is the honest one.

With no win or no loss yet the normal interval degenerates (an infinite Elo, or a zero
variance): the estimate then gives the Wilson score interval, which stays inside [0, 1], and
says why in `EloEstimate.bound` (``"no win yet"``, ``"no loss yet"``, ``"no win or loss
yet"``); so does a score with no spread at all (every game or pair the same points) and one
whose normal interval leaves [0, 1] (too few games).

Any number of players: each game gives one point, shared by its winners (nobody won: shared
by all), so a two-player draw is half a point each. Each player's score is its points per
game with a 95% interval from the per-game points' variance (for two players exactly the
trinomial interval above); the rank is by points. Aborted games (no result: a kit or worker
failure, a stopped match) count for nobody, but each of their players' ``aborted``.

Per player the tally also counts the games it lost by its own fault: on time, by an illegal
or malformed move, by crashing or disconnecting (`FAULT_KINDS`). And it counts distinct games
(`GameOutcome.fingerprint`): a game played again move for move is no new evidence.
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
    wins: int, draws: int, losses: int, score: Interval, model: str, los: float
) -> EloEstimate:
    low = elo_of_score(score.mean - Z95 * score.stdev)
    high = elo_of_score(score.mean + Z95 * score.stdev)
    margin = (high - low) / 2.0 if math.isfinite(high - low) else math.inf
    bound = _bound_label(wins, losses)
    if bound is None and score.degenerate:
        bound = NO_SPREAD
    elif bound is None and not math.isfinite(margin):
        bound = TOO_FEW
    if bound is not None:
        low, high = (elo_of_score(value) for value in wilson(score.games, score.mean))
    return EloEstimate(
        wins, draws, losses, score, elo_of_score(score.mean), margin, los, model, low, high, bound
    )


def estimate(wins: int, draws: int, losses: int) -> EloEstimate | None:
    """Score, Elo ± margin and LOS of ``wins``/``draws``/``losses`` as independent games
    (the trinomial model); None without games."""
    games = wins + draws + losses
    score = interval(games, wins + 0.5 * draws, wins + 0.25 * draws)
    if score is None:
        return None
    los = likelihood_of_superiority(wins, losses)
    return _estimate(wins, draws, losses, score, "trinomial", los)


def pair_estimate(
    pairs: Pentanomial, wins: int = 0, draws: int = 0, losses: int = 0
) -> EloEstimate | None:
    """Elo ± margin and LOS of game pairs (the pentanomial model, fastchess's
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
    return _estimate(wins, draws, losses, score, "pentanomial", los)


# -- SPRT --------------------------------------------------------------------------------------

SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")
SCORES = (0.0, 0.5, 1.0)


def _max_likelihood(
    probs: Sequence[float], expected: float, scores: Sequence[float] = SCORES
) -> list[float]:
    """The distribution over ``scores`` nearest ``probs`` whose mean is ``expected``."""
    shifted = [a - expected for a in scores]

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


def _logistic_llr(
    counts: Sequence[int], scores: Sequence[float], elo0: float, elo1: float
) -> float:
    regular = [float(n) if n else ZERO_COUNT for n in counts]
    total = sum(regular)
    probs = [n / total for n in regular]
    p0 = _max_likelihood(probs, score_of_elo(elo0), scores)
    p1 = _max_likelihood(probs, score_of_elo(elo1), scores)
    return total * sum(
        p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
    )


def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), logistic GSPRT of
    independent games (trinomial)."""
    return _logistic_llr((losses, draws, wins), SCORES, elo0, elo1)


def pair_llr(pairs: Pentanomial, elo0: float, elo1: float) -> float:
    """The same of game pairs (pentanomial; fastchess's default)."""
    return _logistic_llr(pairs.five(), PAIR_SCORES, elo0, elo1)


@attrs.frozen
class SprtState:
    llr: float
    lower: float
    upper: float
    verdict: str | None
    """``"H1"`` (elo1 accepted: stronger), ``"H0"`` (elo0 accepted) or None (go on)."""
    model: str = "trinomial"


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

    def _state(self, llr: float, model: str) -> SprtState:
        verdict = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return SprtState(llr, self.lower, self.upper, verdict, model)

    def state(self, wins: int, draws: int, losses: int) -> SprtState:
        """The test of independent games (trinomial)."""
        games = wins + draws + losses
        llr = sprt_llr(wins, draws, losses, self.elo0, self.elo1) if games else 0.0
        return self._state(llr, "trinomial")

    def pair_state(self, pairs: Pentanomial) -> SprtState:
        """The test of game pairs (pentanomial), as fastchess runs it."""
        llr = pair_llr(pairs, self.elo0, self.elo1) if pairs.pairs else 0.0
        return self._state(llr, "pentanomial")

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

TIMEOUT, ILLEGAL, CRASH = "timeout", "illegal", "crash"
FAULT_KINDS = {
    "timeout": TIMEOUT,
    "illegal move": ILLEGAL,
    "malformed": ILLEGAL,
    "disconnect": CRASH,
}
"""`hub.core.referee.Termination` values (of a seat's fault) by the column that counts them:
a loss on time, an illegal or malformed move, a crash or disconnection. Resigning is no
fault of the program."""


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
    round: int | None = None
    """The game's round (its pair with two players); None: not part of a pair."""
    fault_seat: int | None = None
    """The seat whose fault ended the game, if any."""
    fault: str | None = None
    """That fault's `hub.core.referee.Termination` value (``"timeout"``, ...)."""
    fingerprint: str | None = None
    """What makes the game the game it was (players by seat, start, moves), to count
    repeated games; None if unknown."""

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
    timeouts: int = 0
    """Games lost on time."""
    illegal: int = 0
    """Games lost by an illegal or malformed move."""
    crashes: int = 0
    """Games lost by crashing or disconnecting (or not starting)."""
    aborted: int = 0
    """Games of this player that were aborted (no result)."""

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
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    aborted: int = 0


@attrs.define
class Tally:
    """The running results of a match."""

    names: tuple[str, ...]
    players: list[PlayerTally] = attrs.field()
    aborted: int = 0
    games: int = 0
    """Games with a result (aborted ones are not counted)."""
    pair_kinds: list[str] = attrs.Factory(list)
    """The complete game pairs so far (two players), by `pair_kind`."""
    halves: dict[int, float] = attrs.Factory(dict)
    """The first player's points in the one game with a result of each incomplete pair."""
    fingerprints: dict[str, int] = attrs.Factory(dict)
    """How often each distinct game was played (games with a fingerprint)."""

    @players.default
    def _players(self) -> list[PlayerTally]:
        return [PlayerTally() for _ in self.names]

    def add(self, outcome: GameOutcome) -> None:
        if outcome.aborted:
            self.aborted += 1
            for player in set(outcome.seating):
                self.players[player].aborted += 1
            return
        self.games += 1
        winners = {outcome.seating[seat] for seat in outcome.winners}
        shared = len(winners) != 1
        points = outcome.points()
        for player, share in points.items():
            tally = self.players[player]
            if player in winners and not shared:
                tally.wins += 1
            elif player in winners or not winners:
                tally.draws += 1
            else:
                tally.losses += 1
            tally.points += share
            tally.squares += share * share
        for seat, score in enumerate(outcome.scores):
            if seat < len(outcome.seating):
                self.players[outcome.seating[seat]].game_score += score
        self._count_fault(outcome)
        if outcome.fingerprint is not None:
            self.fingerprints[outcome.fingerprint] = (
                self.fingerprints.get(outcome.fingerprint, 0) + 1
            )
        if len(self.names) == 2 and outcome.round is not None:
            first = points.get(0, 0.0)
            other = self.halves.pop(outcome.round, None)
            if other is None:
                self.halves[outcome.round] = first
            else:
                self.pair_kinds.append(pair_kind(other, first))

    def _count_fault(self, outcome: GameOutcome) -> None:
        kind = FAULT_KINDS.get(outcome.fault or "")
        seat = outcome.fault_seat
        if kind is None or seat is None or not 0 <= seat < len(outcome.seating):
            return
        tally = self.players[outcome.seating[seat]]
        if kind == TIMEOUT:
            tally.timeouts += 1
        elif kind == ILLEGAL:
            tally.illegal += 1
        else:
            tally.crashes += 1

    @property
    def pentanomial(self) -> Pentanomial:
        """The complete game pairs, from the first player's side."""
        return Pentanomial.of(self.pair_kinds)

    @property
    def unpaired(self) -> int:
        """Games with a result whose pair is incomplete (the other game aborted or not
        played yet): in W/D/L, not in the pentanomial figures."""
        return len(self.halves)

    @property
    def compared(self) -> int:
        """Games whose moves are known (compared to count the distinct ones)."""
        return sum(self.fingerprints.values())

    @property
    def distinct(self) -> int:
        """Distinct games among `compared`."""
        return len(self.fingerprints)

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
                    tally.timeouts,
                    tally.illegal,
                    tally.crashes,
                    tally.aborted,
                )
            )
        return result

    def head_to_head(self) -> EloEstimate | None:
        """The first player's Elo estimate against the second (two players only): of the
        game pairs when there are any (pentanomial), else of the games (trinomial)."""
        if len(self.names) != 2:
            return None
        first = self.players[0]
        if self.pair_kinds:
            return pair_estimate(self.pentanomial, first.wins, first.draws, first.losses)
        return estimate(first.wins, first.draws, first.losses)

    def sprt_state(self, sprt: Sprt) -> SprtState:
        """``sprt`` on the results so far: of the game pairs (pentanomial) for two players,
        as fastchess does; the trinomial test of the first player's games otherwise."""
        first = self.players[0]
        if len(self.names) == 2 and (self.pair_kinds or self.halves):
            return sprt.pair_state(self.pentanomial)
        return sprt.state(first.wins, first.draws, first.losses)
