"""A rating list from every recorded game: maximum-likelihood Elo (``hub games ratings``,
and the Elo column of ``hub games stats``).

Pure and standard library only. **The model** is BayesElo's and Ordo's: with ``d`` the
rating difference of two players (in Elo), the first of them (in seat order) given the
first-move advantage ``adv``, and ``F(x) = 1 / (1 + 10^(-x/400))``,

    P(win) = F(d + adv - draw),  P(loss) = F(-d - adv - draw),  P(draw) = 1 - P(win) - P(loss),

where ``draw`` (the draw parameter, in Elo, >= 0) is fitted with the ratings unless given;
with no draw in the games it is 0 (the Bradley-Terry model). **The first-move advantage**
(BayesElo's ``advantage``: white, South, seat 0) is fitted with them unless given; it is
determined only when the seats vary enough (some player met others from both sides, or a
cycle of games that does not run first-to-second all the way round): otherwise it is 0 and
the list says it was not fitted. **The fit** maximises the log-likelihood of every result
at once (the order of the games does not matter) plus, by default, a weak Gaussian prior on
each rating (``prior``, its standard deviation in Elo: `PRIOR_ELO`), which keeps a player
who won or lost every game finite; ``prior=0`` is pure maximum likelihood (then every
player must have won and lost or drawn). It is solved by Newton's method on all ratings,
the draw parameter and the advantage together (the log-likelihood is concave in them), with
a backtracking line search. **Margins** are 95% (1.96 standard errors) from the inverse of
the observed information (minus the Hessian) at the optimum: each player's margin is that
of its difference to the anchor (a named player, whose margin is then 0) or, without one,
to the mean of its group.

**Groups that never met.** Players connected by games (directly or through others) form a
group; ratings of two groups that never met say nothing about each other. Each group is
its own list (`Rated.group`, 0 the anchor's or else the largest), centred on its own mean
(``anchor_rating``), or in the anchor's group on the anchor.

**Games into results**: `hub.records.results`, the one rule ``hub games stats`` uses too:
each player's W/D/L per game, and one result between each two players of a game for the
fit. A player that holds several seats of a game is one player (self-play gives no result).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import attrs

from hub.records.results import (
    PairTally,
    PlayerRecord,
    ScoredGame,
    pair_results,
    player_records,
)

PRIOR_ELO = 500.0
"""The default prior's standard deviation, Elo: weak next to a few dozen games."""
Z95 = 1.959963984540054
K = math.log(10) / 400
MAX_ITERATIONS = 200
TOLERANCE = 1e-9
"""Stop when no variable moves by more than this many Elo points in a step."""
START_DRAW = 100.0


class RatingError(ValueError):
    """The games do not determine the ratings (pure maximum likelihood with a player who
    won or lost everything)."""


