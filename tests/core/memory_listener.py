"""`MemoryListener`: a `trio.abc.Listener` over in-memory streams, for servers under test.

`connect` makes a `trio.testing.memory_stream_pair`, queues one end for `accept` and returns
the other (the client's); `connect_lockstep` the same without buffering. `errors` are
raised by the next accepts, in order, to test an accept
loop's error handling. No sockets, no ports: the server's logic runs on the autojump clock.
"""

from __future__ import annotations

import trio
import trio.testing


class MemoryListener(trio.abc.Listener[trio.abc.Stream]):
    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[trio.abc.Stream](100)
        self.errors: list[BaseException] = []
        self.closed = False

    async def connect(
        self,
    ) -> trio.StapledStream[trio.testing.MemorySendStream, trio.testing.MemoryReceiveStream]:
        client, server = trio.testing.memory_stream_pair()
        await self._send.send(server)
        return client

    async def connect_lockstep(self) -> trio.abc.Stream:
        """A connection without buffering: the server's writes wait until the client reads
        (`trio.testing.lockstep_stream_pair`), as a full socket buffer would."""
        client, server = trio.testing.lockstep_stream_pair()
        await self._send.send(server)
        return client

    async def accept(self) -> trio.abc.Stream:
        if self.closed:
            raise trio.ClosedResourceError
        if self.errors:
            await trio.lowlevel.checkpoint()
            raise self.errors.pop(0)
        return await self._receive.receive()

    async def aclose(self) -> None:
        self.closed = True
        await trio.lowlevel.checkpoint()
