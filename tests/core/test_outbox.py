"""The bounded per-peer writer: one writer task, sends that never block, slow peers cut off."""

from __future__ import annotations

import trio
import trio.testing

from hub.core.outbox import Outbox


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
