"""Game plug-ins: what a game offers the ``hub`` command, found through entry points.

A plug-in is a `GamePlugin` object published in the ``hub.games`` entry-point group
(``[project.entry-points."hub.games"] mygame = "mypkg.plugin:plugin"``), or a declared
game's class itself. Its commands take the remaining command-line arguments and return an
exit status; they should import their implementation lazily so that ``hub games`` stays
fast however many games are installed.

The verbs every declared game gets (``hub play``, ``hub serve``, ``hub match``) are made in
the layer above, `hub.declared.plugin` (this module imports nothing outside hub.core):
`discover` takes its ``declared`` function, which turns a declaration into its plug-in;
without one, a declaration found by itself is a plug-in of its pictures and exports alone
(what records and the web view read).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs

if TYPE_CHECKING:
    import argparse
    from contextlib import AbstractAsyncContextManager

    from hub.core.bus import EventBus
    from hub.core.events import GameRecord
    from hub.core.game import Game

Command = Callable[[Sequence[str]], int]
ENTRY_POINT_GROUP = "hub.games"
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
    """The seed of the game's chance during play (`hub.core.chance`): the game's own, or
    with ``--duplicate`` its game pair's (None: a fresh secret one). Secret as `seed`."""


RECORD_SEEDS = "seeds"
"""The key of a finished record's settings that holds its game's seeds (``{"players": S,
"chance": C}``, `GameSpec.seed` and `GameSpec.chance_seed`), absent while it runs."""


class TournamentKit(Protocol):
    """What ``hub match`` needs of a game: its options, its players, one whole game."""

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
    are enough of them: each opening is drawn up to ``tries`` times before a repeat is kept.
    ``key``: what makes two openings the same (default: equal values); the default setup
    gives the position an opening leads to, since two seeds may lead to one position."""
    same: Callable[[T], Hashable] = key or _json_key
    chosen: list[T] = []
    seen: set[Hashable] = set()
    for _ in range(count):
        for _ in range(tries):
            opening = draw()
            found = same(opening)
            if found not in seen:
                break
        chosen.append(opening)
        seen.add(found)
    return chosen


def _json_key(value: Any) -> Hashable:
    """A JSON value as a hashable key (equal values, equal keys)."""
    return json.dumps(value, sort_keys=True, default=repr)


@attrs.frozen
class GamePlugin:
    """A game: its name, a one-line summary and the ``hub`` verbs it supports."""

    name: str
    summary: str
    play: Command | None = None
    serve: Command | None = None
    demo: Command | None = None
    tools: Mapping[str, Command] = attrs.field(factory=dict)
    """Top-level verbs the game adds to ``hub`` (e.g. ``{"engine": ...}`` for ``hub engine``)."""
    match: Callable[[], TournamentKit] | None = None
    """The game's `TournamentKit` for ``hub match`` (use `lazy_object` to import it when needed).
    A declared game gets the derived one (`hub.declared.kit`), whose facets on the declaration
    cover what hub's own games do differently; none of them gives its own."""
    game: type[Game[Any, Any]] | None = None
    """The game's declaration (`hub.core.game.Game`), when it has one: its pictures draw its
    positions in ``hub games show`` and the web view. Read it with `declaration`."""
    game_ref: str = ""
    """``"package.module:Class"``: a declaration imported only when `declaration` is asked
    (a plug-in module that must stay light; see `hub.declared.plugin.declared_plugin`)."""

    def declaration(self) -> type[Game[Any, Any]] | None:
        """The game's declaration: `game`, or the class `game_ref` names (imported now)."""
        if self.game is not None or not self.game_ref:
            return self.game
        found: type[Game[Any, Any]] = lazy_object(self.game_ref)()
        return found


