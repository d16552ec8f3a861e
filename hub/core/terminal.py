"""Lines typed by a person, read without blocking trio: one reader thread, a bounded channel.

Reading a terminal in trio without a thread would need non-blocking mode on a file
description shared with the shell. Instead `open_line_input` starts one daemon thread that
reads lines (each capped at ``max_line`` bytes; the rest of an over-long line is dropped)
and hands them to the trio side over a memory channel of ``buffer`` lines, so typed-ahead
input waits its turn and cannot grow without bound. End of input is reported as None.
The thread never outlives the process and holds nothing that needs closing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import BinaryIO

import trio

DEFAULT_MAX_LINE = 1024


class LineInput:
    """The trio side: `receive` returns the next line (without its newline) or None at EOF."""

    def __init__(self, receive: trio.MemoryReceiveChannel[str | None]) -> None:
        self._receive = receive
        self._eof = False

    async def receive(self) -> str | None:
        if self._eof:
            return None
        try:
            line = await self._receive.receive()
        except trio.EndOfChannel:
            line = None
        if line is None:
            self._eof = True
        return line


def _reader(
    stream: BinaryIO,
    send: trio.MemorySendChannel[str | None],
    token: trio.lowlevel.TrioToken,
    max_line: int,
) -> None:
    try:
        while True:
            data = stream.readline(max_line + 1)
            if not data:
                break
            if len(data) > max_line and not data.endswith(b"\n"):
                while (rest := stream.readline(max_line)) and not rest.endswith(b"\n"):
                    pass  # drop the rest of an over-long line
            text = data.rstrip(b"\r\n").decode("utf-8", "replace")[:max_line]
            trio.from_thread.run(send.send, text, trio_token=token)
        trio.from_thread.run(send.send, None, trio_token=token)
    except Exception:
        # The program is finishing (the run is over, the channel or even stdin is closed at
        # interpreter exit: ValueError) or nobody listens any more: a reader must not print.
        return


@asynccontextmanager
async def open_line_input(
    stream: BinaryIO | None = None, *, max_line: int = DEFAULT_MAX_LINE, buffer: int = 16
) -> AsyncIterator[LineInput]:
    """Read lines from ``stream`` (standard input by default) for the duration of the block."""
    source = stream if stream is not None else sys.stdin.buffer
    send, receive = trio.open_memory_channel[str | None](buffer)
    thread = threading.Thread(
        target=_reader,
        args=(source, send, trio.lowlevel.current_trio_token(), max_line),
        name="hub-terminal-input",
        daemon=True,
    )
    thread.start()
    async with receive:
        yield LineInput(receive)
