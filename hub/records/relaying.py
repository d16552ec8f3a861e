"""The messages of a person's seat played at another ``hub serve`` process of the same hub
(two people in browsers at two processes: `hub.declared.remote`; docs/postgres.md).

One table, state and not records (created when first needed, like ``hub_waiting``):
``hub_relay``, a row per message to one process (``process``, the recipient's name on the
shared queue's board), about one relayed seat (``link``, a random name both processes
give it), its body JSON. The host process (where the game is played) writes the seat's
snapshots (what its page shows: that seat's view only) for the guest process (where the
person's page is served); the guest writes the page's moves, actions and attendance for
the host. Each write is followed by ``NOTIFY hub_relay`` with the recipient's name, which
every process ``LISTEN``s to (one connection: `RelayListener`); the recipient *takes* its
rows (``DELETE ... RETURNING``: a message is read once, and read messages leave no row).

Rows are bounded: a body is at most `MAX_BODY` bytes (a bigger one is not sent), a
recipient takes its rows within a tick of their writing, and the rows of a recipient that
died (older than `ORPHANED` seconds) are deleted by the next writer.

Every function here is blocking (psycopg) and runs on the shared queue's connection, in its
worker thread (`hub.records.waiting.SharedQueue.on_board`), like `hub.records.live`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

from hub.records.waiting import NoticeListener, WaitingBoard

CHANNEL = "hub_relay"
"""The channel of `send`'s notices: the payload is the recipient process's name."""
MAX_BODY = 256 * 1024
"""The largest message body written (a seat's snapshot: a board's picture, its moves)."""
ORPHANED = 120.0
"""Seconds after which a message nobody took is deleted (its recipient has died)."""

_NOW = "EXTRACT(EPOCH FROM clock_timestamp())"
_CREATE = (
    """
    CREATE TABLE IF NOT EXISTS hub_relay (
        entry   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        process TEXT NOT NULL,            -- the recipient (WaitingBoard.process)
        link    TEXT NOT NULL,            -- the relayed seat
        body    TEXT NOT NULL,            -- JSON
        sent    DOUBLE PRECISION NOT NULL -- Unix time
    )
    """,
    "CREATE INDEX IF NOT EXISTS hub_relay_process ON hub_relay (process)",
)


def create(board: WaitingBoard) -> None:
    """The table, if it is not there yet."""
    with board.db.transaction():
        board.db.lock_schema()  # (two processes creating it at once)
        for statement in _CREATE:
            board.db.execute(statement)


def send(board: WaitingBoard, messages: Sequence[tuple[str, str, dict[str, Any]]]) -> int:
    """Write ``messages`` (recipient, link, body) in one transaction, notify each recipient
    once, and delete the orphaned rows; how many were written (a body over `MAX_BODY` is
    left out)."""
    rows = []
    for process, link, body in messages:
        text = json.dumps(body, separators=(",", ":"))
        if len(text.encode("utf-8")) <= MAX_BODY:
            rows.append((process, link, text, time.time()))
    if not rows:
        return 0
    db = board.db
    with db.transaction():
        db.executemany(
            "INSERT INTO hub_relay (process, link, body, sent) VALUES (?, ?, ?, ?)", rows
        )
        for process in sorted({row[0] for row in rows}):
            db.execute("SELECT pg_notify(?, ?)", (CHANNEL, process))
        db.execute(f"DELETE FROM hub_relay WHERE sent < {_NOW} - ?", (ORPHANED,))
    return len(rows)


def take(board: WaitingBoard) -> list[tuple[str, dict[str, Any]]]:
    """Every message to this process, in the order written, deleted as it is read: (link,
    body)."""
    found = board.db.execute(
        "DELETE FROM hub_relay WHERE process = ? RETURNING entry, link, body", (board.process,)
    ).fetchall()
    messages = []
    for _, link, body in sorted(found):
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            messages.append((str(link), value))
    return messages


def fresh(board: WaitingBoard, processes: Iterable[str], within: float) -> set[str]:
    """Which of ``processes`` have written their heartbeat (``hub_processes``:
    `hub.records.live`) within ``within`` seconds."""
    names = sorted(set(processes))
    if not names:
        return set()
    rows = board.db.execute(
        f"SELECT process FROM hub_processes WHERE process = ANY(?) AND seen > {_NOW} - ?",
        (names, within),
    ).fetchall()
    return {str(row[0]) for row in rows}


class RelayListener(NoticeListener):
    """The notices of relayed seats (`CHANNEL`): `mine` (which never blocks) says whether a
    notice for ``process`` has arrived."""

    channel = CHANNEL

    def mine(self) -> bool:
        """Whether a notice for this process arrived since the last call."""
        connection = self.db.connection.pgconn
        connection.consume_input()
        found, me = False, self.process.encode("utf-8")
        while (notice := connection.notifies()) is not None:
            found = found or notice.extra == me
        return found
