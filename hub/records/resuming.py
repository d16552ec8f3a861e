"""Which ``hub serve`` process resumes an adjourned game, for several processes on one
PostgreSQL (issue 27 items 4 and 5; docs/running.md).

An adjourned game is played on where its first returning player is seated
(`hub.declared.adjourned.Resumptions`). With several processes on one database, two of them
could each seat one of its players and each wait for the other, or, with a built-in opponent,
each play it on: so the process that seats the first returning player *holds* the game here
(`hold`: ``INSERT ... ON CONFLICT DO NOTHING``, else the row locked and taken over only if
its holder is dead, in one transaction), and a player who comes
back to another process is sent to the holder (a TCP client is relayed there,
`hub.declared.relay`; a person is told where the game waits).

The table ``hub_resuming`` has a row per game held (its id, the process, its TCP address).
A process *releases* its hold when the gathering ends without the game being played (every
returning player left, the server closing); a game played on keeps its row until the process
goes away, so that its record, written a moment after its end, is never overtaken by a
second resumption of the adjourned one. A process that died leaves its rows behind: they
count for nothing once its heartbeat (``hub_processes``, written every second by
`hub.records.live`) is older than `hub.records.live.STALE`, and the next process to hold the
game takes it over.

State, not records, like ``hub_waiting`` and ``hub_live``: created when first needed, through
the shared queue's one connection (`hub.records.waiting.SharedQueue.on_board`). With SQLite a
database belongs to one process (docs/running.md), whose `Resumptions` alone decides.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import trio

from hub.records.live import STALE
from hub.records.live import create as create_live
from hub.records.waiting import SharedQueue, WaitingBoard

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())"
_CREATE = """
    CREATE TABLE IF NOT EXISTS hub_resuming (
        game_id TEXT PRIMARY KEY,
        process TEXT NOT NULL,            -- WaitingBoard.process
        address TEXT NOT NULL,            -- its TCP port, HOST:PORT
        since   DOUBLE PRECISION NOT NULL -- the database's Unix time
    )
"""
_INSERT = f"""
    INSERT INTO hub_resuming (game_id, process, address, since) VALUES (?, ?, ?, {_NOW})
    ON CONFLICT (game_id) DO NOTHING
    RETURNING process
"""
_HELD = f"""
    SELECT h.process, h.address, EXISTS (
        SELECT 1 FROM hub_processes p WHERE p.process = h.process AND p.seen > {_NOW} - ?
    )
    FROM hub_resuming h WHERE h.game_id = ?
    FOR UPDATE OF h
"""
_TAKE = f"UPDATE hub_resuming SET process = ?, address = ?, since = {_NOW} WHERE game_id = ?"
_HEARTBEAT = (
    f"INSERT INTO hub_processes (process, seen) VALUES (?, {_NOW}) "
    f"ON CONFLICT (process) DO UPDATE SET seen = {_NOW}"
)
TRIES = 3
"""How many times `hold` tries when the holder it lost to releases the game meanwhile."""


@attrs.frozen
class Holder:
    """The process that holds a game: its name on the board and its TCP address."""

    process: str
    address: str


def create(board: WaitingBoard) -> bool:
    """The table (and ``hub_live``'s, whose heartbeats it reads), if not there yet."""
    create_live(board)
    with board.db.transaction():
        board.db.lock_schema()  # (two processes creating it at once)
        board.db.execute(_CREATE)
    return True


def hold(board: WaitingBoard, game_id: str) -> Holder | None:
    """Hold ``game_id`` for this process, unless a live process holds it: the holder (this
    process, ``board.process``, when the hold is ours); None if the holder kept letting it
    go while we looked (`TRIES` times)."""
    db = board.db
    for _ in range(TRIES):
        with db.transaction():
            db.execute(_HEARTBEAT, (board.process,))  # (a process that just started is live)
            # (a hold being made by another waits here until it is committed, and the next
            # statement, with a snapshot of its own, sees that holder's heartbeat)
            won = db.execute(_INSERT, (game_id, board.process, board.address)).fetchone()
            if won is not None:
                return Holder(board.process, board.address)
            row = db.execute(_HELD, (STALE, game_id)).fetchone()
            if row is None:
                continue  # (let go meanwhile: try again)
            process, address, live = str(row[0]), str(row[1]), bool(row[2])
            if process != board.process and live:
                return Holder(process, address)
            db.execute(_TAKE, (board.process, board.address, game_id))  # (ours, or stale)
            return Holder(board.process, board.address)
    return None


def release(board: WaitingBoard, game_id: str) -> bool:
    """This process no longer holds ``game_id`` (a no-op if it does not)."""
    board.db.execute(
        "DELETE FROM hub_resuming WHERE game_id = ? AND process = ?", (game_id, board.process)
    )
    return True


def release_all(board: WaitingBoard) -> bool:
    """Every game this process holds (it is going away)."""
    board.db.execute("DELETE FROM hub_resuming WHERE process = ?", (board.process,))
    return True


class HoldFailed(Exception):
    """The database could not say who holds a game (it failed, or kept changing)."""


@attrs.define(eq=False)
class SharedHolds:
    """`hold` and `release` for a trio process, through the shared queue's connection
    (`SharedQueue.on_board`); releases run in ``nursery`` (`release` is called where no task
    may wait: a gathering ends in `hub.declared.adjourned.Resumptions.finished`)."""

    queue: SharedQueue
    nursery: trio.Nursery
    _created: bool = False

    async def hold(self, game_id: str) -> str | None:
        """Hold ``game_id`` here: None if this process holds it now, else the holder's TCP
        address (``HOST:PORT``); `HoldFailed` if the database cannot tell."""
        if not self._created:
            self._created = bool(await self.queue.on_board(create))
            if not self._created:
                raise HoldFailed("the shared database failed")
        holder = await self.queue.on_board(lambda board: hold(board, game_id))
        if holder is None:
            raise HoldFailed("the shared database failed")
        return None if holder.process == self.queue.board.process else holder.address

    def release(self, game_id: str) -> None:
        """Let ``game_id`` go (soon: in the nursery; a failure leaves the row to go stale)."""
        run: Callable[[WaitingBoard], bool] = lambda board: release(board, game_id)  # noqa: E731
        self.nursery.start_soon(self.queue.on_board, run)

    async def aclose(self) -> None:
        """Let every game held here go (the process is going away; before the queue closes)."""
        if self._created:
            with trio.CancelScope(shield=True):
                await self.queue.on_board(release_all)
