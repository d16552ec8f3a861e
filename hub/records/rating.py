"""Each player's record and rating over recorded games (pure; `hub games stats`).

**Win, draw, loss.** A seat whose player is the only kind of winner of a game (it is among
the winners and some seat is not) wins; a seat outside a non-empty set of winners loses;
every other case is a draw (every seat among the winners, as in a drawn chess game, or a
game nobody won). The score is (wins + draws / 2) / games.

**Rating.** An Elo scale (a 400-point difference is 10:1 odds) fitted by maximum likelihood
to every game at once, so the order of the games does not matter (unlike a running Elo
update) and a player is not rated by whom it met first. Each game counts as one result
between every two seats held by different players: 1 for the seat that won against one that
did not, 1/2 when both or neither won (a two-player game is then exactly its W/D/L). The fit
is the Bradley-Terry model (draws as half a win each), solved by Hunter's MM iteration
(``gamma_i <- score_i / sum_j n_ij / (gamma_i + gamma_j)``, rating = 400 log10 gamma). Every
player also gets `PRIOR_DRAWS` virtual draw(s) against a fixed player rated 0, so ratings
stay finite for a player who won or lost every game and players who never met share one
scale; the published ratings are then shifted so that their mean is 0. With few games the
prior pulls ratings towards the mean; with many it hardly matters.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import attrs

PRIOR_DRAWS = 1.0
ITERATIONS = 10_000
TOLERANCE = 1e-7
"""Stop when no rating moved by more than this many Elo points in one iteration."""


@attrs.frozen
class PlayerStats:
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    rating: float = 0.0

    @property
    def score(self) -> float:
        """The score as a fraction of the games (0 when there are none)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


Game = tuple[Sequence[str], Iterable[int]]
"""A game for statistics: the player names by seat and the winning seats."""


def seat_scores(players: int, winners: Iterable[int]) -> list[float]:
    """1 (won), 1/2 (drew) or 0 (lost) for each seat, by the rules above."""
    won = set(winners)
    if not won or len(won) >= players:
        return [0.5] * players
    return [1.0 if seat in won else 0.0 for seat in range(players)]


def pair_results(games: Iterable[Game]) -> dict[tuple[str, str], tuple[int, float]]:
    """For every two players ``(a, b)`` with a < b: how many results between them and
    ``a``'s total score in them."""
    pairs: dict[tuple[str, str], tuple[int, float]] = {}
    for names, winners in games:
        won = set(winners)
        for i, a in enumerate(names):
            for j in range(i + 1, len(names)):
                b = names[j]
                if a == b:
                    continue
                score_i = 0.5 if (i in won) == (j in won) else 1.0 if i in won else 0.0
                key, score = ((a, b), score_i) if a < b else ((b, a), 1.0 - score_i)
                count, total = pairs.get(key, (0, 0.0))
                pairs[key] = (count + 1, total + score)
    return pairs


def fit_ratings(
    pairs: Mapping[tuple[str, str], tuple[int, float]],
    *,
    prior: float = PRIOR_DRAWS,
    centre: bool = True,
) -> dict[str, float]:
    """Maximum-likelihood Elo ratings from `pair_results`, shifted to mean 0 (with
    ``centre=False``: on the scale where the prior's anchor is 0); see the module doc.

    With ``prior=0`` a player who won or lost everything has no finite rating: only use it
    when every player has a score strictly between 0 and 1 (the tests do).
    """
    names = sorted({name for pair in pairs for name in pair})
    if not names:
        return {}
    opponents: dict[str, list[tuple[str, int]]] = {name: [] for name in names}
    scores = dict.fromkeys(names, prior / 2)
    for (a, b), (count, total) in pairs.items():
        opponents[a].append((b, count))
        opponents[b].append((a, count))
        scores[a] += total
        scores[b] += count - total
    gamma = dict.fromkeys(names, 1.0)
    for _ in range(ITERATIONS):
        updated = {}
        for name in names:
            own = gamma[name]
            games = sum(count / (own + gamma[other]) for other, count in opponents[name])
            updated[name] = scores[name] / (games + prior / (own + 1.0))
        moved = max(abs(math.log10(updated[name] / gamma[name])) for name in names)
        gamma = updated
        if 400 * moved < TOLERANCE:
            break
    ratings = {name: 400 * math.log10(value) for name, value in gamma.items()}
    mean = sum(ratings.values()) / len(ratings) if centre else 0.0
    return {name: rating - mean for name, rating in ratings.items()}


def player_stats(games: Iterable[Game], *, prior: float = PRIOR_DRAWS) -> list[PlayerStats]:
    """Every player's games, W/D/L and rating, best rating first (then by name). A player
    in several seats of one game counts once per seat."""
    played = [(tuple(names), tuple(winners)) for names, winners in games]
    counts: dict[str, list[int]] = {}
    for names, winners in played:
        for name, score in zip(names, seat_scores(len(names), winners), strict=True):
            tally = counts.setdefault(name, [0, 0, 0])
            tally[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    ratings = fit_ratings(pair_results(played), prior=prior)
    stats = [
        PlayerStats(name, sum(tally), tally[0], tally[1], tally[2], ratings.get(name, 0.0))
        for name, tally in counts.items()
    ]
    return sorted(stats, key=lambda player: (-player.rating, player.name))
