"""The one rule that turns a recorded game into results (pure; `hub games stats` and
`hub games ratings` both count with it, so they agree on every game).

A game is its players by seat (identities: `hub.core.model.identity`) and its winning seats. A
player is an identity, however many seats it holds: two seats of one identity (self-play,
three ``clubber`` seats) are one player. The players holding a winning seat are the game's
winners.

**Each player's result** (`player_results`): a player won if it is among the winners and
some player is not; it lost if it is not among the winners and some player is; every other
case is a draw (every player among the winners, as in a drawn chess game, or nobody won). A
game of one player only (self-play) has no result: it counts in that player's games and
nowhere else.

**Results between two players** (`pair_results`, what the rating fit uses): a game gives one
result between each two of its players: a winner beats a player that is not among the
winners; two winners, or two players of a game nobody won, draw; two players who both lost a
game that someone else won are not compared (the winners say nothing about their order).
With two players this is exactly each one's result above. The pair is kept in seat order,
the player whose first seat comes first (who moves first: white, South, seat 0) first, so
that a first-move advantage can be fitted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

ScoredGame = tuple[Sequence[str], Iterable[int]]
"""A game for results: the identity in each seat, the winning seats."""

WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@attrs.define
class PairTally:
    """Results between two players ``(first, second)``, from ``first``'s side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0


@attrs.define
class PlayerRecord:
    """One player's games under the rule of the module doc."""

    identity: str
    games: int = 0
    """Every game it played, self-play included."""
    wins: int = 0
    draws: int = 0
    losses: int = 0
    self_play: int = 0
    """Games it played only against itself: in `games`, not in W/D/L."""

    @property
    def results(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(wins + draws / 2) / results; 0 without any."""
        return (self.wins + self.draws / 2) / self.results if self.results else 0.0


def _players(identities: Sequence[str], winners: Iterable[int]) -> tuple[list[str], set[str]]:
    """The distinct players in the order of their first seat, and the winners among them."""
    players = list(dict.fromkeys(identities))
    won = {identities[seat] for seat in winners if 0 <= seat < len(identities)}
    return players, won


def player_results(identities: Sequence[str], winners: Iterable[int]) -> dict[str, float]:
    """Each player's result, `WIN`, `DRAW` or `LOSS`; empty for a game of one player."""
    players, won = _players(identities, winners)
    if len(players) < 2:
        return {}
    if not won or len(won) == len(players):
        return dict.fromkeys(players, DRAW)
    return {player: WIN if player in won else LOSS for player in players}


def pair_results(games: Iterable[ScoredGame]) -> dict[tuple[str, str], PairTally]:
    """Every ordered pair ``(first, second)`` of players that has a result, and its tally
    from ``first``'s side (``first`` sat before ``second``; module doc)."""
    pairs: dict[tuple[str, str], PairTally] = {}
    for identities, winners in games:
        players, won = _players(list(identities), winners)
        for i, first in enumerate(players):
            for second in players[i + 1 :]:
                if (first in won) == (second in won):
                    if won and first not in won:
                        continue  # two losers of a game someone else won: no order
                    outcome = DRAW
                else:
                    outcome = WIN if first in won else LOSS
                tally = pairs.setdefault((first, second), PairTally())
                if outcome == WIN:
                    tally.wins += 1
                elif outcome == LOSS:
                    tally.losses += 1
                else:
                    tally.draws += 1
    return pairs


def player_records(games: Iterable[ScoredGame]) -> dict[str, PlayerRecord]:
    """Every player's games and W/D/L, in the order they first appear."""
    records: dict[str, PlayerRecord] = {}
    for identities, winners in games:
        seated = list(identities)
        results = player_results(seated, winners)
        for player in dict.fromkeys(seated):
            record = records.setdefault(player, PlayerRecord(player))
            record.games += 1
            result = results.get(player)
            if result is None:
                record.self_play += 1
            elif result == WIN:
                record.wins += 1
            elif result == LOSS:
                record.losses += 1
            else:
                record.draws += 1
    return records
