"""The games running at every ``hub serve`` process on one PostgreSQL, so that each process's
lobby lists the others' running games beside its own (issue 27 item 4; docs/postgres.md).

Two tables, state and not records (created when first needed, like ``hub_waiting``; their rows
live as long as a game or a process):

* ``hub_live``: a row per running game (its id, its game, its players as JSON, the process
  that plays it, its start), inserted when it starts and deleted when it ends;
* ``hub_processes``: a row per process (its name on the shared queue's board,
  `hub.records.waiting.WaitingBoard.process`) with the time the database last heard from it
  (``seen``, the database's clock: the processes' clocks may differ).

A process that dies leaves its rows behind: a reader ignores the games of every process not
seen for `STALE` seconds, and any process deletes the rows of those not seen for `GONE`.

`LiveList` is the trio part: a listener of the process's events that keeps the starts and the
ends to write, and one task (`LiveList.run`) that every `TICK` seconds writes them in one
transaction with the process's heartbeat, and reads the other processes' running games (at
most `SHOWN` per game, the newest) for the lobbies that `follow` them. The writes go through
the shared queue's one connection and worker thread (`SharedQueue.on_board`): a process has
one connection for both. Nothing waits on the database in a game's task: a game that starts
and ends within one tick is never written at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import attrs
import trio

from hub.core.model.events import Event, GameEnded, GameStarted
from hub.records.waiting import SharedQueue, WaitingBoard

TICK = 1.0
"""Seconds between two writes of the starts and ends (and heartbeats, and readings)."""
STALE = 15.0
"""Seconds without a heartbeat after which a process's games are no longer listed."""
GONE = 600.0
"""Seconds without a heartbeat after which a process's rows are deleted (by anyone)."""
SHOWN = 100
"""At most this many of the other processes' running games are listed per game."""

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())"
_CREATE = (
    """
    CREATE TABLE IF NOT EXISTS hub_live (
        game_id TEXT PRIMARY KEY,
        game    TEXT NOT NULL,
        players TEXT NOT NULL,            -- JSON: [{"name", "kind"}, ...]
        process TEXT NOT NULL,            -- WaitingBoard.process
        started DOUBLE PRECISION NOT NULL -- Unix time
    )
    """,
    "CREATE INDEX IF NOT EXISTS hub_live_process ON hub_live (process)",
    """
    CREATE TABLE IF NOT EXISTS hub_processes (
        process TEXT PRIMARY KEY,
        seen    DOUBLE PRECISION NOT NULL -- the database's Unix time
    )
    """,
)
_OTHERS = f"""
    SELECT game_id, game, players, started, playing FROM (
        SELECT l.game_id, l.game, l.players, l.started,
               count(*) OVER (PARTITION BY l.game) AS playing,
               row_number() OVER (PARTITION BY l.game ORDER BY l.started DESC) AS newest
        FROM hub_live l JOIN hub_processes p ON p.process = l.process
        WHERE l.process <> ? AND p.seen > {_NOW} - ?
    ) AS running
    WHERE newest <= ?
    ORDER BY game, started DESC
"""


@attrs.frozen
class LiveRow:
    """A game running at another process: what a lobby lists of it."""

    game_id: str
    game: str
    players: tuple[dict[str, str], ...]
    started: float


@attrs.frozen
class Others:
    """The other processes' running games: the newest `SHOWN` per game, and how many per
    game."""

    games: dict[str, tuple[LiveRow, ...]] = attrs.Factory(dict)
    playing: dict[str, int] = attrs.Factory(dict)


def create(board: WaitingBoard) -> None:
    """The tables, if they are not there yet."""
    with board.db.transaction():
        board.db.lock_schema()  # (two processes creating them at once)
        for statement in _CREATE:
            board.db.execute(statement)


