"""The chess plug-in: ``hub play chess`` (the console), ``hub engine`` (UCI) and its demo."""

from __future__ import annotations

from hub.core.plugin import GamePlugin, lazy

plugin = GamePlugin(
    name="chess",
    summary="chess in the terminal, people or computer levels 1-4 (hub engine: our UCI engine)",
    play=lazy("hub.games.uqchess.console:main"),
    demo=lazy("hub.games.uqchess.chess_demo:main"),
    tools={"engine": lazy("hub.games.uqchess.uci:main")},
)
