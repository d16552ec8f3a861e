"""The games a ``hub serve GAME`` server is playing: one owner of its running matches.

Every game a `hub.declared.serve.GameServer` starts (from its queue, against a built-in
player, a friend's, a rematch, an adjourned game played on, a round-robin's) is played
through `Playing`, which counts it, holds it while it runs, and so can wait for every game
to end (`drained`, the site's drain) or end them all at once (`adjourn`); and which says
whether a new game may start (`closing`).
"""

from __future__ import annotations

from typing import Any

import attrs
import trio

from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination
from hub.core.play.match import Match
from hub.core.play.vocabulary import Seat
from hub.declared.browser import play_attended


@attrs.define(eq=False)
class Playing:
    """The matches being played (`running`), how many were started (`games`), and whether
    new ones may start (`closing`)."""

    running: set[Match[Any, Any]] = attrs.Factory(set)
    """The games being played."""
    games: int = 0
    """How many games were started (the site's ``/health``)."""
    closing: bool = False
    """Set when the server closes: no new game starts (those waiting to are called off)."""
    _quiet: trio.Event = attrs.Factory(trio.Event)
    """Set when a game ends (`drained` waits on it)."""

    async def attended(
        self, match: Match[Any, Any], seats: list[Seat[Any, Any]], grace: float
    ) -> None:
        """Play ``match`` to its end, its people in browsers watched (`play_attended`: a
        page gone for ``grace`` s is that seat's disconnect)."""
        self.games += 1
        self.running.add(match)
        try:
            await play_attended(match, seats, grace)
        finally:
            self._ended(match)

    async def run(self, match: Match[Any, Any]) -> GameRecord | None:
        """Play ``match`` (its seats chosen by someone else: nobody is watched): its
        record."""
        self.games += 1
        self.running.add(match)
        try:
            result = await match.run()
        finally:
            self._ended(match)
        return result.record

    def _ended(self, match: Match[Any, Any]) -> None:
        self.running.discard(match)
        self._quiet.set()

    async def drained(self) -> None:
        """Return once no game is running (at once if none is)."""
        while self.running:
            self._quiet = trio.Event()
            await self._quiet.wait()

    def adjourn(self, detail: str) -> None:
        """End every running game now, as aborted with ``detail`` (the players are told,
        the record kept by whoever keeps such records)."""
        for match in list(self.running):
            match.stop(None, Termination.ABORTED, detail)