def write(board: WaitingBoard, started: list[LiveRow], ended: list[str]) -> bool:
    """In one transaction: the heartbeat, the games ``started``, the ``ended`` ones gone, and
    the rows of processes gone for `GONE` s deleted."""
    db = board.db
    with db.transaction():
        db.execute(
            f"INSERT INTO hub_processes (process, seen) VALUES (?, {_NOW}) "
            f"ON CONFLICT (process) DO UPDATE SET seen = {_NOW}",
            (board.process,),
        )
        if started:
            db.executemany(
                "INSERT INTO hub_live (game_id, game, players, process, started) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                [
                    (row.game_id, row.game, json.dumps(row.players), board.process, row.started)
                    for row in started
                ],
            )
        if ended:
            db.execute("DELETE FROM hub_live WHERE game_id = ANY(?)", (ended,))
        gone = f"SELECT process FROM hub_processes WHERE seen < {_NOW} - ?"
        db.execute(f"DELETE FROM hub_live WHERE process IN ({gone})", (GONE,))
        db.execute(f"DELETE FROM hub_processes WHERE seen < {_NOW} - ?", (GONE,))
    return True


def others(board: WaitingBoard) -> Others:
    """The running games of the other processes heard from within `STALE` s."""
    found: dict[str, list[LiveRow]] = {}
    playing: dict[str, int] = {}
    for game_id, game, players, started, count in board.db.execute(
        _OTHERS, (board.process, STALE, SHOWN)
    ).fetchall():
        row = LiveRow(str(game_id), str(game), tuple(json.loads(players)), float(started))
        found.setdefault(row.game, []).append(row)
        playing[row.game] = int(count)
    return Others({game: tuple(rows) for game, rows in found.items()}, playing)


def forget(board: WaitingBoard) -> bool:
    """This process is going away: its rows."""
    with board.db.transaction():
        board.db.execute("DELETE FROM hub_live WHERE process = ?", (board.process,))
        board.db.execute("DELETE FROM hub_processes WHERE process = ?", (board.process,))
    return True


Show = Callable[[tuple[LiveRow, ...]], None]
"""A lobby's way to show the other processes' running games of its game."""


@attrs.define(eq=False)
class LiveList:
    """This process's running games written to ``hub_live`` and the others' read from it
    (`listen` on the process's events, `run` in its nursery, `follow` per lobby, `aclose`
    at the end)."""

    queue: SharedQueue
    seen: Others = attrs.Factory(Others)
    """The other processes' running games, as last read."""
    _started: dict[str, LiveRow] = attrs.Factory(dict)
    _ended: set[str] = attrs.Factory(set)
    _shows: dict[str, list[Show]] = attrs.Factory(dict)

    def listen(self, event: Event) -> None:
        """A listener of the process's events (`hub.core.model.bus.EventBus.listen`): a
        game's start and end are written at the next tick (a game that ends before it, never).
        At most one start and one end per running game wait here."""
        if isinstance(event, GameStarted):
            players = tuple({"name": p.name, "kind": p.kind} for p in event.players)
            self._started[event.game_id] = LiveRow(event.game_id, event.game, players, event.at)
        elif isinstance(event, GameEnded) and self._started.pop(event.game_id, None) is None:
            self._ended.add(event.game_id)  # (written: to delete)

    def follow(self, game: str, show: Show) -> None:
        """Call ``show`` with ``game``'s running games at the other processes whenever they
        change (at once with the last read)."""
        self._shows.setdefault(game, []).append(show)
        show(self.seen.games.get(game, ()))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Until cancelled: every `TICK` s, write and read (a failure costs the list that tick
        only: the writes wait for the next, the list stays as last read)."""
        await self.queue.on_board(create)
        task_status.started()
        while True:
            await self.tick()
            await trio.sleep(TICK)

    async def aclose(self) -> None:
        """This process is going away: its rows are deleted (before the queue is closed)."""
        with trio.CancelScope(shield=True):
            await self.queue.on_board(forget)

    async def tick(self) -> None:
        """One write (the starts and ends since the last) and one read."""
        started, ended = list(self._started.values()), sorted(self._ended)
        self._started, self._ended = {}, set()
        if not await self.queue.on_board(lambda board: write(board, started, ended)):
            for row in started:  # (again at the next tick, unless it has ended meanwhile)
                if row.game_id not in self._ended:
                    self._started.setdefault(row.game_id, row)
                else:
                    self._ended.discard(row.game_id)
            self._ended.update(ended)
        read: Others | None = await self.queue.on_board(others)
        if read is not None and read != self.seen:
            before, self.seen = self.seen, read
            for game, shows in self._shows.items():
                rows = read.games.get(game, ())
                if rows != before.games.get(game, ()):
                    for show in shows:
                        show(rows)
