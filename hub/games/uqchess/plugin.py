"""The UQChess plug-in: ``hub serve uqchess`` (= uqchessserver) and ``hub demo uqchess``."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.plugin import GamePlugin


def _serve(args: Sequence[str]) -> int:
    from hub.games.uqchess.server import main

    return main(args, fallback=True)


def _demo(args: Sequence[str]) -> int:
    from hub.games.uqchess.demo import main

    return main(args)


plugin = GamePlugin(
    name="uqchess",
    summary="networked chess between clients and Stockfish (uqchessserver, uqchessclient)",
    serve=_serve,
    demo=_demo,
)
