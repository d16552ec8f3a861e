"""The clubs plug-in: ``hub play clubs`` (= clubhub), ``hub demo clubs`` and ``hub match``."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy, lazy_object

plugin = GamePlugin(
    name="clubs",
    summary="a trick-taking card game for 2-4 programs over pipes (clubhub, clubber)",
    play=lazy("hub.games.clubs.hub:play_main"),
    demo=lazy("hub.games.clubs.demo:main"),
    match=lazy_object("hub.games.clubs.match:kit"),
)