@attrs.frozen
class Rated:
    """One player of a rating list: its Elo, 95% margin, group, and its games' W/D/L (by
    the rule of `hub.records.results`, as ``hub games stats`` counts them)."""

    identity: str
    rating: float
    margin: float
    wins: int
    draws: int
    losses: int
    games: int = 0
    """The games it played (self-play included)."""
    group: int = 0
    """Its group of players connected by games (0: the anchor's, or else the largest);
    ratings of different groups are not comparable."""

    @property
    def results(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The fraction of its games' points it scored (0 without any result)."""
        return (self.wins + self.draws / 2) / self.results if self.results else 0.0


@attrs.frozen
class RatingList:
    players: tuple[Rated, ...]
    """By group (0 first), best first within it (then by identity)."""
    draw: float
    """The draw parameter, Elo (fitted, or as given)."""
    draw_margin: float
    """Its 95% margin (0 when it was given or there are no draws)."""
    anchor: str | None
    anchor_rating: float
    prior: float
    iterations: int
    advantage: float = 0.0
    """The first-move advantage, Elo (fitted, or as given)."""
    advantage_margin: float = 0.0
    """Its 95% margin (0 unless fitted)."""
    advantage_fitted: bool = False
    """Whether `advantage` was fitted (False: given, or not determined by the games)."""
    advantage_given: bool = False
    """Whether `advantage` was given (neither given nor fitted: the games cannot tell it
    from the ratings, and it is 0)."""
    groups: int = 1
    """How many groups of players never met each other (module doc)."""
    unrated: tuple[PlayerRecord, ...] = ()
    """Players with games but no result against another player (only self-play)."""
    self_play: int = 0
    """Games of one player against itself (no result)."""


def _f(x: float) -> float:
    """F(x) = 1 / (1 + 10^(-x/400)), without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-K * x))
    e = math.exp(K * x)
    return e / (1.0 + e)


def _draw_terms(d: float, delta: float) -> tuple[float, float, float, float, float, float]:
    """log D, dD/dd / D, dD/ddelta / D and the second derivatives of log D, where
    D = F(d + delta) - F(d - delta) = P(draw)."""
    a, b = d + delta, d - delta
    fa, fb = _f(a), _f(b)
    # The difference of two numbers near 1 loses digits: use the mirror image there.
    big = fa - fb if d <= 0 else _f(-b) - _f(-a)
    if big <= 0.0:
        return -math.inf, 0.0, 0.0, 0.0, 0.0, 0.0
    pa, pb = K * fa * (1 - fa), K * fb * (1 - fb)
    qa, qb = K * pa * (1 - 2 * fa), K * pb * (1 - 2 * fb)
    gd, gt = (pa - pb) / big, (pa + pb) / big
    hdd = (qa - qb) / big - gd * gd
    htt = (qa - qb) / big - gt * gt
    hdt = (qa + qb) / big - gd * gt
    return math.log(big), gd, gt, hdd, htt, hdt


class _Problem:
    """The log-posterior of ratings, the draw parameter (variable ``n``) and the first-move
    advantage (variable ``n + 1``) given the pair tallies."""

    def __init__(
        self,
        names: Sequence[str],
        pairs: Mapping[tuple[str, str], PairTally],
        prior: float,
        draw: float | None,
        advantage: float | None,
    ) -> None:
        index = {name: i for i, name in enumerate(names)}
        self.n = len(names)
        self.pairs = [
            (index[a], index[b], t.wins, t.draws, t.losses) for (a, b), t in pairs.items()
        ]
        self.precision = 1.0 / (prior * prior) if prior > 0 else 0.0
        any_draw = any(t.draws for t in pairs.values())
        self.free_draw = draw is None and any_draw
        self.fixed_draw = 0.0 if draw is None else draw
        self.free_advantage = advantage is None and _advantage_determined(self.n, self.pairs)
        self.fixed_advantage = 0.0 if advantage is None else advantage
        # Without a prior the ratings are only fixed up to a shift in each group of players
        # connected by games: the first of each group is pinned at 0.
        self.group = _groups(self.n, self.pairs)
        pinned = set() if self.precision else {self.group.index(g) for g in set(self.group)}
        self.variables = [i for i in range(self.n) if i not in pinned]
        if self.free_draw:
            self.variables.append(self.n)
        if self.free_advantage:
            self.variables.append(self.n + 1)

    def unpack(self, x: Sequence[float]) -> tuple[list[float], float, float]:
        ratings = [0.0] * self.n
        delta, advantage = self.fixed_draw, self.fixed_advantage
        for value, var in zip(x, self.variables, strict=True):
            if var == self.n:
                delta = value
            elif var == self.n + 1:
                advantage = value
            else:
                ratings[var] = value
        return ratings, delta, advantage

    def value(self, x: Sequence[float]) -> float:
        ratings, delta, advantage = self.unpack(x)
        if delta < 0:
            return -math.inf
        total = -0.5 * self.precision * sum(r * r for r in ratings)
        for i, j, wins, draws, losses in self.pairs:
            d = ratings[i] - ratings[j] + advantage
            if wins:
                total += wins * math.log(max(_f(d - delta), 1e-300))
            if losses:
                total += losses * math.log(max(_f(-d - delta), 1e-300))
            if draws:
                total += draws * _draw_terms(d, delta)[0]
        return total

    def derivatives(self, x: Sequence[float]) -> tuple[list[float], list[list[float]]]:
        """The gradient and Hessian over all ratings, the draw parameter (index n) and the
        advantage (index n + 1, which moves every pair's ``d`` as its first player does)."""
        ratings, delta, advantage = self.unpack(x)
        size = self.n + 2
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        for i in range(self.n):
            grad[i] -= self.precision * ratings[i]
            hess[i][i] -= self.precision
        t, v = self.n, self.n + 1
        for i, j, wins, draws, losses in self.pairs:
            d = ratings[i] - ratings[j] + advantage
            gd = gt = hdd = htt = hdt = 0.0
            if wins:
                fb = _f(d - delta)
                g, h = wins * K * (1 - fb), -wins * K * K * fb * (1 - fb)
                gd, gt, hdd, htt, hdt = gd + g, gt - g, hdd + h, htt + h, hdt - h
            if losses:
                fc = _f(-d - delta)
                g, h = losses * K * (1 - fc), -losses * K * K * fc * (1 - fc)
                gd, gt, hdd, htt, hdt = gd - g, gt - g, hdd + h, htt + h, hdt + h
            if draws:
                _, dgd, dgt, dhdd, dhtt, dhdt = _draw_terms(d, delta)
                gd += draws * dgd
                gt += draws * dgt
                hdd += draws * dhdd
                htt += draws * dhtt
                hdt += draws * dhdt
            # d's coefficients: +1 for i and for the advantage, -1 for j
            for a, sa in ((i, 1.0), (j, -1.0), (v, 1.0)):
                grad[a] += sa * gd
                hess[a][t] += sa * hdt
                hess[t][a] += sa * hdt
                for b, sb in ((i, 1.0), (j, -1.0), (v, 1.0)):
                    hess[a][b] += sa * sb * hdd
            grad[t] += gt
            hess[t][t] += htt
        return grad, hess

    def reduced(self, x: Sequence[float]) -> tuple[list[float], list[list[float]]]:
        grad, hess = self.derivatives(x)
        keep = self.variables
        return [grad[v] for v in keep], [[hess[v][w] for w in keep] for v in keep]


def _solve(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float] | None:
    """``matrix @ x = vector`` by Gaussian elimination with partial pivoting; None if the
    matrix is singular."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    scale = max((abs(v) for row in matrix for v in row), default=0.0) or 1.0
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) <= 1e-13 * scale:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        for r in range(n):
            if r != col and rows[r][col] != 0.0:
                factor = rows[r][col] / head[col]
                row = rows[r]
                for c in range(col, n + 1):
                    row[c] -= factor * head[c]
    return [rows[r][n] / rows[r][r] for r in range(n)]


def _inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]] | None:
    n = len(matrix)
    columns = []
    for k in range(n):
        column = _solve(matrix, [1.0 if r == k else 0.0 for r in range(n)])
        if column is None:
            return None
        columns.append(column)
    return [[columns[c][r] for c in range(n)] for r in range(n)]


def fit(
    games: Iterable[ScoredGame],
    *,
    prior: float = PRIOR_ELO,
    draw: float | None = None,
    advantage: float | None = None,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
) -> RatingList:
    """The rating list of ``games`` (the identity in each seat, the winning seats); see the
    module doc. ``draw`` and ``advantage`` are fitted when None. Raises `RatingError` when
    the ratings are not determined, `ValueError` for an anchor that played no rated game.

    When the games cannot tell the first-move advantage apart from the players' strengths
    (the first mover won every game of a few), the list is the one without an advantage,
    which says it was not determined (neither fitted nor given)."""
    listed = list(games)

    def fitted(advantage: float | None) -> RatingList:
        return _fit(
            listed,
            prior=prior,
            draw=draw,
            advantage=advantage,
            anchor=anchor,
            anchor_rating=anchor_rating,
        )

    try:
        return fitted(advantage)
    except RatingError:
        if advantage is not None:
            raise
    return attrs.evolve(fitted(0.0), advantage_given=False, advantage_fitted=False)


def _fit(
    games: Iterable[ScoredGame],
    *,
    prior: float,
    draw: float | None,
    advantage: float | None,
    anchor: str | None,
    anchor_rating: float,
) -> RatingList:
    listed = [(tuple(players), tuple(winners)) for players, winners in games]
    pairs = pair_results(listed)
    records = player_records(listed)
    names = sorted({name for pair in pairs for name in pair})
    unrated = tuple(record for name, record in records.items() if name not in set(names))
    self_play = sum(1 for players, _ in listed if len(set(players)) < 2)
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} has no rated game")
    given_advantage = 0.0 if advantage is None else advantage
    if not names:
        return RatingList(
            (), 0.0, 0.0, anchor, anchor_rating, prior, 0, given_advantage,
            advantage_given=advantage is not None, groups=0,
            unrated=unrated, self_play=self_play,
        )  # fmt: skip
    if draw is not None and draw <= 0 and any(tally.draws for tally in pairs.values()):
        raise RatingError("the games have draws: the draw parameter must be above 0")
    problem = _Problem(names, pairs, prior, draw, advantage)
    x = [START_DRAW if v == problem.n else 0.0 for v in problem.variables]
    current = problem.value(x)
    iterations = 0
    for iterations in range(1, MAX_ITERATIONS + 1):  # noqa: B007 - kept for the result
        grad, hess = problem.reduced(x)
        step = _solve([[-v for v in row] for row in hess], grad)
        if step is None:
            raise RatingError(_undetermined(pairs, names))
        scale = 1.0
        while True:
            trial = [value + scale * move for value, move in zip(x, step, strict=True)]
            value = problem.value(trial)
            if value >= current - 1e-12 or scale < 1e-10:
                break
            scale /= 2
        moved = max((abs(scale * move) for move in step), default=0.0)
        x, current = trial, value
        if moved < TOLERANCE:
            break
        if moved > 1e5:
            raise RatingError(_undetermined(pairs, names))
    else:
        raise RatingError(_undetermined(pairs, names))
    grad, hess = problem.reduced(x)
    covariance = _inverse([[-v for v in row] for row in hess])
    if covariance is None:
        raise RatingError(_undetermined(pairs, names))
    ratings, delta, fitted_advantage = problem.unpack(x)
    # The covariance over all ratings (a pinned rating is a constant: zeros).
    position = {var: k for k, var in enumerate(problem.variables)}

    def cov(i: int, j: int) -> float:
        if i in position and j in position:
            return covariance[position[i]][position[j]]
        return 0.0

    n = problem.n
    group = problem.group
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(group[i], []).append(i)
    anchored = None if anchor is None else names.index(anchor)
    # Group 0: the anchor's, or else the largest (then the one of the first name); the rest
    # by size.
    order = sorted(
        members,
        key=lambda g: (anchored is None or group[anchored] != g, -len(members[g]), members[g][0]),
    )
    number = {g: k for k, g in enumerate(order)}
    # Each group against its mean (or the anchor): the mean of a group's ratings is its
    # zero, so a group that never met the others does not widen their margins.
    row_mean = [
        sum(cov(i, j) for j in members[group[i]]) / len(members[group[i]]) for i in range(n)
    ]
    group_mean = {g: sum(row_mean[i] for i in rows) / len(rows) for g, rows in members.items()}
    base = {g: sum(ratings[i] for i in rows) / len(rows) for g, rows in members.items()}

    def variance(i: int) -> float:
        if anchored is not None and group[i] == group[anchored]:
            return cov(i, i) + cov(anchored, anchored) - 2 * cov(i, anchored)
        return cov(i, i) - 2 * row_mean[i] + group_mean[group[i]]

    if anchored is not None:
        base[group[anchored]] = ratings[anchored]
    players = [
        Rated(
            name,
            ratings[i] - base[group[i]] + anchor_rating,
            Z95 * math.sqrt(max(0.0, variance(i))),
            records[name].wins,
            records[name].draws,
            records[name].losses,
            records[name].games,
            number[group[i]],
        )
        for i, name in enumerate(names)
    ]
    players.sort(key=lambda player: (player.group, -player.rating, player.identity))
    draw_margin = Z95 * math.sqrt(max(0.0, cov(n, n))) if problem.free_draw else 0.0
    advantage_margin = (
        Z95 * math.sqrt(max(0.0, cov(n + 1, n + 1))) if problem.free_advantage else 0.0
    )
    return RatingList(
        tuple(players),
        delta,
        draw_margin,
        anchor,
        anchor_rating,
        prior,
        iterations,
        fitted_advantage,
        advantage_margin,
        problem.free_advantage,
        advantage is not None,
        len(members),
        unrated,
        self_play,
    )


Pair = tuple[int, int, int, int, int]
"""A pair's tally by player index: first, second, wins, draws, losses."""


def _groups(count: int, pairs: Sequence[Pair]) -> list[int]:
    """For each player, a number shared by the players it is connected to by games."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b, *_ in pairs:
        parent[root(a)] = root(b)
    return [root(i) for i in range(count)]


def _advantage_determined(count: int, pairs: Sequence[Pair]) -> bool:
    """Whether the games tell a first-move advantage from the ratings: not when levels can
    be given to the players so that in every pair the first is exactly one level above the
    second (then ``r + level * a`` fits as well for any ``a``: every game of a pair of
    players was played in the same seats, and no cycle of games undoes it)."""
    level: dict[int, int] = {}
    neighbours: dict[int, list[tuple[int, int]]] = {i: [] for i in range(count)}
    for a, b, *_ in pairs:
        neighbours[a].append((b, -1))
        neighbours[b].append((a, 1))
    for start in range(count):
        if start in level:
            continue
        level[start] = 0
        stack = [start]
        while stack:
            here = stack.pop()
            for there, step in neighbours[here]:
                want = level[here] + step
                if there not in level:
                    level[there] = want
                    stack.append(there)
                elif level[there] != want:
                    return True
    return False


def _undetermined(pairs: Mapping[tuple[str, str], PairTally], names: Sequence[str]) -> str:
    perfect = []
    for name in names:
        scored = lost = 0
        for (a, b), tally in pairs.items():
            if name == a:
                scored += tally.wins + tally.draws
                lost += tally.losses + tally.draws
            elif name == b:
                scored += tally.losses + tally.draws
                lost += tally.wins + tally.draws
        if not scored or not lost:
            perfect.append(name)
    if perfect:
        return (
            "the ratings are unbounded without a prior: "
            + ", ".join(perfect[:5])
            + (" ..." if len(perfect) > 5 else "")
            + " won or lost every result (give --prior ELO)"
        )
    return "the ratings are not determined without a prior (give --prior ELO)"
