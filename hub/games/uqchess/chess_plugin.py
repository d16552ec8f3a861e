"""The chess plug-in: ``hub play chess`` (the console), ``hub engine`` (UCI) and its demo."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.plugin import GamePlugin


def _play(args: Sequence[str]) -> int:
    from hub.games.uqchess.console import main

    return main(args)


def _engine(args: Sequence[str]) -> int:
    from hub.games.uqchess.uci import main

    return main(args)


def _demo(args: Sequence[str]) -> int:
    from hub.games.uqchess.chess_demo import main

    return main(args)


plugin = GamePlugin(
    name="chess",
    summary="chess in the terminal, people or computer levels 1-4 (hub engine: our UCI engine)",
    play=_play,
    demo=_demo,
    tools={"engine": _engine},
)
