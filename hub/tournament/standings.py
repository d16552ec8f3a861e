"""What a tournament's field needs beyond the per-player tally (`hub.tournament.tally.Tally`):
the crosstable (each player's points against each other player, with the games that gave
them), Elo ratings with margins fitted from the tournament's own games, and the history of
the standings as games came in (the web page's chart). Pure bookkeeping; no I/O.

Games of more than two seats count pairwise: at a table, a player beats each player it won
and the other did not, and draws with one who won too or lost too (the reading of
``hub games ratings``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from hub.tournament.elo import SprtState
from hub.tournament.tally import GameOutcome

Z95 = 1.959963984540054
ELO_SCALE = 400.0 / math.log(10.0)
PRIOR_GAMES = 2.0
"""Virtual draws each player is given against the field's average in the Elo fit, so that a
perfect (or zero) score has a finite rating (a light prior, as BayesElo's)."""
HISTORY_LIMIT = 1000
"""Points of the standings' history kept (older ones are thinned to every other)."""
FIT_ROUNDS = 200


@attrs.define
class Cell:
    """One player's results against one other player."""

    points: float = 0.0
    games: int = 0
    results: list[tuple[str, float]] = attrs.Factory(list)
    """(game id, this player's points against the other in it), in the order played."""


@attrs.frozen
class Point:
    """The standings after ``games`` games: each player's points, and the SPRT's LLR."""

    games: int
    points: tuple[float, ...]
    llr: float | None = None


@attrs.frozen
class Rating:
    elo: float
    margin: float
    """The 95% margin (±)."""


@attrs.define
class Crosstable:
    names: tuple[str, ...]
    cells: dict[tuple[int, int], Cell] = attrs.Factory(dict)
    history: list[Point] = attrs.Factory(list)
    games: int = 0
    totals: list[float] = attrs.field()
    step: int = 1
    """Every ``step``-th game goes into `history` (doubled when it is full)."""

    @totals.default
    def _totals(self) -> list[float]:
        return [0.0] * len(self.names)

    def cell(self, player: int, other: int) -> Cell:
        return self.cells.get((player, other)) or Cell()

    def add(self, outcome: GameOutcome, game_id: str, sprt: SprtState | None = None) -> None:
        """A finished game (an aborted one changes nothing)."""
        if outcome.aborted:
            return
        winners = {outcome.seating[seat] for seat in outcome.winners}
        players = list(dict.fromkeys(outcome.seating))
        for player in players:
            for other in players:
                if other == player:
                    continue
                if (player in winners) == (other in winners):
                    share = 0.5
                else:
                    share = 1.0 if player in winners else 0.0
                cell = self.cells.setdefault((player, other), Cell())
                cell.points += share
                cell.games += 1
                cell.results.append((game_id, share))
        for player, share in outcome.points().items():
            self.totals[player] += share
        self.games += 1
        if self.games % self.step == 0:
            self.history.append(
                Point(self.games, tuple(self.totals), None if sprt is None else sprt.llr)
            )
            if len(self.history) >= HISTORY_LIMIT:
                self.history = self.history[1::2]
                self.step *= 2

    def ratings(self) -> list[Rating]:
        """Each player's Elo (the field's average is 0) and its 95% margin: a logistic fit
        of the pairwise results, each player with `PRIOR_GAMES` draws against the average."""
        n = len(self.names)
        elo = [0.0] * n
        for _ in range(FIT_ROUNDS):
            moved = 0.0
            for player in range(n):
                expected, information = _expectation(self, elo, player)
                actual = PRIOR_GAMES / 2 + sum(
                    self.cell(player, other).points for other in range(n) if other != player
                )
                step = ELO_SCALE * (actual - expected) / information
                elo[player] += step
                moved = max(moved, abs(step))
            mean = sum(elo) / n
            elo = [value - mean for value in elo]
            if moved < 1e-6:
                break
        result = []
        for player in range(n):
            _, information = _expectation(self, elo, player)
            result.append(Rating(elo[player], Z95 * ELO_SCALE / math.sqrt(information)))
        return result


def _expected(a: float, b: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (b - a) / 400.0))


def _expectation(table: Crosstable, elo: Sequence[float], player: int) -> tuple[float, float]:
    """The points ``player`` is expected to have at ``elo`` (the prior's included) and the
    Fisher information of its rating (in points per natural unit)."""
    p = _expected(elo[player], 0.0)
    expected = PRIOR_GAMES * p
    information = PRIOR_GAMES * p * (1 - p)
    for other in range(len(elo)):
        if other == player:
            continue
        games = table.cell(player, other).games
        if games:
            p = _expected(elo[player], elo[other])
            expected += games * p
            information += games * p * (1 - p)
    return expected, information
