"""The clubs plug-in: ``hub play clubs`` (= clubhub) and ``hub demo clubs``."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.plugin import GamePlugin


def _play(args: Sequence[str]) -> int:
    from hub.games.clubs.hub import main

    return main(args)


def _demo(args: Sequence[str]) -> int:
    from hub.games.clubs.demo import main

    return main(args)


plugin = GamePlugin(
    name="clubs",
    summary="a trick-taking card game for 2-4 programs over pipes (clubhub, clubber)",
    play=_play,
    demo=_demo,
)
