"""The Kalah plug-in: ``hub serve kalah``, ``hub play kalah``, ``hub demo kalah`` and its
`hub.core.plugin.MatchKit` for ``hub match``."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy, lazy_object

plugin = GamePlugin(
    name="kalah",
    summary="Kalah (mancala) over TCP: server, AI and human clients, pie rule, random layouts",
    play=lazy("hub.games.kalah.client:main"),
    serve=lazy("hub.games.kalah.server:main"),
    demo=lazy("hub.games.kalah.demo:main"),
    match=lazy_object("hub.games.kalah.match:kit"),
)
