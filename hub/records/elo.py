"""A rating list from every recorded game: maximum-likelihood Elo (``hub games ratings``).

Pure and standard library only. **The model** is BayesElo's and Ordo's: with ``d`` the
rating difference of two players (in Elo) and ``F(x) = 1 / (1 + 10^(-x/400))``,

    P(win) = F(d - draw),  P(loss) = F(-d - draw),  P(draw) = 1 - P(win) - P(loss),

where ``draw`` (the draw parameter, in Elo, >= 0) is fitted with the ratings unless given;
with no draw in the games it is 0 (the Bradley-Terry model). **The fit** maximises the
log-likelihood of every result at once (the order of the games does not matter) plus, by
default, a weak Gaussian prior on each rating (``prior``, its standard deviation in Elo:
`PRIOR_ELO`), which keeps a player who won or lost every game finite and centres the
ratings on their mean; ``prior=0`` is pure maximum likelihood (then every player must
have won and lost or drawn). It is solved by Newton's method on all ratings and the draw
parameter together (the log-likelihood is concave in them), with a backtracking line
search. **Margins** are 95% (1.96 standard errors) from the inverse of the observed
information (minus the Hessian) at the optimum: each player's margin is that of its
difference to the anchor (a named player, whose margin is then 0) or, without one, to
the mean of all ratings. **The anchor** fixes the scale's zero: the named player is given
``anchor_rating``, or without one the mean rating is ``anchor_rating`` (default 0).

**Games into results** (`pair_results`): a game counts as one result between each two of
its seats: the seat among the winners beats one that is not; two seats both among the
winners (a drawn two-player game, a shared win) or a game nobody won draw. With three or
more seats, two seats that both lost are not compared (the winners say nothing about
their order). A game's seats are identities told apart within the game
(`hub.core.identity.seat_identities`), so a player never plays itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import attrs

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
    won or lost everything, or players that never met)."""


@attrs.define
class Tally:
    """Results of one pair ``(a, b)`` from ``a``'s side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0


Game = tuple[Sequence[str], Iterable[int]]
"""A game: the identity in each seat (distinct), the winning seats."""


def pair_results(games: Iterable[Game]) -> dict[tuple[str, str], Tally]:
    """Every pair ``(a, b)`` with ``a < b`` that has a result, and its tally (module doc)."""
    pairs: dict[tuple[str, str], Tally] = {}
    for players, winners in games:
        won = set(winners)
        many = len(players) > 2
        for i, a in enumerate(players):
            for j in range(i + 1, len(players)):
                b = players[j]
                if a == b:
                    continue
                if (i in won) == (j in won):
                    if many and won and i not in won:
                        continue  # two losers of a multi-player game: no order between them
                    score = 0
                else:
                    score = 1 if i in won else -1
                if a > b:
                    a_, b_, score = b, a, -score
                else:
                    a_, b_ = a, b
                tally = pairs.setdefault((a_, b_), Tally())
                if score > 0:
                    tally.wins += 1
                elif score < 0:
                    tally.losses += 1
                else:
                    tally.draws += 1
    return pairs


@attrs.frozen
class Rated:
    """One player of a rating list: its Elo, 95% margin, and its pairwise results."""

    identity: str
    rating: float
    margin: float
    wins: int
    draws: int
    losses: int
    games: int = 0
    """The games it played (a multi-player game gives several pairwise results)."""

    @property
    def results(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The fraction of its pairwise results it scored (0 without any)."""
        return (self.wins + self.draws / 2) / self.results if self.results else 0.0


