"""The chess plug-in: the declared game (`hub.games.chess.game.ChessMatchGame`, the library's
`ChessGame` with the plug-in's seats and match hooks: ``hub games show``, the
web board, PGN export) with its own ``hub play chess`` (the console), ``hub engine`` (UCI),
and its demo; ``hub match chess`` (UCI engines, the built-in levels and JSON bots) is every
game's kit with the declaration's match hooks, and ``hub play chess SEAT SEAT ...`` the
generic play (seats such as ``web``, ``ai:3``, ``uci:stockfish``). No ``hub serve chess``:
chess over TCP is ``hub serve uqchess`` (docs/decisions.md)."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.commands.plugin import lazy
from hub.declared.plugin import declared_plugin
from hub.games.chess.game import ChessMatchGame


def play(args: Sequence[str]) -> int:
    """``hub play chess``: the console (which takes options only), or, when seat specs are
    given (``hub play chess web uci:stockfish --web 0``), the generic play of every declared
    game (docs/chess.md)."""
    if any(not arg.startswith("-") for arg in args[:1]):
        from hub.declared.play import main as generic

        return generic(ChessMatchGame, args)
    from hub.games.chess.console import main

    return main(args)


plugin = declared_plugin(
    ChessMatchGame,
    play=play,
    serve=None,
    demo=lazy("hub.games.chess.demo:main"),
    tools={"engine": lazy("hub.games.chess.engine_server:main")},
)
