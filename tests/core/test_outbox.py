"""The bounded per-peer writer: one writer task, sends that never block, slow peers cut off."""

from __future__ import annotations

import trio
import trio.testing

from hub.core.io.outbox import Outbox


def start_writer(nursery: trio.Nursery, outbox: Outbox) -> trio.CancelScope:
    """Run the outbox's writer in its own cancel scope (a connection's, in a server)."""
    scope = trio.CancelScope()

    async def writer() -> None:
        with scope:
            await outbox.run(scope)

    nursery.start_soon(writer)
    return scope


async def test_a_client_that_does_not_read_is_cut_off() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    outbox = Outbox(ours, limit=100)
    async with trio.open_nursery() as nursery:
        scope = start_writer(nursery, outbox)
        outbox.send(["ok"])
        assert await theirs.receive_some() == b"ok\n"
        await outbox.drained()
        outbox.send(["x" * 60, "y" * 60])  # over the limit before the writer could run
        assert outbox.broken
    assert scope.cancelled_caught
    outbox.send(["ignored"])  # sends after that are dropped, never raise


async def test_lines_from_many_senders_arrive_whole_and_in_order() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    outbox = Outbox(ours)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.run, nursery.cancel_scope)
        outbox.send(["a", "b"])
        outbox.send([])
        outbox.send(["c"])
        await outbox.drained()
        data = b""
        while not data.endswith(b"c\n"):
            data += await theirs.receive_some()
        assert data == b"a\nb\nc\n"
        nursery.cancel_scope.cancel()
    assert not outbox.broken


async def test_a_peer_that_is_gone_breaks_the_outbox() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    await theirs.aclose()
    outbox = Outbox(ours)
    async with trio.open_nursery() as nursery:
        scope = start_writer(nursery, outbox)
        outbox.send(["hello"])
        await outbox.drained()
    assert outbox.broken
    assert scope.cancel_called  # the connection's other tasks are told to stop


async def test_on_a_socket_an_idle_outbox_writes_at_once_and_queues_what_does_not_fit() -> None:
    mine, peer = trio.socket.socketpair()
    ours, theirs = trio.SocketStream(mine), trio.SocketStream(peer)
    outbox = Outbox(ours, limit=1 << 22)
    outbox.send(["hello"])  # no writer task is running: written in this task
    with trio.fail_after(5):  # (only if it was not: then nothing would ever come)
        assert await theirs.receive_some() == b"hello\n"
    big = b"x" * (1 << 21)  # more than the socket's buffers hold
    outbox.send_bytes(big)
    outbox.send(["end"])  # queued behind the rest of ``big``, never written before it
    assert not outbox.broken
    async with trio.open_nursery() as nursery:
        start_writer(nursery, outbox)
        got = bytearray()
        while not got.endswith(b"end\n"):
            got += await theirs.receive_some()
        assert bytes(got) == big + b"end\n"
        await outbox.drained()
        nursery.cancel_scope.cancel()


async def test_on_a_socket_a_peer_that_is_gone_breaks_the_outbox_at_the_send() -> None:
    mine, peer = trio.socket.socketpair()
    peer.close()
    outbox = Outbox(trio.SocketStream(mine))
    outbox.send(["hello"])
    assert outbox.broken
    outbox.send(["ignored"])  # never raises
