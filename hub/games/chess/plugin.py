"""The chess plug-in: ``hub play chess`` (the console), ``hub engine`` (UCI), its demo and
``hub match chess``."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy, lazy_object

plugin = GamePlugin(
    name="chess",
    summary="chess in the terminal, people or computer levels 1-4 (hub engine: our UCI engine)",
    play=lazy("hub.games.chess.console:main"),
    demo=lazy("hub.games.chess.demo:main"),
    tools={"engine": lazy("hub.games.chess.engine_server:main")},
    match=lazy_object("hub.games.chess.match:kit"),
)
