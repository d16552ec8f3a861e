"""Newline-delimited text over any trio byte stream, with bounded lines and clear errors.

`LineStream` is the one place where every game reads and writes protocol lines:

* `receive_line` returns one line without its ``\\n``, decoded as Latin-1 (so any byte
  decodes and the game's sans-IO parser decides what is valid). A line longer than
  ``max_line`` raises `LineTooLong` without buffering more than that; the peer closing the
  stream raises `PeerClosed` (with the partial line, if any); a broken transport raises
  `TransportFailed`. These separate "the peer broke the conversation" from "we closed it".
* `send_line` writes at once; `queue_line` + `flush` batch several lines into one write,
  which is what a referee broadcasting to many seats wants. With ``ignore_send_errors`` a
  failed write is swallowed: the next read reports the loss (the clubs rule, and a good
  one for any peer that may vanish between our write and its read).
* `iter_lines` is the reading loop most line-driven programs want: every line until the end
  of the input, an over-long line skipped whole and reported once.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence

import trio

DEFAULT_MAX_LINE = 4096


class LineError(Exception):
    """Base class for every failure of a line stream."""


class PeerClosed(LineError):
    """The peer closed its side (EOF). ``partial`` holds bytes received after the last newline."""

    def __init__(self, partial: bytes = b"") -> None:
        super().__init__("peer closed the stream" + (" mid-line" if partial else ""))
        self.partial = partial


class LineTooLong(LineError):
    """The peer sent more than ``max_line`` bytes without a newline.

    ``dropped`` is True when the whole line (through its newline) was already discarded;
    otherwise the rest of it has not arrived yet and `LineStream.skip_line` discards it.
    """

    def __init__(self, max_line: int, *, dropped: bool = False) -> None:
        super().__init__(f"line longer than {max_line} bytes")
        self.max_line = max_line
        self.dropped = dropped


class TransportFailed(LineError):
    """The stream broke (reset, closed pipe) rather than ending cleanly."""


class LineStream:
    """Lines over a receive stream and a send stream (the same object for a socket)."""

    def __init__(
        self,
        receive: trio.abc.ReceiveStream | None,
        send: trio.abc.SendStream | None,
        *,
        max_line: int = DEFAULT_MAX_LINE,
        ignore_send_errors: bool = False,
        chunk: int = 65536,
    ) -> None:
        if max_line < 1:
            raise ValueError("max_line must be positive")
        self._receive = receive
        self._send = send
        self.max_line = max_line
        self.ignore_send_errors = ignore_send_errors
        self._chunk = chunk
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline
        self._eof = False
        self._outgoing = bytearray()
        self.send_failed = False
        self.last_line_at = -float("inf")
        """trio time at which `receive_line` last returned a line (a server's idle timer)."""

    # -- receiving ------------------------------------------------------------------------

    async def _fill(self) -> None:
        if self._receive is None:
            raise TransportFailed("stream has no receiving side")
        try:
            data = await self._receive.receive_some(self._chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise TransportFailed(str(exc) or type(exc).__name__) from exc
        if not data:
            self._eof = True
        else:
            self._buffer += data

    async def receive_line(self, max_line: int | None = None) -> str:
        """One line without its newline. Raises `PeerClosed`, `LineTooLong`, `TransportFailed`."""
        limit = self.max_line if max_line is None else max_line
        while True:
            index = self._buffer.find(b"\n", self._scanned)
            if index >= 0:
                if index > limit:
                    self._discard_line(index)
                    raise LineTooLong(limit, dropped=True)
                line = bytes(self._buffer[:index])
                del self._buffer[: index + 1]
                self._scanned = 0
                self.last_line_at = trio.current_time()
                return line.decode("latin-1")
            self._scanned = len(self._buffer)
            if self._scanned > limit:
                raise LineTooLong(limit)
            if self._eof:
                partial = bytes(self._buffer)
                self._buffer.clear()
                self._scanned = 0
                raise PeerClosed(partial)
            await self._fill()

    def _discard_line(self, index: int) -> None:
        del self._buffer[: index + 1]
        self._scanned = 0

    async def skip_line(self) -> None:
        """Discard input up to and including the next newline, however long (bounded memory)."""
        while True:
            index = self._buffer.find(b"\n")
            if index >= 0:
                self._discard_line(index)
                return
            self._buffer.clear()
            self._scanned = 0
            if self._eof:
                raise PeerClosed()
            await self._fill()

    async def receive_exactly(self, count: int) -> bytes:
        """Exactly ``count`` bytes (newlines included); `PeerClosed` if the stream ends first."""
        while len(self._buffer) < count:
            if self._eof:
                partial = bytes(self._buffer)
                self._buffer.clear()
                raise PeerClosed(partial)
            await self._fill()
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        self._scanned = 0
        return data

    # -- sending --------------------------------------------------------------------------

    def queue_line(self, line: str) -> None:
        """Add a line (a newline is appended) to the outgoing buffer; `flush` sends it."""
        self._outgoing += line.encode("latin-1")
        self._outgoing += b"\n"

    def queue_lines(self, lines: Sequence[str]) -> None:
        """`queue_line` for each of ``lines`` (at least one), in one step."""
        self._outgoing += "\n".join(lines).encode("latin-1")
        self._outgoing += b"\n"

    def queue_raw(self, data: bytes) -> None:
        self._outgoing += data

    async def flush(self) -> None:
        """Send everything queued in one write (one function: it runs for every write)."""
        outgoing = self._outgoing
        if not outgoing:
            return
        if self._send is None:
            raise TransportFailed("stream has no sending side")
        data = bytes(outgoing)
        outgoing.clear()
        if self.send_failed and self.ignore_send_errors:
            return
        try:
            await self._send.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            self.send_failed = True
            if not self.ignore_send_errors:
                raise TransportFailed(str(exc) or type(exc).__name__) from exc

    async def flush_eagerly(self) -> None:
        """`flush`, but to a pipe (`trio.lowlevel.FdStream`) with room the queued bytes are
        written at once: trio's ``send_all`` first yields to its scheduler (a round trip of
        its run loop), which a UCI engine's ``go`` waits for on the way to the engine's
        clock. A cancellation is still seen here (``checkpoint_if_cancelled``); what the pipe
        has no room for, and any error, is left to `flush` as before. For a stream with one
        writer (an engine's: its seat; a match worker's: its slot, and the worker's answers:
        its loop), since the write bypasses trio's conflict check."""
        send, outgoing = self._send, self._outgoing
        if outgoing and type(send) is trio.lowlevel.FdStream and not self.send_failed:
            await trio.lowlevel.checkpoint_if_cancelled()
            try:
                written = os.write(send.fileno(), outgoing)
            except OSError:  # would block, or broken: `flush` tells which
                written = 0
            del outgoing[:written]
            if not outgoing:
                return
        await self.flush()

    async def send_line(self, line: str) -> None:
        self.queue_line(line)
        await self.flush()

    async def aclose(self) -> None:
        """Close both sides (each at most once)."""
        closed: list[object] = []
        for stream in (self._send, self._receive):
            if stream is not None and not any(stream is seen for seen in closed):
                closed.append(stream)
                await stream.aclose()


def iter_lines(stream: LineStream, *, final_partial: bool = False) -> LineIterator:
    """``async for line in iter_lines(stream)``: each line of ``stream`` until it ends.

    Yields each line (a `str`, as `LineStream.receive_line` returns it) or, for a line longer
    than ``stream.max_line``, the `LineTooLong` error, once the rest of that line has been
    skipped (so the next item is the line after it). The end of the input (`PeerClosed`) ends
    the iteration: with ``final_partial`` the bytes after the last newline come first as one
    last line; an over-long line cut by the end of the input is not reported. A broken
    transport (`TransportFailed`) propagates. A plain iterator, not a generator: leaving the
    loop early needs no ``aclosing``.
    """
    return LineIterator(stream, final_partial=final_partial)


class LineIterator(AsyncIterator["str | LineTooLong"]):
    """See `iter_lines`."""

    def __init__(self, stream: LineStream, *, final_partial: bool = False) -> None:
        self._stream = stream
        self._final_partial = final_partial
        self._ended = False

    def __aiter__(self) -> LineIterator:
        return self

    async def __anext__(self) -> str | LineTooLong:
        if self._ended:
            raise StopAsyncIteration
        try:
            try:
                return await self._stream.receive_line()
            except LineTooLong as exc:
                if not exc.dropped:
                    await self._stream.skip_line()
                return exc
        except PeerClosed as closed:
            self._ended = True
            if self._final_partial and closed.partial:
                return closed.partial.decode("latin-1")
            raise StopAsyncIteration from None
