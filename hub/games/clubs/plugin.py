"""The clubs plug-in: ``hub play clubs`` (= clubhub) and ``hub demo clubs``."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy

plugin = GamePlugin(
    name="clubs",
    summary="a trick-taking card game for 2-4 programs over pipes (clubhub, clubber)",
    play=lazy("hub.games.clubs.hub:main"),
    demo=lazy("hub.games.clubs.demo:main"),
)
