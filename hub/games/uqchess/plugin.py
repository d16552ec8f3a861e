"""The UQChess plug-in: ``hub serve uqchess`` (= uqchessserver) and ``hub demo uqchess``."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.commands.plugin import GamePlugin, lazy


def _serve(args: Sequence[str]) -> int:
    # Not lazy(): `hub serve uqchess` is uqchessserver with fallback=True (the built-in
    # engine when Stockfish is missing).
    from hub.games.uqchess.server import main

    return main(args, fallback=True)


plugin = GamePlugin(
    name="uqchess",
    summary="networked chess between clients and Stockfish (uqchessserver, uqchessclient)",
    serve=_serve,
    demo=lazy("hub.games.uqchess.demo:main"),
)
