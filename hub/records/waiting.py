"""The waiting queue's shared part, for several ``hub serve`` processes on one PostgreSQL:
which process has a player waiting for "the next to arrive", and at which TCP address.

Each process keeps its own queue (`hub.core.io.lobby.Lobby`) and plays its own games. While one
of its players waits with nobody to pair with, the process *posts* the wait here (`post`); when
the wait ends (paired at home, left) it *withdraws* it. A TCP client that arrives at another
process with nobody waiting there *claims* the oldest posted wait of its game (`claim`: the
row is deleted in the same statement, so two processes never claim one) and is relayed to that
process's TCP port (`hub.declared.relay`), where it arrives as the next client and is paired
with the player waiting there. A process that died leaves its posts behind: a claim of one
finds nobody listening at its address and the claimer takes the next.

This is state, not records: the table ``hub_waiting`` is created when first needed (not by the
records' migrations) and its rows live seconds. Every call is blocking (psycopg): `SharedQueue`
runs them in one worker thread of the trio process.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Any

import trio

from hub.records.database import PostgresDatabase, PostgresUrl

_CREATE = """
    CREATE TABLE IF NOT EXISTS hub_waiting (
        entry   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        game    TEXT NOT NULL,
        process TEXT NOT NULL,            -- the posting process (`WaitingBoard.process`)
        address TEXT NOT NULL,            -- its TCP port, HOST:PORT
        since   DOUBLE PRECISION NOT NULL -- Unix time
    )
"""
_CLAIM = """
    DELETE FROM hub_waiting WHERE entry = (
        SELECT entry FROM hub_waiting WHERE game = ? AND process <> ?
        ORDER BY entry LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    RETURNING address
"""


def advertised_host(host: str) -> str:
    """The host other processes reach this one at: the address it listens on, or this
    machine's name when it listens on every interface."""
    return socket.getfqdn() if host in ("", "0.0.0.0", "::") else host


class WaitingBoard:
    """One connection to the shared waiting table; blocking calls, one thread at a time."""

    def __init__(self, db: PostgresDatabase, address: str) -> None:
        self.db = db
        self.address = address
        self.process = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This process's name on the board (a restarted process is a new one)."""

    @classmethod
    def open(cls, url: PostgresUrl, address: str) -> WaitingBoard:
        db = PostgresDatabase.open(url)
        try:
            with db.transaction():
                db.lock_schema()  # (two processes creating the table at once)
                db.execute(_CREATE)
        except BaseException:
            db.close()
            raise
        return cls(db, address)

    def post(self, game: str) -> int:
        """A player of ``game`` waits here: the post's number (to `withdraw` it)."""
        (entry,) = self.db.execute(
            "INSERT INTO hub_waiting (game, process, address, since) VALUES (?, ?, ?, ?) "
            "RETURNING entry",
            (game, self.process, self.address, time.time()),
        ).fetchone()
        return int(entry)

    def withdraw(self, entry: int) -> None:
        """The wait ``entry`` is over (a no-op if another process claimed it)."""
        self.db.execute("DELETE FROM hub_waiting WHERE entry = ?", (entry,))

    def claim(self, game: str) -> str | None:
        """The address of the process of the oldest wait for ``game`` that is not ours,
        taken off the board; None if there is none."""
        row = self.db.execute(_CLAIM, (game, self.process)).fetchone()
        return None if row is None else str(row[0])

    def withdraw_all(self) -> None:
        """Every wait this process posted (it is going away)."""
        self.db.execute("DELETE FROM hub_waiting WHERE process = ?", (self.process,))

    def close(self) -> None:
        self.db.close()


class SharedQueue:
    """`WaitingBoard` for a trio process: each call in the board's one worker thread. A
    database that fails costs the sharing only (a warning), never a game: a post that
    fails is not made, a claim that fails finds nobody."""

    def __init__(self, board: WaitingBoard, warn: Any) -> None:
        self.board = board
        self._limiter = trio.CapacityLimiter(1)
        self._warn = warn

    @classmethod
    async def open(cls, url: PostgresUrl, address: str, warn: Any) -> SharedQueue:
        board = await trio.to_thread.run_sync(WaitingBoard.open, url, address)
        return cls(board, warn)

    async def _run(self, call: Any, *args: Any) -> Any:
        from hub.records.database import database_errors, one_line

        try:
            return await trio.to_thread.run_sync(call, *args, limiter=self._limiter)
        except database_errors(OSError) as exc:
            self._warn(f"the shared waiting queue failed: {one_line(exc)}")
            return None

    async def post(self, game: str) -> int | None:
        entry: int | None = await self._run(self.board.post, game)
        return entry

    async def withdraw(self, entry: int | None) -> None:
        if entry is not None:
            with trio.CancelScope(shield=True):
                await self._run(self.board.withdraw, entry)

    async def claim(self, game: str) -> str | None:
        address: str | None = await self._run(self.board.claim, game)
        return address

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await self._run(self.board.withdraw_all)
            await trio.to_thread.run_sync(self.board.close, limiter=self._limiter)
