"""A small client of the web view's event streams, for tests, benchmarks and tools.

`EventParser` is the sans-IO half: bytes of a ``text/event-stream`` in, the JSON messages of
its ``data:`` lines out. `follow` is the thin trio half: one GET over a TCP connection (h11,
which hypercorn already brings), yielding each message as it arrives, until the server ends
the stream or goes away.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import h11
import trio

MAX_EVENT = 1 << 22
"""Bytes of one event (a chess board is about 30 kB) before the stream is given up."""


class StreamError(Exception):
    """The server did not answer with an event stream, or broke it."""


class EventParser:
    """Splits an event stream into events and decodes each event's data as JSON.

    Comments (``: keepalive``) and fields other than ``data`` are skipped; an event whose
    data is not JSON raises `StreamError`.
    """

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[Any]:
        self._buffer += data.replace(b"\r\n", b"\n")
        messages = []
        while b"\n\n" in self._buffer:
            block, self._buffer = self._buffer.split(b"\n\n", 1)
            lines = [
                line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:")
            ]
            if lines:
                try:
                    messages.append(json.loads(b"\n".join(lines)))
                except ValueError as exc:
                    raise StreamError(f"an event is not JSON: {exc}") from None
        if len(self._buffer) > MAX_EVENT:
            raise StreamError("an event is too long")
        return messages


@asynccontextmanager
async def follow(host: str, port: int, path: str) -> AsyncIterator[AsyncIterator[Any]]:
    """``async with follow(host, port, "/events") as messages: async for m in messages``."""
    stream = await trio.open_tcp_stream(host, port)
    async with stream:
        connection = h11.Connection(h11.CLIENT)
        request = h11.Request(
            method="GET",
            target=path,
            headers=[("Host", f"{host}:{port}"), ("Accept", "text/event-stream")],
        )
        await stream.send_all(connection.send(request) + connection.send(h11.EndOfMessage()))
        yield _messages(stream, connection)


async def _messages(stream: trio.SocketStream, connection: h11.Connection) -> AsyncIterator[Any]:
    parser = EventParser()
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError:
            return  # the server went away mid-stream (it stopped): the stream is over
        if event is h11.NEED_DATA:
            connection.receive_data(await stream.receive_some(65536))
            continue
        if isinstance(event, h11.Response):
            if event.status_code != 200:
                raise StreamError(f"HTTP status {event.status_code}")
        elif isinstance(event, h11.Data):
            for message in parser.feed(bytes(event.data)):
                yield message
        elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
            return
