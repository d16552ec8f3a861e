"""The bookkeeping of a match's results (pure): who played whom, with what result and fault.

`Tally` adds up `GameOutcome` s as they come in: each player's wins, draws, losses and points,
its faults, the games decided by adjudication, the game pairs of two players (their
pentanomial class), and the distinct games;
`hub.tournament.elo` does the arithmetic on those counts (Elo, intervals, SPRT).

Any number of players: each game gives one point, shared by its winners (nobody won: shared
by all), so a two-player draw is half a point each. Each player's score is its points per
game with a 95% interval from the per-game points' variance (for two players exactly the
trinomial interval); the rank is by points. Aborted games (no result: a kit or worker
failure, a stopped match) count for nobody, but each of their players' ``aborted``.

Per player the tally also counts the games it lost by its own fault: on time, by an illegal
or malformed move, by crashing or disconnecting (`FAULT_KINDS`). And it counts distinct games
(`GameOutcome.fingerprint`): a game played again move for move is no new evidence.
"""

from __future__ import annotations

import math

import attrs

from hub.tournament.elo import (
    EloEstimate,
    Interval,
    Pentanomial,
    Sprt,
    SprtState,
    estimate,
    interval,
    pair_estimate,
    pair_kind,
)

TIMEOUT, ILLEGAL, CRASH = "timeout", "illegal", "crash"
FAULT_KINDS = {
    "timeout": TIMEOUT,
    "illegal move": ILLEGAL,
    "malformed": ILLEGAL,
    "disconnect": CRASH,
}
"""`hub.core.model.referee.Termination` values (of a seat's fault) by the column that counts them:
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
    """That fault's `hub.core.model.referee.Termination` value (``"timeout"``, ...)."""
    fingerprint: str | None = None
    """What makes the game the game it was (players by seat, start, moves), to count
    repeated games; None if unknown."""
    adjudicated: str | None = None
    """How an arbiter decided the game (``resign score``, ``draw score``, ``300 plies``:
    the record's detail after `hub.core.model.referee.ADJUDICATED`); None: the game was played
    out."""

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
    adjudicated: int = 0
    """Games of this player decided by adjudication (``--resign``, ``--draw``, a ply cap)."""

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
    adjudicated: int = 0


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
    adjudications: dict[str, int] = attrs.Factory(dict)
    """Adjudicated games by how (`GameOutcome.adjudicated`), in the order first seen."""

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
            if outcome.adjudicated is not None:
                tally.adjudicated += 1
        if outcome.adjudicated is not None:
            how = outcome.adjudicated
            self.adjudications[how] = self.adjudications.get(how, 0) + 1
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
                    tally.adjudicated,
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
        as fastchess does; the trinomial test of the first player's games otherwise (and
        for the ``bayesian`` model, which has no test of pairs)."""
        first = self.players[0]
        if len(self.names) == 2 and (self.pair_kinds or self.halves) and sprt.pairs:
            return sprt.pair_state(self.pentanomial)
        return sprt.state(first.wins, first.draws, first.losses)
