"""What a game declares to ``hub match``: `GameSpec` (one game of a match as plain values),
`TournamentKit` (a game's options, players, openings and one whole game), `kit_session`
and `draw_distinct` (distinct seeded openings).

The tournament's vocabulary, below the declaration (`hub.core.play.game`'s `MatchSetup` draws its
openings with `draw_distinct`, a game's seat kinds make seats from a `GameSpec`), while
finding the plug-ins that offer kits stays in `hub.core.commands.plugin`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs

if TYPE_CHECKING:
    import argparse
    from contextlib import AbstractAsyncContextManager

    from hub.core.model.bus import EventBus
    from hub.core.model.events import GameRecord

DRAW_TRIES = 20
"""`draw_distinct`'s draws per opening before it accepts a repeat."""
T = TypeVar("T")


@attrs.frozen
class GameSpec:
    """Everything needed to play one game of a match, as plain JSON-able values, so that a
    game can be played in another process or on another machine (``hub match --cluster``)."""

    game_id: str
    settings: dict[str, Any]
    players: tuple[str, ...]
    """Player specs in seat order (``ai:4``, ``clubber``, ``stockfish``, ``human``, ...)."""
    opening: Any = None
    """The opening to start from (chess: moves or a FEN; Kalah: a layout; None: the usual)."""
    index: int = 0
    """The game's number in its match (0-based)."""
    seed: int | None = None
    """The seed of the game's built-in players' random choices (each seat's derived from
    it), from the match's seed and the game's index, so a match replays with ``--seed``
    (None: from the game id). Secret: it is recorded only once the game is over."""
    chance_seed: int | None = None
    """The seed of the game's chance during play (`hub.core.play.chance`): the game's own, or
    with ``--duplicate`` its game pair's (None: a fresh secret one). Secret as `seed`."""


RECORD_SEEDS = "seeds"
"""The key of a finished record's settings that holds its game's seeds (``{"players": S,
"chance": C}``, `GameSpec.seed` and `GameSpec.chance_seed`), absent while it runs."""


class TournamentKit(Protocol):
    """What ``hub match`` needs of a game: its options, its players, one whole game.

    Optional: ``session()`` (`kit_session`), and ``warm()``, which a match's worker process
    calls as it starts, before its first game arrives, to import what ``play`` will need."""

    @property
    def seats(self) -> tuple[int, int]:
        """The fewest and the most players a game takes."""
        ...

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        """Add the game's own options (``--holes``, ``--tc``, ...) to ``hub match``."""
        ...

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        """The game's settings from the parsed options (JSON-able; recorded with each game)."""
        ...

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        """None if ``spec`` names a player of this game, else a message saying what is wrong."""
        ...

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        """``count`` openings chosen from ``seed`` (each is played with the seats swapped),
        distinct while the game has enough of them, so that deterministic players do not
        replay one game (``hub match`` counts repeated games and warns about them); an
        empty list: every game from the usual start."""
        ...

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        """Play one game through the core match loop, publishing to ``events``; every
        process it starts is reaped before it returns (or is cancelled)."""
        ...


def kit_session(kit: TournamentKit) -> AbstractAsyncContextManager[object]:
    """The kit's optional ``session()``, else a context that does nothing.

    A kit may offer ``session()``, an async context manager inside which its ``play`` may keep
    what it started (chess: its engines, given ``ucinewgame`` between games, as fastchess and
    cutechess do) from one game to the next; leaving the session reaps all of it. One slot of
    ``hub match`` (a worker process, or the in-process runner) plays all its games inside one
    session; a ``play`` outside any session reaps everything before it returns."""
    session: Callable[[], AbstractAsyncContextManager[object]] | None = getattr(
        kit, "session", None
    )
    return session() if session is not None else contextlib.nullcontext()


def draw_distinct(
    draw: Callable[[], T],
    count: int,
    tries: int = DRAW_TRIES,
    key: Callable[[T], Hashable] | None = None,
) -> list[T]:
    """``count`` results of ``draw()`` (a seeded generator's openings), distinct while there
    are enough of them. The draws share a budget of ``tries`` a result: the first openings
    take one draw each, so the last of a small set can take many (the 49 two-ply starts of
    Connect Four are all found for 49 pairs, where 20 draws each found 47); once the budget
    is spent, a repeat is kept. ``key``: what makes two openings the same (default: equal
    values); the default setup gives the position an opening leads to, since two seeds may
    lead to one position."""
    same: Callable[[T], Hashable] = key or _json_key
    chosen: list[T] = []
    seen: set[Hashable] = set()
    budget = tries * count
    for _ in range(count):
        while True:
            opening = draw()
            found = same(opening)
            budget -= 1
            if found not in seen or budget <= 0:
                break
        chosen.append(opening)
        seen.add(found)
    return chosen


def _json_key(value: Any) -> Hashable:
    """A JSON value as a hashable key (equal values, equal keys)."""
    return json.dumps(value, sort_keys=True, default=repr)
