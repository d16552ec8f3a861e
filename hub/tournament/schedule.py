"""The games of a match, decided before any is played (pure: no I/O, no clock, no global RNG).

A match between ``n`` players is played in *rounds* of ``n`` games. Every game of a round
starts from the same opening, and the seat order is rotated by one from game to game, so
over a round each player sits in each seat exactly once: with two players the sides (colour,
first move) are swapped; with three or four (clubs) everyone leads from every seat. Round
``r`` plays opening ``r mod len(openings)``. Game ``i`` is game ``i mod n`` of round
``i // n``; with ``--games`` a multiple of ``n`` every player has every seat equally often.

A match has an id (`new_match_id`), each game the id ``MATCH-INDEX`` (`game_id`), so a
resumed match plays the missing games under the same ids. Without ``--seed`` a match's seed
is a secret one, kept in the records database for ``--resume`` (not derived from the match
id, which every game id shows: from it every deal would follow); a match recorded before
seeds were kept took it from its id (`seed_of`), which ``--resume`` still does for it.

Each game also gets seeds of its own (`game_seed`), from the match's seed and its index:
its built-in players' (``random``, ``ai:N``, ``mcts:N``; `GameSpec.seed`) and its chance's
(`GameSpec.chance_seed`), so the same ``--seed`` replays a match of deterministic programs
move for move. A game whose opening is a deal (``deal``: `hub.core.play.game.MatchSetup.deals`)
gets an opening and a chance seed of its own too, so the two games of a pair are dealt
differently (a program that remembers one game learns nothing of the next); ``--duplicate``
(``deal`` False) deals the games of a pair alike, as duplicate bridge does.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub.core.play.kit import GameSpec
from hub.tournament.formats import KNOCKOUT, Plan, Stage, Table, TableResult, bracket


def new_match_id() -> str:
    """A fresh, globally unique match id (32 hex digits)."""
    return uuid.uuid4().hex


def seed_of(match_id: str) -> int:
    """The seed a match recorded before seeds were kept took from its id (``--resume`` of
    such a match)."""
    digits = "".join(c for c in match_id.lower() if c in "0123456789abcdef")[:8]
    return int(digits or "0", 16)


def game_seed(seed: int, purpose: str, number: int) -> int:
    """The seed of game (or game pair) ``number``'s ``purpose`` (``players``, ``chance``),
    from the match's ``seed``: a hash, so one game's seed tells nothing of another's (or of
    the match's) and a finished record may show it."""
    return random.Random(f"{seed}:{purpose}:{number}").randrange(2**63)


def game_spec(
    *,
    match_id: str,
    index: int,
    settings: Mapping[str, Any],
    players: Sequence[str],
    seed: int,
    openings: Sequence[Any],
    pair: int,
    deal: bool,
) -> GameSpec:
    """Game ``index`` of a match, of game pair (or table) ``pair``: with ``deal`` its
    opening and its chance are its own, else its pair's."""
    number = index if deal else pair
    chosen = list(openings) or [None]
    return GameSpec(
        game_id=game_id(match_id, index),
        settings=dict(settings),
        players=tuple(players),
        opening=chosen[number % len(chosen)],
        index=index,
        seed=game_seed(seed, "players", index),
        chance_seed=game_seed(seed, "chance", number),
    )


def game_id(match_id: str, index: int) -> str:
    return f"{match_id}-{index:05d}"


def rounds_for(games: int, players: int) -> int:
    """Rounds needed for ``games`` games (the last one may be incomplete)."""
    return math.ceil(games / players)


def seating(index: int, players: int) -> tuple[int, ...]:
    """The player (index into the match's player list) in each seat of game ``index``."""
    shift = index % players
    return tuple((seat + shift) % players for seat in range(players))


@attrs.frozen
class Scheduled:
    """One game of a match: its `GameSpec` and which match player sits in each seat."""

    spec: GameSpec
    seating: tuple[int, ...]

    @property
    def index(self) -> int:
        return self.spec.index


@attrs.frozen
class Schedule:
    """Every game of a match, in the order they are handed out."""

    match_id: str
    game: str
    players: tuple[str, ...]
    settings: Mapping[str, Any]
    seed: int
    games: tuple[Scheduled, ...]
    field: Field | None = None
    """The tournament whose games (so far) these are; None: a match of one table (every
    player in every game), all its games known at the start."""

    def __len__(self) -> int:
        return len(self.games)


def make_schedule(
    *,
    match_id: str,
    game: str,
    players: Sequence[str],
    settings: Mapping[str, Any],
    games: int,
    seed: int,
    openings: Sequence[Any],
    deal: bool = False,
) -> Schedule:
    """The schedule of ``games`` games; ``openings`` come from the kit (`TournamentKit.openings`);
    an empty list means every game starts from the usual position (None). Round ``r``
    plays opening ``r``; with ``deal`` game ``i`` plays opening ``i`` (`game_spec`)."""
    if len(players) < 1:
        raise ValueError("a match needs players")
    if games < 0:
        raise ValueError("the number of games cannot be negative")
    count = len(players)
    scheduled = []
    for index in range(games):
        order = seating(index, count)
        spec = game_spec(
            match_id=match_id,
            index=index,
            settings=settings,
            players=[players[player] for player in order],
            seed=seed,
            openings=openings,
            pair=index // count,
            deal=deal,
        )
        scheduled.append(Scheduled(spec, order))
    return Schedule(match_id, game, tuple(players), dict(settings), seed, tuple(scheduled))


def display_names(players: Sequence[str]) -> tuple[str, ...]:
    """The players' names for tables: their specs, a repeated one numbered (``ai:4 #2``)."""
    names = []
    for index, spec in enumerate(players):
        repeats = players[:index].count(spec)
        names.append(f"{spec} #{repeats + 1}" if repeats else spec)
    return tuple(names)


