"""The Kalah plug-in: the declaration (`hub.games.kalah.game.KalahGame`) with Kalah's own
``hub serve kalah`` (kalah.md over TCP), ``hub demo kalah`` and ``hub play kalah``, which is
the generic play of every declared game when seat specs are given (``hub play kalah human
ai:9``) and Kalah's client or local game otherwise (``hub play kalah [--connect HOST:PORT]
--ai|--human``); see `play`. ``hub match kalah`` is every game's kit, with the declaration's
match hooks."""

from __future__ import annotations

from collections.abc import Sequence

from hub.core.commands.plugin import lazy
from hub.declared.plugin import declared_plugin

GAME = "hub.games.kalah.game:KalahGame"
"""The declaration, imported only when needed (``hub games`` imports this module)."""


def play(args: Sequence[str]) -> int:
    """``hub play kalah``: seat specs among the arguments (anything that is neither an option
    of Kalah's client nor an option's value) go to the generic ``hub play``."""
    from hub.games.kalah.options import has_seat_specs

    if has_seat_specs(args):
        from hub.declared.play import main as generic
        from hub.games.kalah.game import KalahGame

        return generic(KalahGame, args)
    from hub.games.kalah.play import main

    return main(args)


plugin = declared_plugin(
    GAME,
    name="kalah",
    summary="Kalah (mancala) over TCP: server, AI and human clients, pie rule, random layouts",
    play=play,
    serve=lazy("hub.games.kalah.server:main"),
    demo=lazy("hub.games.kalah.demo:main"),
)
