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

import functools
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from hub.core.play.game import Game
    from hub.core.play.kit import TournamentKit

Command = Callable[[Sequence[str]], int]
ENTRY_POINT_GROUP = "hub.games"


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
    """The game's declaration (`hub.core.play.game.Game`), when it has one: its pictures draw its
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
    from hub.core.play.game import Game

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
