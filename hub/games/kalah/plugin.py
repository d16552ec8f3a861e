"""The Kalah plug-in: ``hub serve kalah``, ``hub play kalah`` and ``hub demo kalah``."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy

plugin = GamePlugin(
    name="kalah",
    summary="Kalah (mancala) over TCP: server, AI and human clients, pie rule, random layouts",
    play=lazy("hub.games.kalah.client:main"),
    serve=lazy("hub.games.kalah.server:main"),
    demo=lazy("hub.games.kalah.demo:main"),
)
