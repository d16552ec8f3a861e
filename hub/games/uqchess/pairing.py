"""Matchmaking by colour (pure) on core's `hub.core.io.lobby.Lobby`, the one place that decides
pairings: compatible requests, the client that connected first first."""

from __future__ import annotations

from hub.core.io.lobby import Lobby
from hub.games.uqchess.seats import Player, Seek


def compatible(a: Seek, b: Seek) -> bool:
    """The spec's compatible requests: white+black, a colour + either, either+either."""
    return a.choice == "either" or b.choice == "either" or a.choice != b.choice


def new_lobby() -> Lobby[Seek]:
    """Pairs compatible requests, the waiting client that connected first first."""
    return Lobby(2, fits=compatible, rank=lambda seek: seek.player.number)


def colours(waiter: Seek, newcomer: Seek) -> tuple[Player, Player]:
    """(white, black) of a pair: each gets the colour it asked for; with either+either the
    client that was waiting gets white and the newcomer black."""
    theirs, mine = waiter.choice, newcomer.choice
    if theirs == "white" or (theirs == "either" and mine in ("either", "black")):
        return waiter.player, newcomer.player
    return newcomer.player, waiter.player
