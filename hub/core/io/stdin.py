"""Reading standard input (or any fd) from trio without making it non-blocking.

`trio.lowlevel.FdStream` sets O_NONBLOCK on the file description, which a terminal shares
with the shell that started us, and it cannot poll a regular file (``prog < commands``).
So a thread reads instead: ttys, pipes and files alike.

`ThreadedFdReceiveStream` is a `trio.abc.ReceiveStream` over a blocking fd. At the first
receive it starts ONE long-lived daemon thread that reads the fd and hands each chunk to the
trio side over a memory channel of ``buffer`` chunks, so read-ahead is bounded (the thread
waits while the channel is full). A cancelled receive takes nothing from the channel, and
what a receive could not return (``max_bytes``) is kept for the next one: no byte the thread
has read is ever lost. (A read per receive in a worker abandoned on cancel would lose
whatever that thread read afterwards.) End of input is sticky: ``b""`` from then on. The fd
is never closed by this module; a thread blocked in ``read`` when the stream is closed or
the run ends exits at its next chunk, and never outlives the process.

`LineInput` / `open_line_input` give the lines typed by a person on top of such a stream:
each line capped at ``max_line`` bytes (the rest of an over-long line is dropped), decoded
as UTF-8, None at end of input. A cancelled `LineInput.receive` (a person who ran out of
time) loses no typed line either.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

DEFAULT_CHUNK = 65536
DEFAULT_BUFFER = 16
DEFAULT_MAX_LINE = 1024


def _read_loop(
    fd: int,
    chunk: int,
    send: trio.MemorySendChannel[bytes | OSError],
    token: trio.lowlevel.TrioToken,
) -> None:
    """The reader thread: chunks (then an OSError, if any) into ``send``; closed at EOF."""
    try:
        while True:
            try:
                data: bytes | OSError = os.read(fd, chunk)
            except OSError as exc:
                data = exc
            if not data:
                break
            trio.from_thread.run(send.send, data, trio_token=token)
            if isinstance(data, OSError):
                break
        trio.from_thread.run_sync(send.close, trio_token=token)
    except KeyboardInterrupt:
        # A Ctrl-C (or a SIGTERM, which is delivered as one: core/commands/running.py) that landed
        # in the trio thread while it ran our hand-off, which trio runs unprotected and
        # whose exceptions it sends here. Swallowed, the program would carry on as if
        # nothing was pressed: raise it again, for the main thread.
        signal.raise_signal(signal.SIGINT)
    except BaseException:
        # Nobody listens any more (the stream was closed: BrokenResourceError; the run is
        # over: RunFinishedError or Cancelled). A reader thread must not print.
        return


class ThreadedFdReceiveStream(trio.abc.ReceiveStream):
    """A `trio.abc.ReceiveStream` over a blocking file descriptor (default: stdin)."""

    def __init__(
        self, fd: int = 0, *, chunk: int = DEFAULT_CHUNK, buffer: int = DEFAULT_BUFFER
    ) -> None:
        self._fd = fd
        self._chunk = chunk
        self._buffer = buffer
        self._receive: trio.MemoryReceiveChannel[bytes | OSError] | None = None
        self._pending = b""
        self._eof = False
        self._error: OSError | None = None
        self._closed = False
        self._busy = False

    def _start(self) -> trio.MemoryReceiveChannel[bytes | OSError]:
        send, receive = trio.open_memory_channel[bytes | OSError](self._buffer)
        thread = threading.Thread(
            target=_read_loop,
            args=(self._fd, self._chunk, send, trio.lowlevel.current_trio_token()),
            name=f"hub-fd{self._fd}-reader",
            daemon=True,
        )
        thread.start()
        self._receive = receive
        return receive

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("stream was closed")
        if self._busy:
            raise trio.BusyResourceError("another task is already receiving")
        self._busy = True
        try:
            if not self._pending and not self._eof and self._error is None:
                receive = self._receive or self._start()
                try:
                    item = await receive.receive()
                except trio.EndOfChannel:
                    self._eof = True
                else:
                    if isinstance(item, OSError):
                        self._error = item
                    else:
                        self._pending = item
            else:
                await trio.lowlevel.checkpoint()
            if self._closed:
                raise trio.ClosedResourceError("stream was closed")
            if self._error is not None:
                raise trio.BrokenResourceError(str(self._error)) from self._error
            limit = max_bytes or self._chunk
            data, self._pending = self._pending[:limit], self._pending[limit:]
            return data
        finally:
            self._busy = False

    async def aclose(self) -> None:
        self._closed = True
        if self._receive is not None:
            self._receive.close()  # the thread's next send fails and it ends
        await trio.lowlevel.checkpoint()


class LineInput:
    """Lines from a receive stream: `receive` returns the next line (without its newline) or
    None at end of input.

    A line is at most ``max_line`` bytes: of a longer one the first ``max_line`` (decoded,
    at most ``max_line`` characters) are returned and the rest, up to its newline, is dropped.
    Trailing CR/LF are removed; bytes that are not UTF-8 become U+FFFD; a last line without
    a newline still counts. State lives here, so a cancelled `receive` loses nothing.
    """

    def __init__(self, stream: trio.abc.ReceiveStream, max_line: int = DEFAULT_MAX_LINE) -> None:
        self._stream = stream
        self._max_line = max_line
        self._buffer = bytearray()
        self._eof = False
        self._skipping = False
        """Dropping the rest of an over-long line already returned."""

    async def _fill(self) -> None:
        data = await self._stream.receive_some()
        if data:
            self._buffer += data
        else:
            self._eof = True

    async def receive(self) -> str | None:
        await trio.lowlevel.checkpoint()
        while self._skipping:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                del self._buffer[: newline + 1]
                self._skipping = False
            else:
                self._buffer.clear()
                if self._eof:
                    self._skipping = False
                else:
                    await self._fill()
        limit = self._max_line + 1
        while True:
            newline = self._buffer.find(b"\n", 0, limit)
            if newline >= 0:
                end = newline + 1
                break
            if len(self._buffer) >= limit:
                end = limit
                self._skipping = True
                break
            if self._eof:
                end = len(self._buffer)
                break
            await self._fill()
        if end == 0:
            return None
        data = bytes(self._buffer[:end])
        del self._buffer[:end]
        return data.rstrip(b"\r\n").decode("utf-8", "replace")[: self._max_line]


@asynccontextmanager
async def open_line_input(
    source: int | trio.abc.ReceiveStream = 0,
    *,
    max_line: int = DEFAULT_MAX_LINE,
    buffer: int = DEFAULT_BUFFER,
) -> AsyncIterator[LineInput]:
    """Lines from ``source`` (an fd, standard input by default, or a stream) for the block.

    An fd is read by a `ThreadedFdReceiveStream` of ``buffer`` chunks, closed at the end.
    """
    if isinstance(source, int):
        stream = ThreadedFdReceiveStream(source, buffer=buffer)
        async with stream:
            yield LineInput(stream, max_line)
    else:
        yield LineInput(source, max_line)


def ensure_standard_fds() -> None:
    """Open /dev/null on any of fds 0-2 that is closed.

    Otherwise the next socket or pipe we open would get that number, and reading "stdin" or
    writing "stderr" would go to it (``prog <&-`` or ``2>&-``).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:  # pragma: no cover - the lowest free fd is the closed one
                os.dup2(null, fd)
                os.close(null)
