"""The waiting queue's shared part, for several ``hub serve`` processes on one PostgreSQL:
which process has a player waiting for "the next to arrive", of which kind, and at which TCP
address.

Each process keeps its own queue (`hub.core.io.lobby.Lobby`) and plays its own games. While one
of its players waits with nobody to pair with, the process *posts* the wait here (`post`); when
the wait ends (paired at home, left) it *withdraws* it. Pairing across processes then moves a
TCP client (the only kind that can move: a person's page is served by its own process) to
the process of its partner, where it arrives as the next client (`hub.declared.relay`):

* a TCP client that arrives with nobody waiting at its process *claims* the oldest posted wait
  of its game (`claim`: the row is deleted in the same statement, so two processes never
  claim one) and is relayed to that process's port;
* a person who starts waiting with nobody waiting at their process claims the oldest posted
  wait of a TCP client and *calls* it over (`call`: a ``NOTIFY`` on the channel
  ``hub_waiting``, which every process ``LISTEN``s to: `SharedQueue.listen`); that client's
  process relays it here.

A process that died leaves its posts behind: a claim of one finds nobody listening at its
address (or nobody answers the call) and the claimer takes the next, or waits at home.

This is state, not records: the table ``hub_waiting`` is created when first needed (not by the
records' migrations) and its rows live seconds. Every call is blocking (psycopg): `SharedQueue`
runs them in one worker thread of the trio process.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Self, TypeVar

import attrs
import trio

from hub.records.database import PostgresDatabase, PostgresUrl

T = TypeVar("T")
RETRY_SECONDS = 1.0
"""How long the listener waits before it connects again after a failure."""

_CREATE = """
    CREATE TABLE IF NOT EXISTS hub_waiting (
        entry   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        game    TEXT NOT NULL,
        process TEXT NOT NULL,            -- the posting process (`WaitingBoard.process`)
        address TEXT NOT NULL,            -- its TCP port, HOST:PORT
        kind    TEXT NOT NULL,            -- tcp (a client that can be relayed) or browser
        since   DOUBLE PRECISION NOT NULL, -- Unix time
        terms   TEXT NOT NULL DEFAULT ''  -- the choice's key: only equal ones pair
    )
