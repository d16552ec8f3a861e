"""The clubs plug-in: the declaration (game.py) with clubs' own ``hub play clubs`` (=
clubhub's command line) and ``hub demo clubs``; ``hub serve clubs`` (the JSON bot protocol's
lobby), ``hub match clubs`` (every game's kit, with the declaration's match hooks), records
and the web board come from the declaration. ``hub play
clubs`` whose first argument is a seat of the generic play (``web``, ``human``, ``ai:1``,
``random``, ``tcp``), not a deck file, is the generic play: ``hub play clubs web ai ai --web
0``."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.commands.plugin import lazy
from hub.declared.plugin import declared_plugin
from hub.games.clubs.game import ClubsGame

GENERIC_SEATS = ("web", "human", "ai", "random", "tcp")


def play(args: Sequence[str]) -> int:
    """``hub play clubs``: clubhub's command line, or the generic play when it starts with a
    seat spec rather than a deck file."""
    if args and args[0].partition(":")[0] in GENERIC_SEATS:
        from hub.declared.play import main as generic

        return generic(ClubsGame, args)
    from hub.games.clubs.hub import play_main

    return play_main(args)


plugin = declared_plugin(
    ClubsGame,
    play=play,
    demo=lazy("hub.games.clubs.demo:main"),
)
