"""A served connection reads its socket directly (`hub.core.io.serve._OutboxStream`), as
trio's ``SocketStream.receive_some`` would: each case runs with both readers and must give
the same data, the same end and the same errors."""

from __future__ import annotations

import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import trio
import trio.testing

from hub.core.io.outbox import Outbox
from hub.core.io.serve import _OutboxStream

Reader = Callable[[trio.SocketStream], Callable[..., Awaitable[bytes | bytearray]]]


def trio_reader(stream: trio.SocketStream) -> Callable[..., Awaitable[bytes | bytearray]]:
    return stream.receive_some


def direct_reader(stream: trio.SocketStream) -> Callable[..., Awaitable[bytes | bytearray]]:
    return _OutboxStream(stream, Outbox(stream)).receive_some


pytestmark = pytest.mark.system  # real loopback sockets: what is read directly

READERS = pytest.mark.parametrize("reader", [trio_reader, direct_reader], ids=["trio", "direct"])


async def tcp_pair() -> tuple[trio.SocketStream, trio.SocketStream]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream("127.0.0.1", port)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    return server, client


@pytest.fixture
async def pair() -> AsyncIterator[tuple[trio.SocketStream, trio.SocketStream]]:
    server, client = await tcp_pair()
    try:
        yield server, client
    finally:
        await server.aclose()
        await client.aclose()


@READERS
async def test_reads_what_is_there_and_what_comes_later(
    reader: Reader, pair: tuple[trio.SocketStream, trio.SocketStream]
) -> None:
    server, client = pair
    receive = reader(server)
    with trio.fail_after(5):
        await client.send_all(b"hello\n")
        await trio.lowlevel.wait_readable(server.socket)  # in the socket before the read
        assert await receive() == b"hello\n"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.send_all, b"later")
            assert await receive(3) == b"lat"  # at most max_bytes
        assert await receive() == b"er"
        with pytest.raises(ValueError):
            await receive(0)
        await client.aclose()
        assert await receive() == b""  # the peer's end


@READERS
async def test_a_read_is_a_checkpoint_and_can_be_cancelled(
    reader: Reader, pair: tuple[trio.SocketStream, trio.SocketStream]
) -> None:
    server, client = pair
    receive = reader(server)
    with trio.fail_after(5):
        await client.send_all(b"x")
        await trio.lowlevel.wait_readable(server.socket)
        with trio.CancelScope() as scope:
            scope.cancel()
            await receive()  # data is there, but the scope is cancelled: not read
        assert scope.cancelled_caught
        assert await receive() == b"x"
        async with trio.open_nursery() as nursery:
            waiting = trio.CancelScope()

            async def wait() -> None:
                with waiting:
                    await receive()  # nothing comes

            nursery.start_soon(wait)
            await trio.testing.wait_all_tasks_blocked()
            waiting.cancel()
        assert waiting.cancelled_caught


@READERS
async def test_closed_by_another_task_is_closed_resource(
    reader: Reader, pair: tuple[trio.SocketStream, trio.SocketStream]
) -> None:
    server, _client = pair
    receive = reader(server)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:

            async def close_soon() -> None:
                await trio.testing.wait_all_tasks_blocked()
                await trio.aclose_forcefully(server)

            nursery.start_soon(close_soon)
            with pytest.raises(trio.ClosedResourceError):
                await receive()  # waiting when it is closed
        with pytest.raises(trio.ClosedResourceError):
            await receive()  # and after


@READERS
async def test_a_reset_is_broken_resource(reader: Reader) -> None:
    server, client = await tcp_pair()
    receive = reader(server)
    try:
        with trio.fail_after(5):
            client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            await client.aclose()  # an RST, not a FIN
            await trio.lowlevel.wait_readable(server.socket)
            with pytest.raises(trio.BrokenResourceError):
                await receive()
    finally:
        await server.aclose()


async def test_a_stream_that_is_not_a_socket_reads_through_its_own() -> None:
    left, right = trio.testing.memory_stream_pair()
    stream = _OutboxStream(left, Outbox(left))
    with trio.fail_after(5):
        await right.send_all(b"abc")
        assert await stream.receive_some(2) == b"ab"
