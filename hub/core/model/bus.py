"""The fan-out of the event stream: an `EventBus` hands each published event to any number of
subscribers without ever blocking the publisher (the event types are in hub.core.model.events).

* `EventBus.subscribe(size)` gives a `Subscription` with a bounded buffer read by its own
  task. A subscriber that falls ``size`` events behind is dropped (its iteration ends and
  ``dropped`` is set), so a stalled reader never delays a move.
* `EventBus.listen(callback)` calls a synchronous, non-blocking callback in the publisher's
  task, in order (a transcript printer that must interleave exactly with other output). A
  callback that raises is removed and the error kept in ``EventBus.errors``; the game goes on.
* `EventBus.forward(to)` publishes every event on another bus too (a server's games on its
  site's bus).

A subscriber that wants only the games' starts and ends (the records, the logs) says
``moves=False``: it is not handed a `MoveMade`, and a game whose bus has no subscriber that
takes moves (`EventBus.wants_moves`, through forwards too) makes none, nor the state's view
it carries, nor wakes a subscriber's task for it: at every move of every game, most of what
a loaded server's event stream cost (docs/performance.md, "CPU per move").

This module builds no event type: a game whose bus has no subscriber makes no event at all
(the loop checks `EventBus.subscribers` first) and never imports hub.core.model.events.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, TypeAlias

import trio

if TYPE_CHECKING:
    from hub.core.model.events import Event

DEFAULT_BUFFER = 1024


class Subscription:
    """One subscriber's bounded buffer; iterate it (``async for event in sub``) in a task.

    Iteration ends when the bus is closed (after the events before it) or when the
    subscriber was dropped for falling behind (``dropped`` is then True).
    """

    def __init__(self, bus: EventBus, size: int, *, moves: bool = True) -> None:
        if size < 1:
            raise ValueError("a subscription needs room for at least one event")
        self._bus = bus
        self._size = size
        self.moves = moves
        """Whether it is handed `MoveMade` events (False: starts and ends only)."""
        self._queue: deque[Event] = deque()
        self._wakeup = trio.Event()
        self.closed = False
        self.dropped = False

    def _offer(self, event: Event) -> bool:
        """Queue ``event``; False (and dropped) if the buffer is full."""
        if self.closed:
            return False
        if len(self._queue) >= self._size:
            self.dropped = True
            self._queue.clear()  # what it missed is gone: it must resynchronise
            self._close()
            return False
        self._queue.append(event)
        self._wakeup.set()
        return True

    def _close(self) -> None:
        self.closed = True
        self._wakeup.set()

    def close(self) -> None:
        """Stop receiving (the subscriber leaves); events already queued are discarded."""
        self._bus._remove(self)
        self._queue.clear()
        self._close()

    @property
    def pending(self) -> int:
        return len(self._queue)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        while True:
            if self._queue:
                yield self._queue.popleft()
                continue
            if self.closed:
                return
            self._wakeup = trio.Event()
            await self._wakeup.wait()

    async def receive(self) -> Event | None:
        """The next event, or None once closed or dropped."""
        while not self._queue:
            if self.closed:
                return None
            self._wakeup = trio.Event()
            await self._wakeup.wait()
        return self._queue.popleft()


Listener: TypeAlias = Callable[["Event"], None]


class EventBus:
    """Fans published events out to subscriptions and listeners; `publish` never blocks."""

    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []
        self._listeners: list[Listener] = []
        self._no_moves: list[Listener] = []
        """The listeners of ``_listeners`` not handed `MoveMade` events."""
        self._forwards: list[EventBus] = []
        """The buses that `forward` publishes to (each also a listener)."""
        self.errors: list[BaseException] = []
        self.dropped = 0
        """How many subscriptions were dropped for falling behind."""
        self.closed = False

    def subscribe(self, size: int = DEFAULT_BUFFER, *, moves: bool = True) -> Subscription:
        """A subscription holding up to ``size`` events; ``moves=False``: none of the
        `MoveMade` events (the games' starts and ends only)."""
        subscription = Subscription(self, size, moves=moves)
        if self.closed:
            subscription._close()
        else:
            self._subscriptions.append(subscription)
        return subscription

    def listen(self, callback: Listener, *, moves: bool = True) -> Callable[[], None]:
        """Call ``callback(event)`` for every event (``moves=False``: but `MoveMade`), in
        the publisher's task; returns a function that stops it. The callback must not block
        (it cannot await)."""
        self._listeners.append(callback)
        if not moves:
            self._no_moves.append(callback)

        def stop() -> None:
            self._drop(callback)

        return stop

    def forward(self, to: EventBus) -> Callable[[], None]:
        """Publish every event on ``to`` as well (in the publisher's task), its moves only
        while ``to`` wants them; returns a function that stops it."""
        self._forwards.append(to)
        stop_listening = self.listen(to.publish, moves=False)

        def stop() -> None:
            stop_listening()
            if to in self._forwards:
                self._forwards.remove(to)

        return stop

    @property
    def subscribers(self) -> int:
        return len(self._subscriptions) + len(self._listeners)

    @property
    def wants_moves(self) -> bool:
        """Whether a subscriber takes `MoveMade` events (here, or on a bus forwarded to):
        the match loop makes one only then."""
        return (
            len(self._listeners) > len(self._no_moves)
            or any(subscription.moves for subscription in self._subscriptions)
            or any(to.wants_moves for to in self._forwards)
        )

    def publish(self, event: Event) -> None:
        if self.closed:
            return
        if event.is_move:
            self._publish_move(event)
            return
        for callback in list(self._listeners):
            try:
                callback(event)
            except Exception as exc:  # a broken listener must not break the game
                self.errors.append(exc)
                self._drop(callback)
        keep = []
        for subscription in self._subscriptions:
            if subscription._offer(event):
                keep.append(subscription)
            elif subscription.dropped:
                self.dropped += 1
        self._subscriptions = keep

    def _publish_move(self, event: Event) -> None:
        """`publish` of a `MoveMade`: to those who take moves, and to the buses forwarded
        to that want them."""
        quiet = self._no_moves
        for callback in list(self._listeners):
            if callback in quiet:
                continue
            try:
                callback(event)
            except Exception as exc:  # a broken listener must not break the game
                self.errors.append(exc)
                self._drop(callback)
        for to in list(self._forwards):
            if to.wants_moves:
                to.publish(event)
        keep = []
        for subscription in self._subscriptions:
            if not subscription.moves or subscription._offer(event):
                keep.append(subscription)
            elif subscription.dropped:
                self.dropped += 1
        self._subscriptions = keep

    def _drop(self, callback: Listener) -> None:
        """Remove a listener (and its ``moves=False``, which `wants_moves` counts)."""
        if callback in self._listeners:
            self._listeners.remove(callback)
        if callback in self._no_moves:
            self._no_moves.remove(callback)

    def _remove(self, subscription: Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)

    def close(self) -> None:
        """No more events: every subscription ends after what it has queued."""
        self.closed = True
        for subscription in self._subscriptions:
            subscription._close()
        self._subscriptions = []
        self._listeners = []
        self._no_moves = []
        self._forwards = []
