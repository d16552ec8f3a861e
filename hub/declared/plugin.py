"""A declared game's plug-in: the verbs hub derives from a declaration.

`declared_plugin` makes the `hub.core.commands.plugin.GamePlugin` of a declared game: ``hub play``
(`hub.declared.play`), ``hub serve`` (`hub.declared.serve`) and ``hub match``
(`hub.declared.kit.DeclaredKit`), unless the plug-in gives its own command or leaves one
out (``serve=None``). `discover_games` is `hub.core.commands.plugin.discover` with these verbs for a
declaration an entry point names by itself. Each verb imports its module when it runs, so
that ``hub games`` stays fast however many games are installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hub.core.commands.plugin import Command, GamePlugin, PluginFailure, discover, lazy_object
from hub.core.play.kit import TournamentKit

if TYPE_CHECKING:
    from hub.core.play.game import Game

Resolve = Callable[[], "type[Game[Any, Any]]"]


def declared_plugin(game: type[Game[Any, Any]] | str, **commands: Any) -> GamePlugin:
    """The plug-in of a declared game: ``hub play``, ``hub serve`` and ``hub match``
    derived from the declaration, unless ``commands`` give their own (or None: left out).

    ``game`` may be ``"package.module:Class"`` instead of the class, with ``name=`` and
    ``summary=`` among ``commands``: the declaration is then imported only when a verb or a
    picture needs it (``hub games`` imports every plug-in module)."""
    if isinstance(game, str):
        name, summary = str(commands.pop("name")), str(commands.pop("summary"))
        resolve: Resolve = lazy_object(game)
        known, ref = None, game
    else:
        name, summary = game.name, game.summary
        known, ref = game, ""

        def resolve() -> type[Game[Any, Any]]:
            return game

    derived: dict[str, Any] = {
        "play": _play(name, resolve),
        "serve": _serve(name, resolve),
        "match": _kit(resolve),
    }
    derived.update(commands)
    return GamePlugin(name=name, summary=summary, game=known, game_ref=ref, **derived)


def discover_games(failures: list[PluginFailure] | None = None) -> dict[str, GamePlugin]:
    """Every installed game, a declaration named by itself given its derived verbs."""
    return discover(failures, declared=declared_plugin)


def _play(name: str, resolve: Resolve) -> Command:
    def command(args: Sequence[str]) -> int:
        from hub.declared.play import main

        return main(resolve(), args)

    command.__qualname__ = command.__name__ = f"hub.declared.play.main({name})"
    return command


class DeclaredServe:
    """``hub serve GAME`` of a declared game: a `Command`, which ``hub`` also calls with the
    operator's round-robin (`hub.declared.serve.OperatorMaker`, from a layer above)."""

    def __init__(self, name: str, resolve: Resolve) -> None:
        self.resolve = resolve
        self.__qualname__ = self.__name__ = f"hub.declared.serve.main({name})"

    def __call__(self, args: Sequence[str], operators: Any = None) -> int:
        from hub.declared.serve import main

        return main(self.resolve(), args, operators)


def _serve(name: str, resolve: Resolve) -> Command:
    return DeclaredServe(name, resolve)


def _kit(resolve: Resolve) -> Callable[[], TournamentKit]:
    def get() -> TournamentKit:
        from hub.declared.kit import DeclaredKit

        return DeclaredKit(resolve())

    return get
