"""Finished games from the records store (hub/records), read off the event loop.

The store is SQLite: each look-up opens it in a worker thread, asks, and closes it again, so
the web view holds no connection between requests and never blocks the trio thread (nor a
game) on the disk. Anything with the store's ``get``/``games``/``close`` will do (tests use a
fake); `RecordsReader.at(path)` opens the real `hub.records.RecordStore`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from typing import Any, Protocol

import trio

from hub.core.model.events import GameRecord
from hub.records import GameSummary, RecordStore

LOGGER = logging.getLogger("hub.web")


class RecordLookup(Protocol):
    """The part of `hub.records.RecordStore` the web view uses."""

    def get(self, game_id: str) -> GameRecord | None: ...

    def games(self, *, limit: int | None = None, game: str | None = None) -> list[GameSummary]:
        """The newest ``limit`` games' summaries (of ``game`` only, if given)."""
        ...

    def close(self) -> None: ...


class RecordsReader:
    """Look-ups in a store opened per request by ``opener`` in a worker thread."""

    def __init__(
        self, opener: Callable[[], RecordLookup], *, limit: int = 4, game: str | None = None
    ) -> None:
        self._opener = opener
        self._limiter = trio.CapacityLimiter(limit)
        self.game = game
        """Only this game's recent games (a game's lobby in ``hub serve``'s site)."""

    def of_game(self, game: str) -> RecordsReader:
        """The same store, its recent games those of ``game`` only (one reader per lobby)."""
        return RecordsReader(self._opener, game=game)

    @classmethod
    def at(cls, path: str | os.PathLike[str]) -> RecordsReader:
        """A reader of the SQLite store at ``path`` (hub/records)."""

        return cls(lambda: RecordStore.open(path))

    @classmethod
    def of(cls, path: str | os.PathLike[str] | None) -> RecordsReader | None:
        """`at` ``path``, or None for a command that records nothing (``--no-record``):
        every command with ``--web`` shows the games saved where it records its own."""
        return None if path is None else cls.at(path)

    async def _ask(self, question: Callable[[RecordLookup], Any], otherwise: Any) -> Any:
        """``question``'s answer, or ``otherwise`` (after a warning) if the store cannot be
        read: a database the command could not open costs its pages the saved games only."""

        def work() -> Any:
            store = self._opener()
            try:
                return question(store)
            finally:
                store.close()

        try:
            return await trio.to_thread.run_sync(work, limiter=self._limiter)
        except (sqlite3.Error, OSError) as exc:
            LOGGER.warning("cannot read the records database: %s", exc)
            return otherwise

    async def get(self, game_id: str) -> GameRecord | None:
        record: GameRecord | None = await self._ask(lambda store: store.get(game_id), None)
        return record

    async def recent(self, limit: int) -> list[GameSummary]:
        """The newest ``limit`` games' summaries."""
        game = self.game
        if game is None:
            rows: list[GameSummary] = await self._ask(lambda store: store.games(limit=limit), [])
        else:
            rows = await self._ask(lambda store: store.games(limit=limit, game=game), [])
        return rows