def lazy(target: str) -> Command:
    """A command that imports ``"package.module:function"`` only when it is run.

    Plug-in modules are imported by every ``hub`` invocation (to list the games), so they
    must not import their game's implementation up front.
    """
    module_name, _, function_name = target.partition(":")
    if not module_name or not function_name:
        raise ValueError(f"lazy() needs 'module:function', not {target!r}")

    def command(args: Sequence[str]) -> int:
        function: Command = getattr(import_module(module_name), function_name)
        return function(args)

    command.__qualname__ = command.__name__ = f"lazy({target})"
    return command


def lazy_object(target: str) -> Callable[[], Any]:
    """A function that imports ``"package.module:name"`` when called and returns the object."""
    module_name, _, name = target.partition(":")
    if not module_name or not name:
        raise ValueError(f"lazy_object() needs 'module:name', not {target!r}")

    def get() -> Any:
        return getattr(import_module(module_name), name)

    return get


class PluginError(Exception):
    """An entry point that does not load or is not a `GamePlugin`."""


@attrs.frozen
class PluginFailure:
    """An installed plug-in that did not load: its entry point's name and target, and why."""

    name: str
    target: str
    error: str

    def words(self) -> str:
        """``the game 'nim' failed to load (nimgame:Nim): NameError: ...``: what a verb that
        names the game says (``hub play|serve|match|demo GAME``), as ``hub games`` lists it."""
        return f"the game {self.name!r} failed to load ({self.target}): {self.error}"


Declare = Callable[["type[Game[Any, Any]]"], GamePlugin]
"""A declared game's plug-in, its verbs derived (`hub.declared.plugin.declared_plugin`)."""


def discover(
    failures: list[PluginFailure] | None = None, *, declared: Declare | None = None
) -> dict[str, GamePlugin]:
    """Every installed game plug-in by name. An entry point that fails to load is left out
    (a broken third-party plug-in must not break hub) and, if ``failures`` is given, told
    there, one `PluginFailure` each, so that ``hub games`` can say so. An entry point that
    names a declared game's class is made a plug-in by ``declared`` (see `load`)."""
    plugins: dict[str, GamePlugin] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            plugin = load(entry.load(), declared)
        except Exception as exc:
            if failures is not None:
                failures.append(PluginFailure(entry.name, entry.value, error_line(exc)))
            continue
        plugins.setdefault(plugin.name, plugin)
    return dict(sorted(plugins.items()))


def plugin_failures() -> list[PluginFailure]:
    """The installed plug-ins that fail to load, each with its error (for ``hub games``)."""
    failures: list[PluginFailure] = []
    discover(failures)
    return failures


def load_failure(name: str) -> PluginFailure | None:
    """Why the installed plug-in ``name`` (its entry point's name) fails to load; None if no
    plug-in of that name fails. A verb that names a game it cannot find asks this, so that a
    broken plug-in is reported as broken, not as a game that is not there."""
    return next((failure for failure in plugin_failures() if failure.name == name), None)


def error_line(exc: BaseException) -> str:
    """An exception in one line: ``NameError: name 'x' is not defined``."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load(obj: object, declared: Declare | None = None) -> GamePlugin:
    """The plug-in an entry point names: a `GamePlugin`, or a declared game's class, made a
    plug-in by ``declared`` (without it: one of its declaration alone, no verbs)."""
    if isinstance(obj, GamePlugin):
        return obj
    from hub.core.game import Game

    if isinstance(obj, type) and issubclass(obj, Game) and obj.name:
        if declared is not None:
            return declared(obj)
        return GamePlugin(name=obj.name, summary=obj.summary, game=obj)
    raise PluginError(f"{obj!r} is neither a GamePlugin nor a declared Game")


@functools.cache
def pictures(name: str) -> Game[Any, Any] | None:
    """The installed game ``name``'s declaration on its default settings, if it has one: its
    `Game.pictures` draw any of its views (records, the web view). None for a
    game without a declaration, or one whose defaults do not build."""
    plugin = discover().get(name)
    if plugin is None:
        return None
    try:
        game = plugin.declaration()
        return None if game is None else game()
    except Exception:
        return None
