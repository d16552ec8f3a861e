"""The clubs plug-in: the declaration (game.py) with clubs' own ``hub play clubs`` (=
clubhub), ``hub demo clubs`` and ``hub match`` kit; ``hub serve clubs`` (the JSON bot
protocol's lobby), records and the web board come from the declaration."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy, lazy_object
from hub.games.clubs.game import ClubsGame

plugin = GamePlugin.declared(
    ClubsGame,
    play=lazy("hub.games.clubs.hub:play_main"),
    demo=lazy("hub.games.clubs.demo:main"),
    match=lazy_object("hub.games.clubs.match:kit"),
)
