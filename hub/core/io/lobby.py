"""Pairing of waiting players: the one place that decides who plays whom.

A `Lobby` is a queue of `Waiting` entries, each wrapping what a server waits with (a seat,
a connection, a client and its request). `Lobby.join` either seats the newcomer at once
with the first ``size - 1`` entries waiting that it may share a table with, returning the
`Seating` (to be played by the caller), or queues it and returns None (at the end, or at the
front for an entry that had its place already: ``ahead``); `Lobby.leave` takes an
entry out of the queue (a client that gave up or asked for something else). Both are pure
and synchronous, so a pairing is decided in one step with no checkpoint in between: an entry
is never seated twice, never seated after it left, and never seated with itself.

Who comes first is the order of arrival unless the lobby is given a ``rank`` (UQChess pairs
with the waiting client that connected first) or a ``distance`` (``hub serve``: with several
waiting, a newcomer meets the one of the nearest rating; ties go by arrival, and an entry
that came back ``ahead`` still comes first). With a ``distance``, a ``reach`` may also keep
apart two entries too far apart for now: an entry that has waited ``w`` seconds accepts a
partner up to ``reach(w)`` away, so that several may wait and a newcomer of near rating is
preferred, and the reach grows while they wait; `Lobby.pair_waiting` (called by the server
now and then, with the time) seats the waiting entries whose reach has grown enough. Times
are given by the caller (``now``): the lobby reads no clock. Who may share a table is anyone
unless the lobby is given ``fits`` (UQChess's compatible colour requests). A table lists the seated
waiting entries first (in that order) and the newcomer last.

The trio side is small: `Lobby.wait` is what the task of a waiting entry does until its
table's game is over (its ``done`` event, set by `Seating.playing`). Where the wire lets a
server notice that a waiting client has gone (nothing may arrive before the game starts,
so a line or EOF means it left), `Lobby.wait` runs that check (``gone``) while the entry
waits: a client that leaves is dropped, not seated as a ghost. Seating an entry cancels its
check, and `Seating.playing` waits until every check has stopped reading, so that a stream
never has two readers.

The lobby keeps only the entries that are waiting: memory is bounded by the clients that
are connected and waiting (fewer than ``size`` when any entry fits any other).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

import attrs
import trio

T = TypeVar("T")


@attrs.define(eq=False)
class Waiting(Generic[T]):
    """One entry of a lobby: ``item`` (what its server waits with) and ``done``, set once
    the game of its table is over. An entry is used once: a client that asks again joins
    with a new entry."""

    item: T
    done: trio.Event = attrs.Factory(trio.Event)
    seated: bool = False
    """Placed at a table (by `Lobby.join`); it is then no longer waiting."""
    left: bool = False
    """Taken out of the queue before it was seated (`Lobby.leave`)."""
    ahead: bool = False
    """It joined ahead of the waiting entries (`Lobby.join`'s ``ahead``)."""
    since: float = 0.0
    """When it joined (`Lobby.join`'s ``now``)."""
    _watch: trio.CancelScope = attrs.Factory(trio.CancelScope)
    _released: trio.Event | None = None
    """While `Lobby.wait` checks whether the client has gone: set once it stopped reading."""


@attrs.define(eq=False)
class Seating(Generic[T]):
    """The entries seated together, in seat order: the waiting ones first, the newcomer last."""

    entries: tuple[Waiting[T], ...]

    @property
    def items(self) -> tuple[T, ...]:
        return tuple(entry.item for entry in self.entries)

    @asynccontextmanager
    async def playing(self) -> AsyncIterator[tuple[T, ...]]:
        """Play the table's game inside: waits until no waiting check still reads a seated
        entry's stream, gives the items, and sets every entry's ``done`` on the way out."""
        try:
            for entry in self.entries:
                if entry._released is not None:
                    await entry._released.wait()
            yield self.items
        finally:
            for entry in self.entries:
                entry.done.set()


def _any(_a: object, _b: object) -> bool:
    return True


@attrs.define(eq=False)
class Lobby(Generic[T]):
    """Entries waiting for a table of ``size``; see the module's docstring."""

    size: int = attrs.field(default=2, validator=attrs.validators.ge(1))
    fits: Callable[[T, T], bool] = _any
    """Whether two items may share a table (any two must, for a table of more)."""
    rank: Callable[[T], int] | None = None
    """Which waiting item is seated first (lowest first); None: the order of arrival."""
    distance: Callable[[T, T], float] | None = None
    """How far a waiting item is from the newcomer (``(waiting, newcomer)``: their ratings
    apart); the nearest are seated first, after `rank`. None: no preference."""
    reach: Callable[[float], float] | None = None
    """With `distance`: how far apart an entry that has waited so many seconds accepts its
    partners (two entries meet when either accepts the other; an entry ``ahead`` accepts
    anyone). None: anyone, at once."""
    _waiting: list[Waiting[T]] = attrs.Factory(list)

    @property
    def waiting(self) -> tuple[Waiting[T], ...]:
        """The entries waiting, in order of arrival."""
        return tuple(self._waiting)

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, entry: object) -> bool:
        return any(waiting is entry for waiting in self._waiting)

    def join(
        self, entry: Waiting[T], *, ahead: bool = False, now: float = 0.0
    ) -> Seating[T] | None:
        """Seat ``entry`` with the first ``size - 1`` waiting entries it fits with (they
        leave the queue, their checks are cancelled): the table, to be played by the
        caller. None if there are not enough: ``entry`` waits in the queue.

        ``ahead``: the entry had its place already (it was seated at a table whose game
        was called off through no fault of its own): it takes the front of the queue, behind
        only the entries that came back so before it, and the first seat of its table.
        ``now``: the time (for `reach`)."""
        if entry.seated or entry.left or entry in self:
            raise ValueError("an entry joins a lobby once")
        entry.ahead = ahead
        entry.since = now
        chosen = self._choose(entry, self._waiting, now)
        if chosen is None:
            if ahead:
                place = sum(1 for waiting in self._waiting if waiting.ahead)
                self._waiting.insert(place, entry)
            else:
                self._waiting.append(entry)
            return None
        for seated in chosen:
            self._waiting.remove(seated)
        if ahead:
            before = [seated for seated in chosen if seated.ahead]
            table = Seating((*before, entry, *[seated for seated in chosen if not seated.ahead]))
        else:
            table = Seating((*chosen, entry))
        return self._seat(table)

    def pair_waiting(self, now: float) -> list[Seating[T]]:
        """Seat together the waiting entries whose `reach` has grown enough by ``now``,
        each with the nearest it may meet, the longest waiting first: the tables, to be
        played by the caller (none without a `reach`)."""
        tables: list[Seating[T]] = []
        if self.reach is None:
            return tables
        for entry in list(self._waiting):
            if entry.seated:
                continue
            others = [waiting for waiting in self._waiting if waiting is not entry]
            chosen = self._choose(entry, others, now)
            if chosen is not None:
                for seated in (entry, *chosen):
                    self._waiting.remove(seated)
                tables.append(self._seat(Seating((entry, *chosen))))
        return tables

    def _seat(self, table: Seating[T]) -> Seating[T]:
        for seated in table.entries:
            seated.seated = True
            seated._watch.cancel()
        return table

    def _accepts(self, entry: Waiting[T], other: Waiting[T], now: float) -> bool:
        """Whether ``entry`` accepts ``other`` as a partner now (`reach`)."""
        if self.reach is None or self.distance is None or entry.ahead:
            return True
        return self.distance(other.item, entry.item) <= self.reach(now - entry.since)

    def _choose(
        self, entry: Waiting[T], waiting: list[Waiting[T]], now: float
    ) -> list[Waiting[T]] | None:
        """The ``size - 1`` entries of ``waiting`` that ``entry`` sits down with, or None."""
        candidates = waiting
        if self.rank is not None:
            rank = self.rank
            candidates = sorted(candidates, key=lambda waiting: rank(waiting.item))
        if self.distance is not None and len(candidates) > self.size - 1:
            far = self.distance
            candidates = sorted(
                candidates, key=lambda waiting: (not waiting.ahead, far(waiting.item, entry.item))
            )
        chosen: list[Waiting[T]] = []
        for other in candidates:
            if len(chosen) == self.size - 1:
                break
            if all(
                self.fits(other.item, mate.item)
                and (self._accepts(other, mate, now) or self._accepts(mate, other, now))
                for mate in (*chosen, entry)
            ):
                chosen.append(other)
        if len(chosen) < self.size - 1:
            return None
        return chosen

    def leave(self, entry: Waiting[T]) -> bool:
        """Take ``entry`` out of the queue; False if it was not waiting (seated already,
        or gone)."""
        for index, waiting in enumerate(self._waiting):
            if waiting is entry:
                del self._waiting[index]
                entry.left = True
                return True
        return False

    def take(self, entry: Waiting[T]) -> bool:
        """Take ``entry`` out of the queue to be seated by someone else later (an operator's
        round-robin, hub.declared.arena): unlike `leave` it is neither left nor seated, so
        its `wait` (and its check that the client has gone) goes on. False if it was not
        waiting."""
        for index, waiting in enumerate(self._waiting):
            if waiting is entry:
                del self._waiting[index]
                return True
        return False

    def seat(self, entries: Sequence[Waiting[T]]) -> Seating[T]:
        """Seat ``entries`` together now, in that order, as someone other than the lobby
        chose (those still in the queue leave it): the table, to be played by the caller.
        `ValueError` if one was seated already or has left."""
        if any(entry.seated or entry.left for entry in entries):
            raise ValueError("an entry is seated once")
        for entry in entries:
            self.take(entry)
        return self._seat(Seating(tuple(entries)))

    def dismiss(self) -> list[Waiting[T]]:
        """Take every waiting entry out of the queue (its server is closing): the `wait` of
        each returns False at once. Returns them, in order of arrival."""
        dismissed = list(self._waiting)
        for entry in dismissed:
            self.leave(entry)
            entry._watch.cancel()
            entry.done.set()
        return dismissed

    async def wait(
        self, entry: Waiting[T], gone: Callable[[], Awaitable[object]] | None = None
    ) -> bool:
        """What the task of a queued ``entry`` does: wait until its table's game is over
        (True). ``gone``, if given, returns when the client has left (its server reads the
        stream: nothing may arrive before the game starts); it runs until the entry is
        seated, and if it returns first the entry leaves and this returns False (so does an
        entry `dismiss`ed). However this ends (cancelled too), the entry is no longer waiting
        afterwards."""
        try:
            if gone is not None and not entry.seated:
                entry._released = trio.Event()
                try:
                    with entry._watch:
                        await gone()
                        return False  # and it leaves (below)
                finally:
                    entry._released.set()
            if not entry.left:
                await entry.done.wait()
            return not entry.left
        finally:
            self.leave(entry)
