"""Game plug-ins: what a game offers the ``hub`` command, found through entry points.

A plug-in is a `GamePlugin` object published in the ``hub.games`` entry-point group
(``[project.entry-points."hub.games"] mygame = "mypkg.plugin:plugin"``). Its commands take
the remaining command-line arguments and return an exit status; they should import their
implementation lazily so that ``hub games`` stays fast however many games are installed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from importlib.metadata import entry_points

import attrs

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


class PluginError(Exception):
    """An entry point that does not load or is not a `GamePlugin`."""


def discover() -> dict[str, GamePlugin]:
    """Every installed game plug-in by name (entry points that fail to load are skipped)."""
    plugins: dict[str, GamePlugin] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            plugin = load(entry.load())
        except Exception:  # a broken third-party plug-in must not break hub
            continue
        plugins.setdefault(plugin.name, plugin)
    return dict(sorted(plugins.items()))


def load(obj: object) -> GamePlugin:
    if isinstance(obj, GamePlugin):
        return obj
    raise PluginError(f"{obj!r} is not a GamePlugin")