# -- tournaments ---------------------------------------------------------------------------------


@attrs.frozen
class Field:
    """A tournament: its `Plan` (format) and what every game of it shares. Its games are
    known stage by stage (`games`): table ``t`` (numbered across the stages) plays games
    ``offset(t) ... offset(t) + len(table) - 1``, one per seat order (`seating` over the
    table's players), all from opening ``t`` (reused in turn when there are fewer)."""

    plan: Plan
    match_id: str
    game: str
    players: tuple[str, ...]
    settings: Mapping[str, Any]
    seed: int
    openings: tuple[Any, ...] = ()
    deal: bool = False
    """Each game its own opening and chance (`game_spec`), not its table's."""
    per_table: int = 0
    """Games each table plays, the seats rotated from game to game (0: one per seat order,
    `Table.games`; an operator's round-robin of ``hub serve`` plays any number)."""
    _stages: dict[tuple[Any, ...], Stage | None] = attrs.field(
        factory=dict, eq=False, repr=False, init=False
    )
    """`Plan.stage` by the results it was given (the page asks for the stages every second,
    and drawing tables of a large field takes a while)."""

    def table_games(self, table: Table) -> int:
        """The games ``table`` plays (`per_table`, else one per seat order)."""
        return self.per_table or len(table.players)

    def next_stage(self, played: Sequence[tuple[Stage, Sequence[TableResult]]]) -> Stage | None:
        """`Plan.stage` of ``played``, drawn once for the same stages and results."""
        key = tuple(
            (stage, tuple(tuple(sorted(result.items())) for result in results))
            for stage, results in played
        )
        if key not in self._stages:
            self._stages[key] = self.plan.stage(played)
        return self._stages[key]

    def stages(self, points: Mapping[int, Mapping[int, float]]) -> list[Stage]:
        """The stages so far, given each finished game's points by player (`GameOutcome.points`):
        up to the first one not complete."""
        return self._walk(points)[0]

    def over(self, points: Mapping[int, Mapping[int, float]]) -> bool:
        """Whether every stage the tournament has was played to a result."""
        stages, results = self._walk(points)
        return len(results) == sum(len(stage.tables) for stage in stages) and (
            self.next_stage(self._played(stages, results)) is None
        )

    @staticmethod
    def _played(
        stages: Sequence[Stage], results: Mapping[int, TableResult]
    ) -> list[tuple[Stage, Sequence[TableResult]]]:
        played: list[tuple[Stage, Sequence[TableResult]]] = []
        number = 0
        for stage in stages:
            played.append((stage, [results[number + t] for t in range(len(stage.tables))]))
            number += len(stage.tables)
        return played

    def table_results(self, points: Mapping[int, Mapping[int, float]]) -> dict[int, TableResult]:
        """The finished tables' results (a table is finished when all its games are)."""
        return self._walk(points)[1]

    def _walk(
        self, points: Mapping[int, Mapping[int, float]]
    ) -> tuple[list[Stage], dict[int, TableResult]]:
        stages: list[Stage] = []
        results: dict[int, TableResult] = {}
        played: list[tuple[Stage, Sequence[TableResult]]] = []
        number = index = 0
        while (stage := self.next_stage(played)) is not None:
            stages.append(stage)
            finished: list[TableResult] = []
            for table in stage.tables:
                games = range(index, index + self.table_games(table))
                if all(game in points for game in games):
                    total: dict[int, float] = dict.fromkeys(table.players, 0.0)
                    for game in games:
                        for player, share in points[game].items():
                            total[player] = total.get(player, 0.0) + share
                    results[number] = total
                    finished.append(total)
                number, index = number + 1, index + self.table_games(table)
            if len(finished) < len(stage.tables):
                break
            played.append((stage, finished))
        return stages, results

    def reached(self, points: Mapping[int, Mapping[int, float]]) -> list[int] | None:
        """Each player's knockout round reached so far (0: the first; the winner's is one
        more than the final's); None if the format is not a knockout."""
        if self.plan.format != KNOCKOUT:
            return None
        stages, results = self._walk(points)
        if len(results) < sum(len(stage.tables) for stage in stages):
            stages = stages[:-1]  # (the stage being played)
        played = self._played(stages, results)
        return bracket(len(played), self.plan.players, self.plan.rounds, played)[1]

    def winner(self, points: Mapping[int, Mapping[int, float]]) -> int | None:
        """The winner of a finished knockout (None: not over, or not a knockout)."""
        reached = self.reached(points)
        if reached is None or not self.over(points):
            return None
        return max(range(len(reached)), key=lambda player: (reached[player], -player))

    def games(self, points: Mapping[int, Mapping[int, float]]) -> list[Scheduled]:
        """Every game of the stages so far (`stages`), in order."""
        scheduled: list[Scheduled] = []
        number = 0
        for stage in self.stages(points):
            for table in stage.tables:
                size = len(table.players)
                for game in range(self.table_games(table)):
                    order = tuple(table.players[(seat + game) % size] for seat in range(size))
                    index = len(scheduled)
                    spec = game_spec(
                        match_id=self.match_id,
                        index=index,
                        settings=self.settings,
                        players=[self.players[player] for player in order],
                        seed=self.seed,
                        openings=self.openings,
                        pair=number,
                        deal=self.deal,
                    )
                    scheduled.append(Scheduled(spec, order))
                number += 1
        return scheduled

    def schedule(self, points: Mapping[int, Mapping[int, float]]) -> Schedule:
        """The `Schedule` of the games known so far."""
        return Schedule(
            self.match_id,
            self.game,
            self.players,
            dict(self.settings),
            self.seed,
            tuple(self.games(points)),
            self,
        )
