"""Finished games from the records store (hub/records), read off the event loop.

Every look-up runs in a worker thread, so the web view never blocks the trio thread (nor a
game) on the disk or the network. An SQLite store is opened for each look-up and closed again,
so the web view holds no file open between requests; a PostgreSQL store's connections (at most
one per concurrent look-up) are kept for the next look-up, since opening one costs a round trip
and an authentication, and one that fails is closed. Anything with the store's
``get``/``games``/``close`` will do (tests use a fake); `RecordsReader.at(location)` opens the
real `hub.records.RecordStore`.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any, Protocol

import trio

from hub.core.model.events import GameRecord
from hub.records import GameSummary, RecordStore
from hub.records.database import Location, PostgresUrl, database_errors, location, one_line

LOGGER = logging.getLogger("hub.web")


class RecordLookup(Protocol):
    """The part of `hub.records.RecordStore` the web view uses."""

    def get(self, game_id: str) -> GameRecord | None: ...

    def games(
        self,
        *,
        limit: int | None = None,
        game: str | None = None,
        player: str | None = None,
        termination: str | None = None,
    ) -> list[GameSummary]:
        """The newest ``limit`` games' summaries (of ``game``, ``player``, ending by
        ``termination`` only, if given)."""
        ...

    def close(self) -> None: ...


class RecordsReader:
    """Look-ups in a store opened per request by ``opener`` in a worker thread."""

    def __init__(
        self,
        opener: Callable[[], RecordLookup],
        *,
        limit: int = 4,
        keep: bool = False,
        game: str | None = None,
    ) -> None:
        self._opener = opener
        self._limiter = trio.CapacityLimiter(limit)
        self.game = game
        """Only this game's recent games (a game's lobby in ``hub serve``'s site)."""
        self._keep = keep
        self._idle: list[RecordLookup] = []
        """Stores kept open between look-ups (``keep``): at most ``limit``."""

    def of_game(self, game: str) -> RecordsReader:
        """The same store, its recent games those of ``game`` only (one reader per lobby)."""
        return RecordsReader(self._opener, keep=self._keep, game=game)

    @classmethod
    def at(cls, path: str | os.PathLike[str] | Location) -> RecordsReader:
        """A reader of the store at ``path`` (hub/records): an SQLite file, or a PostgreSQL
        database whose connections are kept between look-ups."""
        where = location(path)
        return cls(lambda: RecordStore.open(where), keep=isinstance(where, PostgresUrl))

    @classmethod
    def of(cls, path: str | os.PathLike[str] | Location | None) -> RecordsReader | None:
        """`at` ``path``, or None for a command that records nothing (``--no-record``):
        every command with ``--web`` shows the games saved where it records its own."""
        return None if path is None else cls.at(path)

    async def _ask(self, question: Callable[[RecordLookup], Any], otherwise: Any) -> Any:
        """``question``'s answer, or ``otherwise`` (after a warning) if the store cannot be
        read: a database the command could not open costs its pages the saved games only."""

        def work() -> Any:
            kept = bool(self._idle)
            store = self._idle.pop() if kept else self._opener()
            try:
                answer = question(store)
            except database_errors() as exc:
                with contextlib.suppress(*database_errors()):
                    store.close()
                if not kept:
                    raise
                # a kept connection the server may have ended meanwhile (a restart): once
                # more on a new one, which says whether the database itself can be read
                LOGGER.info("a kept records connection failed (%s): opening another", exc)
                store = self._opener()
                try:
                    answer = question(store)
                except BaseException:
                    store.close()
                    raise
            except BaseException:
                store.close()
                raise
            if self._keep:
                self._idle.append(store)
            else:
                store.close()
            return answer

        try:
            return await trio.to_thread.run_sync(work, limiter=self._limiter)
        except database_errors(OSError) as exc:
            LOGGER.warning("cannot read the records database: %s", one_line(exc))
            return otherwise

    async def get(self, game_id: str) -> GameRecord | None:
        record: GameRecord | None = await self._ask(lambda store: store.get(game_id), None)
        return record

    async def adjourned(self, game: str, identity: str, limit: int) -> list[GameSummary]:
        """The newest ``limit`` aborted games of ``game`` with a seat of ``identity`` (the
        adjourned ones among them: hub.declared.adjourned)."""
        rows: list[GameSummary] = await self._ask(
            lambda store: store.games(
                game=game, player=identity, termination="aborted", limit=limit
            ),
            [],
        )
        return rows

    async def recent(self, limit: int) -> list[GameSummary]:
        """The newest ``limit`` games' summaries."""
        game = self.game
        if game is None:
            rows: list[GameSummary] = await self._ask(lambda store: store.games(limit=limit), [])
        else:
            rows = await self._ask(lambda store: store.games(limit=limit, game=game), [])
        return rows
