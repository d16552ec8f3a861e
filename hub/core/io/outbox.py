"""A bounded per-peer writer: lines from many tasks, written by one task, never blocking.

Several tasks may have something to say to one peer (a client's own task, its opponent's,
a computer's move arriving). `Outbox.send` appends whole lines to a buffer and never blocks,
so no sender waits behind a slow peer and lines never interleave; `Outbox.run` is the one
task that writes. The buffer is bounded: a peer that stops reading until more than ``limit``
bytes are queued (counting the write in progress) is cut off (`Outbox.broken` and
`Outbox.overflowed`, the writer's cancel scope cancelled) instead of stalling everyone who
talks to it. `Outbox.drained` waits until everything sent so far is written. Every TCP
connection of `hub.core.io.serve` writes through one.

On a socket, a send to an idle outbox (nothing queued, no write in progress) is first
written at once, without blocking, in the sender's task; only what the socket does not take
is queued for the writer. A reply then costs no switch to the writer task and back: about a
tenth of what a UQChess server spends on a human move, which sends two.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import trio

DEFAULT_LIMIT = 1 << 20
"""Bytes queued for a peer that does not read before it is disconnected."""


class Outbox:
    """Lines for one client, written by one task; `send` never blocks."""

    def __init__(self, stream: trio.abc.SendStream, limit: int = DEFAULT_LIMIT) -> None:
        self._stream = stream
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        """The socket written at once when the outbox is idle (-1: not a socket)."""
        self.limit = limit
        self._buffer = bytearray()
        self._in_flight = 0  # bytes taken from the buffer by the write in progress
        self._wakeup = trio.Event()
        self._idle = trio.Event()
        self._idle.set()
        self.broken = False
        self.overflowed = False
        """Broken because the peer fell more than ``limit`` bytes behind."""
        self._scope: trio.CancelScope | None = None

    def send(self, lines: Sequence[str]) -> None:
        """Queue whole lines (a newline is added to each); never blocks."""
        self.send_bytes(b"".join(line.encode("latin-1", "replace") + b"\n" for line in lines))

    def send_bytes(self, data: bytes) -> None:
        """Queue ``data`` as it is; never blocks."""
        if self.broken:
            return
        if self._fd >= 0 and data and not self._buffer and not self._in_flight:
            try:
                written = os.write(self._fd, data)
            except (BlockingIOError, InterruptedError):
                written = 0  # the socket is full: the writer waits for room
            except OSError:
                self._break()  # the peer is gone (the writer would have found it so too)
                return
            data = data[written:]
            if not data:
                return
        self._buffer += data
        if len(self._buffer) + self._in_flight > self.limit:
            self.overflowed = True
            self._break()
            return
        if not self._buffer:
            return
        self._idle = trio.Event() if self._idle.is_set() else self._idle
        self._wakeup.set()

    def _break(self) -> None:
        self.broken = True
        self._buffer.clear()
        self._idle.set()
        if self._scope is not None:
            self._scope.cancel()

    async def run(self, scope: trio.CancelScope) -> None:
        """Write until cancelled; a failed write cancels ``scope`` (the client is gone)."""
        self._scope = scope
        if self.broken:
            scope.cancel()
            return
        while True:
            if not self._buffer:
                self._idle.set()
                self._wakeup = trio.Event()
                await self._wakeup.wait()
                continue
            data = bytes(self._buffer)
            self._buffer.clear()
            self._in_flight = len(data)
            try:
                await self._stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self._break()
                return
            finally:
                self._in_flight = 0

    async def drained(self) -> None:
        """Wait until everything sent so far is written (or the client is gone)."""
        await self._idle.wait()