"""
_ADD_TERMS = "ALTER TABLE hub_waiting ADD COLUMN IF NOT EXISTS terms TEXT NOT NULL DEFAULT ''"
"""(a table made before choices were shared: its old posts, key '', pair no new one)"""
_CLAIM = """
    DELETE FROM hub_waiting WHERE entry = (
        SELECT entry FROM hub_waiting
        WHERE game = ? AND terms = ? AND process <> ? AND kind = ANY(?) AND entry < ?
        ORDER BY entry LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    RETURNING entry, process, address, kind
"""
_NO_BOUND = 2**63 - 1
CHANNEL = "hub_waiting"
"""The channel of calls (`WaitingBoard.call`): its payload is JSON
``{"process", "entry", "to"}``, for the one process named."""


@attrs.frozen
class Claimed:
    """A wait taken off the board: its number, its process, that process's address, and
    the kind of player who waits (tcp, browser)."""

    entry: int
    process: str
    address: str
    kind: str = ""


def advertised_host(host: str) -> str:
    """The host other processes reach this one at: the address it listens on, or this
    machine's name when it listens on every interface."""
    return socket.getfqdn() if host in ("", "0.0.0.0", "::") else host


class WaitingBoard:
    """One connection to the shared waiting table; blocking calls, one thread at a time."""

    def __init__(self, db: PostgresDatabase, url: PostgresUrl, address: str) -> None:
        self.db = db
        self.url = url
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
                db.execute(_ADD_TERMS)
        except BaseException:
            db.close()
            raise
        return cls(db, url, address)

    def reconnect(self) -> None:
        """A new connection for the same process (its posts stay its own)."""
        with contextlib.suppress(Exception):
            self.db.close()
        self.db = PostgresDatabase.open(self.url)

    def post(self, game: str, kind: str, terms: str = "") -> int:
        """A player of ``game`` waits here, on the choice whose key is ``terms``
        (`hub.declared.sharing.Choice`): the post's number (to `withdraw` it)."""
        (entry,) = self.db.execute(
            "INSERT INTO hub_waiting (game, process, address, kind, since, terms) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING entry",
            (game, self.process, self.address, kind, time.time(), terms),
        ).fetchone()
        return int(entry)

    def withdraw(self, entry: int) -> None:
        """The wait ``entry`` is over (a no-op if another process claimed it)."""
        self.db.execute("DELETE FROM hub_waiting WHERE entry = ?", (entry,))

    def claim(
        self, game: str, kinds: Sequence[str], before: int | None = None, terms: str = ""
    ) -> Claimed | None:
        """The oldest wait for ``game`` on the choice ``terms`` of one of ``kinds`` that is
        not ours (and was posted before our wait ``before``, if given), taken off the board;
        None if there is none."""
        bound = _NO_BOUND if before is None else before
        row = self.db.execute(_CLAIM, (game, terms, self.process, list(kinds), bound)).fetchone()
        if row is None:
            return None
        return Claimed(int(row[0]), str(row[1]), str(row[2]), str(row[3]))

    def call(self, claimed: Claimed) -> None:
        """Ask the process of ``claimed`` to send its waiting player here."""
        payload = {"process": claimed.process, "entry": claimed.entry, "to": self.address}
        self.db.execute("SELECT pg_notify(?, ?)", (CHANNEL, json.dumps(payload)))

    def withdraw_all(self) -> None:
        """Every wait this process posted (it is going away)."""
        self.db.execute("DELETE FROM hub_waiting WHERE process = ?", (self.process,))

    def close(self) -> None:
        self.db.close()


class NoticeListener:
    """A connection that ``LISTEN``s to its class's ``channel``, for one ``process``:
    `fileno` to wait on (the trio loop waits on its socket: no thread, no polling); a
    subclass reads what arrived without blocking."""

    channel = CHANNEL

    def __init__(self, db: PostgresDatabase, process: str) -> None:
        self.db = db
        self.process = process

    @classmethod
    def open(cls, url: PostgresUrl, process: str) -> Self:
        db = PostgresDatabase.open(url)
        try:
            db.execute(f"LISTEN {cls.channel}")
        except BaseException:
            db.close()
            raise
        return cls(db, process)

    def fileno(self) -> int:
        return int(self.db.connection.pgconn.socket)

    def close(self) -> None:
        self.db.close()


class CallListener(NoticeListener):
    """The calls of the shared queue (`CHANNEL`): `calls` (which never blocks) reads the
    calls for ``process`` that have arrived."""

    def calls(self) -> list[tuple[int, str]]:
        """The (entry, to) of every call for this process that has arrived."""
        connection = self.db.connection.pgconn
        connection.consume_input()
        found = []
        while (notice := connection.notifies()) is not None:
            try:
                payload = json.loads(notice.extra)
                if payload["process"] == self.process:
                    found.append((int(payload["entry"]), str(payload["to"])))
            except (ValueError, KeyError, TypeError):
                continue  # (not one of ours)
        return found


class SharedQueue:
    """`WaitingBoard` for a trio process: each call in the board's one worker thread. A
    database that fails costs the sharing only (a warning), never a game: a post that
    fails is not made, a claim that fails finds nobody; the next call connects again, and
    the listener connects again after `RETRY_SECONDS`."""

    def __init__(self, board: WaitingBoard, url: PostgresUrl, warn: Any) -> None:
        self.board = board
        self.url = url
        self._limiter = trio.CapacityLimiter(1)
        self._warn = warn
        self._broken = False

    @classmethod
    async def open(cls, url: PostgresUrl, address: str, warn: Any) -> SharedQueue:
        board = await trio.to_thread.run_sync(WaitingBoard.open, url, address)
        return cls(board, url, warn)

    async def _run(self, name: str, *args: Any) -> Any:
        """The board's method ``name`` in its thread (`on_board`)."""
        return await self.on_board(lambda board: getattr(board, name)(*args))

    async def on_board(self, call: Callable[[WaitingBoard], T]) -> T | None:
        """``call(board)`` in the board's thread (the process's one connection, for the
        queue and for `hub.records.live`), once more on a new connection if the server had
        ended the old one (a restart: the call never reached it); None, after a warning, if
        it fails."""
        from hub.records.database import database_errors, one_line

        def work() -> T:
            if self._broken:
                self.board.reconnect()
                self._broken = False
            try:
                return call(self.board)
            except database_errors():
                if not self.board.db.connection.closed:
                    raise
                self.board.reconnect()
                return call(self.board)

        try:
            return await trio.to_thread.run_sync(work, limiter=self._limiter)
        except database_errors(OSError) as exc:
            self._broken = True
            self._warn(f"the shared waiting queue failed: {one_line(exc)}")
            return None

    async def post(self, game: str, kind: str, terms: str = "") -> int | None:
        entry: int | None = await self._run("post", game, kind, terms)
        return entry

    async def withdraw(self, entry: int | None) -> None:
        if entry is not None:
            with trio.CancelScope(shield=True):
                await self._run("withdraw", entry)

    async def claim(
        self, game: str, kinds: Sequence[str], before: int | None = None, terms: str = ""
    ) -> Claimed | None:
        claimed: Claimed | None = await self._run("claim", game, kinds, before, terms)
        return claimed

    async def call(self, claimed: Claimed) -> None:
        await self._run("call", claimed)

    async def listen(self, called: Callable[[int, str], None]) -> None:
        """Until cancelled: ``called(entry, to)`` for each call of one of our posts (another
        process wants that player at ``to``). Waits on the listening connection's socket in
        the trio loop itself; a connection that fails is opened again after `RETRY_SECONDS`
        (a warning; calls made meanwhile are lost: their callers' players wait at home)."""
        from hub.records.database import database_errors, one_line

        while True:
            try:
                listener = await trio.to_thread.run_sync(
                    CallListener.open, self.url, self.board.process
                )
            except database_errors(OSError) as exc:
                self._warn(f"cannot listen for calls of the shared queue: {one_line(exc)}")
                await trio.sleep(RETRY_SECONDS)
                continue
            try:
                while True:
                    await trio.lowlevel.wait_readable(listener.fileno())
                    for entry, to in listener.calls():
                        called(entry, to)
            except database_errors(OSError) as exc:
                self._warn(f"lost the calls of the shared queue ({one_line(exc)}): listening again")
            finally:
                listener.close()
            await trio.sleep(RETRY_SECONDS)

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await self._run("withdraw_all")
            await trio.to_thread.run_sync(self.board.close, limiter=self._limiter)