@attrs.frozen
class RatingList:
    players: tuple[Rated, ...]
    """Best first (then by identity)."""
    draw: float
    """The draw parameter, Elo (fitted, or as given)."""
    draw_margin: float
    """Its 95% margin (0 when it was given or there are no draws)."""
    anchor: str | None
    anchor_rating: float
    prior: float
    iterations: int


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
    """The log-posterior of ratings (and the draw parameter) given the pair tallies."""

    def __init__(
        self,
        names: Sequence[str],
        pairs: Mapping[tuple[str, str], Tally],
        prior: float,
        draw: float | None,
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
        # Without a prior the ratings are only fixed up to a shift: the first is pinned at 0.
        self.pinned = 0 if self.precision == 0.0 else None
        self.variables = [i for i in range(self.n) if i != self.pinned]
        if self.free_draw:
            self.variables.append(self.n)

    def unpack(self, x: Sequence[float]) -> tuple[list[float], float]:
        ratings = [0.0] * self.n
        delta = self.fixed_draw
        for value, var in zip(x, self.variables, strict=True):
            if var == self.n:
                delta = value
            else:
                ratings[var] = value
        return ratings, delta

    def value(self, x: Sequence[float]) -> float:
        ratings, delta = self.unpack(x)
        if delta < 0:
            return -math.inf
        total = -0.5 * self.precision * sum(r * r for r in ratings)
        for i, j, wins, draws, losses in self.pairs:
            d = ratings[i] - ratings[j]
            if wins:
                total += wins * math.log(max(_f(d - delta), 1e-300))
            if losses:
                total += losses * math.log(max(_f(-d - delta), 1e-300))
            if draws:
                total += draws * _draw_terms(d, delta)[0]
        return total

    def derivatives(self, x: Sequence[float]) -> tuple[list[float], list[list[float]]]:
        """The gradient and Hessian over all ratings and the draw parameter (index n)."""
        ratings, delta = self.unpack(x)
        size = self.n + 1
        grad = [0.0] * size
        hess = [[0.0] * size for _ in range(size)]
        for i in range(self.n):
            grad[i] -= self.precision * ratings[i]
            hess[i][i] -= self.precision
        t = self.n
        for i, j, wins, draws, losses in self.pairs:
            d = ratings[i] - ratings[j]
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
            grad[i] += gd
            grad[j] -= gd
            grad[t] += gt
            hess[i][i] += hdd
            hess[j][j] += hdd
            hess[i][j] -= hdd
            hess[j][i] -= hdd
            hess[i][t] += hdt
            hess[t][i] += hdt
            hess[j][t] -= hdt
            hess[t][j] -= hdt
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
    games: Iterable[Game] | Mapping[tuple[str, str], Tally],
    *,
    prior: float = PRIOR_ELO,
    draw: float | None = None,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
) -> RatingList:
    """The rating list of ``games`` (or of `pair_results` already made); see the module
    doc. Raises `RatingError` when the ratings are not determined, `ValueError` for an
    anchor that played no rated game."""
    played: dict[str, int] = {}
    if isinstance(games, Mapping):
        pairs = games
    else:
        listed = [(tuple(players), tuple(winners)) for players, winners in games]
        pairs = pair_results(listed)
        for seated, _ in listed:
            if len(set(seated)) > 1:
                for name in set(seated):
                    played[name] = played.get(name, 0) + 1
    names = sorted({name for pair in pairs for name in pair})
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} has no rated game")
    if not names:
        return RatingList((), 0.0, 0.0, anchor, anchor_rating, prior, 0)
    if draw is not None and draw <= 0 and any(tally.draws for tally in pairs.values()):
        raise RatingError("the games have draws: the draw parameter must be above 0")
    problem = _Problem(names, pairs, prior, draw)
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
    ratings, delta = problem.unpack(x)
    # The covariance over all ratings (a pinned rating is a constant: zeros).
    position = {var: k for k, var in enumerate(problem.variables)}

    def cov(i: int, j: int) -> float:
        if i in position and j in position:
            return covariance[position[i]][position[j]]
        return 0.0

    n = problem.n
    if anchor is not None:
        a = names.index(anchor)
        base = ratings[a]

        def variance(i: int) -> float:
            return cov(i, i) + cov(a, a) - 2 * cov(i, a)

    else:
        base = sum(ratings) / n
        # Against the mean of the player's own group of players connected by games (each
        # group's mean is the scale's zero; one that never met the others, such as the
        # seats of a self-play game, would otherwise widen every margin).
        group = _groups(names, pairs)
        members: dict[int, list[int]] = {}
        for i in range(n):
            members.setdefault(group[i], []).append(i)
        row_mean = [
            sum(cov(i, j) for j in members[group[i]]) / len(members[group[i]]) for i in range(n)
        ]
        group_mean = {
            key: sum(row_mean[i] for i in rows) / len(rows) for key, rows in members.items()
        }

        def variance(i: int) -> float:
            return cov(i, i) - 2 * row_mean[i] + group_mean[group[i]]

    tallies = {name: [0, 0, 0] for name in names}
    for (a_, b_), tally in pairs.items():
        for name, wins, losses in ((a_, tally.wins, tally.losses), (b_, tally.losses, tally.wins)):
            own = tallies[name]
            own[0] += wins
            own[1] += tally.draws
            own[2] += losses
    players = [
        Rated(
            name,
            ratings[i] - base + anchor_rating,
            Z95 * math.sqrt(max(0.0, variance(i))),
            tallies[name][0],
            tallies[name][1],
            tallies[name][2],
            played.get(name, 0),
        )
        for i, name in enumerate(names)
    ]
    players.sort(key=lambda player: (-player.rating, player.identity))
    draw_margin = Z95 * math.sqrt(max(0.0, cov(n, n))) if problem.free_draw else 0.0
    return RatingList(tuple(players), delta, draw_margin, anchor, anchor_rating, prior, iterations)


def _groups(names: Sequence[str], pairs: Mapping[tuple[str, str], Tally]) -> list[int]:
    """For each player, a number shared by the players it is connected to by games."""
    parent = list(range(len(names)))
    index = {name: i for i, name in enumerate(names)}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        parent[root(index[a])] = root(index[b])
    return [root(i) for i in range(len(names))]


def _undetermined(pairs: Mapping[tuple[str, str], Tally], names: Sequence[str]) -> str:
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
    return "the ratings are not determined without a prior: some players never met (give --prior)"
