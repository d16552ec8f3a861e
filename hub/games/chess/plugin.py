"""The chess plug-in: the declared game (`hub.chess.game.ChessGame`: ``hub games show``, the
web board, PGN export) with its own ``hub play chess`` (the console), ``hub engine`` (UCI),
its demo and ``hub match chess`` (UCI engines, the built-in levels and JSON bots). No ``hub
serve chess``: chess over TCP is ``hub serve uqchess`` (docs/decisions.md)."""

from __future__ import annotations

from hub.chess.game import ChessGame
from hub.core.plugin import GamePlugin, lazy, lazy_object

plugin = GamePlugin.declared(
    ChessGame,
    play=lazy("hub.games.chess.console:main"),
    serve=None,
    demo=lazy("hub.games.chess.demo:main"),
    tools={"engine": lazy("hub.games.chess.engine_server:main")},
    match=lazy_object("hub.games.chess.match:kit"),
)
