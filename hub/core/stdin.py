"""Reading standard input (or any fd) from trio without making it non-blocking.

`trio.lowlevel.FdStream` sets O_NONBLOCK on the file description, which a terminal shares
with the shell that started us, and it cannot poll a regular file (``prog < commands``).
`ThreadedFdReceiveStream` reads in a worker thread instead: ttys, pipes and files alike.
A cancelled read abandons its thread (blocked in ``read``), which is fine for a program
that is about to exit; the fd is never closed by this class.
"""

from __future__ import annotations

import os

import trio

DEFAULT_CHUNK = 65536


class ThreadedFdReceiveStream(trio.abc.ReceiveStream):
    """A `trio.abc.ReceiveStream` over a blocking file descriptor (default: stdin)."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._closed = False

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("stream was closed")
        try:
            return await trio.to_thread.run_sync(
                os.read, self._fd, max_bytes or DEFAULT_CHUNK, abandon_on_cancel=True
            )
        except OSError as exc:
            raise trio.BrokenResourceError(str(exc)) from exc

    async def aclose(self) -> None:
        self._closed = True
        await trio.lowlevel.checkpoint()


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
