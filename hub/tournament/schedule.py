"""The games of a match, decided before any is played (pure: no I/O, no clock, no global RNG).

A match between ``n`` players is played in *rounds* of ``n`` games. Every game of a round
starts from the same opening, and the seat order is rotated by one from game to game, so
over a round each player sits in each seat exactly once: with two players the sides (colour,
first move) are swapped; with three or four (clubs) everyone leads from every seat. Round
``r`` plays opening ``r mod len(openings)``. Game ``i`` is game ``i mod n`` of round
``i // n``; with ``--games`` a multiple of ``n`` every player has every seat equally often.

A match has an id (`new_match_id`), each game the id ``MATCH-INDEX`` (`game_id`), so a
resumed match plays the missing games under the same ids; without ``--seed`` the openings'
seed is derived from the match id (`seed_of`), so ``--resume`` replays the same openings.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub.core.plugin import GameSpec


def new_match_id() -> str:
    """A fresh, globally unique match id (32 hex digits)."""
    return uuid.uuid4().hex


def seed_of(match_id: str) -> int:
    """The default seed of a match: a number taken from its id (stable across a resume)."""
    digits = "".join(c for c in match_id.lower() if c in "0123456789abcdef")[:8]
    return int(digits or "0", 16)


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
) -> Schedule:
    """The schedule of ``games`` games; ``openings`` come from the kit (`TournamentKit.openings`);
    an empty list means every game starts from the usual position (None)."""
    if len(players) < 1:
        raise ValueError("a match needs players")
    if games < 0:
        raise ValueError("the number of games cannot be negative")
    count = len(players)
    chosen = list(openings) or [None]
    scheduled = []
    for index in range(games):
        order = seating(index, count)
        opening = chosen[(index // count) % len(chosen)]
        spec = GameSpec(
            game_id=game_id(match_id, index),
            settings=dict(settings),
            players=tuple(players[player] for player in order),
            opening=opening,
            index=index,
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
