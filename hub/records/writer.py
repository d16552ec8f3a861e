"""`record_games`: the event-stream subscriber that writes every finished game to the store.

Two tasks share a list of records waiting to be written:

* the *collector* reads the bus through a bounded `Subscription` and keeps only the
  `GameEnded` records of games that finished (an ``ABORTED`` game did not finish and is not
  recorded). It never waits for the disk, so it keeps up with any number of games; if it is
  dropped all the same (the event loop starved for `BUFFER` events), it says so in one line
  on stderr and subscribes again: recording never stops silently.
* the *writer* hands whatever is waiting, as one batch in one transaction, to a single
  worker thread (a `trio.CapacityLimiter` of 1 around ``trio.to_thread``), so the event loop
  never blocks on the disk and the store's connection is only ever used by one thread at a
  time. A batch that fails (the disk is full, another process holds the lock too long) is
  reported on stderr and tried again after `RETRY_SECONDS`, on the store opened
  again (a PostgreSQL connection that a server restart ended stays ended).

A game is committed as soon as the batch it is in is written: a process killed a moment later
(SIGKILL) loses no game already written; the games still waiting in memory and the games still
being played are lost with it (neither was recorded: see docs/postgres.md).

Cancelled, `record_games` drains: shielded and for at most `DRAIN_SECONDS` in all (a write in
progress included), it writes what it has collected plus what is still buffered in its
subscription, then closes the store.
When the bus is closed it writes what is left and returns.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

import trio

from hub.core.io.output import write_all
from hub.core.model.bus import EventBus, Subscription
from hub.core.model.events import GameEnded, GameRecord
from hub.core.model.referee import Termination
from hub.records.database import Location, database_errors, one_line
from hub.records.store import RecordStore

BUFFER = 4096
"""Events the subscription holds before the collector counts as fallen behind."""
RETRY_SECONDS = 1.0
DRAIN_SECONDS = 5.0
"""At most this long, on cancellation, to write what was collected (then it is abandoned
to its thread, which finishes the transaction on its own if the process lives on)."""


def warn(text: str) -> None:
    """One line on stderr (never raises: stderr may be a closed pipe)."""
    write_all(2, f"hub: records: {text}\n".encode("utf-8", "replace"))


def finished(record: GameRecord) -> bool:
    """Whether a record is one to keep: every game but an aborted one."""
    return record.termination is not Termination.ABORTED


class _RecordWriter:
    def __init__(
        self,
        bus: EventBus,
        subscription: Subscription,
        store: RecordStore,
        limiter: trio.CapacityLimiter,
        keep: Callable[[GameRecord], bool] = finished,
    ) -> None:
        self.keep = keep
        self.bus = bus
        self.subscription = subscription
        self.store = store
        self.limiter = limiter
        self.pending: list[GameRecord] = []
        self.arrived = trio.Event()
        self.bus_closed = False
        self.broken = False
        """A write failed: the next one opens the store again first (a PostgreSQL server
        that restarted, or a network that dropped, has ended the connection for good)."""

    def _keep(self, event: object) -> None:
        if isinstance(event, GameEnded) and self.keep(event.record):
            self.pending.append(event.record)
            self.arrived.set()

    async def collect(self) -> None:
        while True:
            event = await self.subscription.receive()
            if event is not None:
                self._keep(event)
                continue
            if not self.subscription.dropped:
                break  # the bus is closed: no more games
            warn(
                f"fell {BUFFER} events behind and was dropped: games that ended just now "
                f"may be missing from {self.store.path}; recording goes on"
            )
            self.subscription = self.bus.subscribe(BUFFER, moves=False)
        self.bus_closed = True
        self.arrived.set()

    async def take_buffered(self) -> None:
        """Collect what the subscription still holds (``receive`` does not wait while
        events are queued), then leave the bus."""
        while self.subscription.pending:
            self._keep(await self.subscription.receive())
        self.subscription.close()

    async def write(self) -> None:
        while True:
            if not self.pending:
                if self.bus_closed:
                    return
                self.arrived = trio.Event()
                await self.arrived.wait()
                continue
            batch = list(self.pending)
            try:
                # Abandoned on cancellation: the drain then waits for this thread through
                # the limiter (so the connection is never used by two threads at once) and
                # writes the batch again if need be (adding is idempotent).
                await trio.to_thread.run_sync(
                    self._write, batch, limiter=self.limiter, abandon_on_cancel=True
                )
            except database_errors(OSError) as exc:
                warn(
                    f"could not write {len(batch)} game(s) to {self.store.path} ({one_line(exc)}); "
                    f"trying again in {RETRY_SECONDS:g} s"
                )
                self.broken = True
                await trio.sleep(RETRY_SECONDS)
                continue
            del self.pending[: len(batch)]

    def _write(self, batch: list[GameRecord]) -> None:
        """In the worker thread: one transaction for the batch; a record that cannot be
        stored as JSON (a game whose view breaks the contract) is reported and skipped."""
        if self.broken:
            self._reopen()
        try:
            self.store.add_all(batch)
        except (TypeError, ValueError):
            for record in batch:
                try:
                    self.store.add(record)
                except (TypeError, ValueError) as exc:
                    warn(f"game {record.game_id} ({record.game}) cannot be recorded: {exc}")

    def _reopen(self) -> None:
        """In the worker thread: the store opened again (the old connection closed)."""
        with contextlib.suppress(*database_errors(OSError)):
            self.store.close()
        self.store = RecordStore.open(self.store.path)
        self.broken = False

    def finish(self) -> None:
        """In the worker thread: the last batch, then close the store."""
        try:
            if self.pending:
                self._write(self.pending)
                self.pending = []
        except database_errors(OSError) as exc:
            warn(
                f"could not write {len(self.pending)} game(s) to {self.store.path}: {one_line(exc)}"
            )
        finally:
            self.store.close()


async def record_games(
    bus: EventBus,
    path: str | os.PathLike[str] | Location,
    *,
    keep: Callable[[GameRecord], bool] = finished,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Write every game that ends on ``bus`` (but aborted ones; ``keep`` says otherwise:
    ``hub serve`` keeps the games its shutdown adjourned) to the store at ``path`` (an
    SQLite file or a ``postgresql://`` URL: `hub.records.database.location`).

    Subscribes at once, opens (creates, migrates) the store in the worker thread, then
    reports started (``nursery.start``: an unusable database raises there). Runs until
    cancelled, or until the bus is closed and everything is written.
    """
    limiter = trio.CapacityLimiter(1)
    subscription = bus.subscribe(BUFFER, moves=False)  # the ends are what it keeps
    try:
        store = await trio.to_thread.run_sync(RecordStore.open, path, limiter=limiter)
    except BaseException:
        subscription.close()
        raise
    recorder = _RecordWriter(bus, subscription, store, limiter, keep)
    task_status.started()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(recorder.collect)
            nursery.start_soon(recorder.write)
    finally:
        with trio.CancelScope(shield=True):
            await recorder.take_buffered()
            waiting = len(recorder.pending)
            with trio.move_on_after(DRAIN_SECONDS) as drain:
                await trio.to_thread.run_sync(
                    recorder.finish, limiter=limiter, abandon_on_cancel=True
                )
            if drain.cancelled_caught:
                warn(
                    f"gave up waiting after {DRAIN_SECONDS:g} s for {waiting} game(s) to be "
                    f"written to {store.path}"
                )
