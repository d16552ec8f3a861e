"""TCP serving on real loopback sockets: port resolution, caps, bad handlers, long lines."""

from __future__ import annotations

import errno
import gc
import socket

import pytest
import trio

from hub.core.io.limits import (
    FULL_COLLECTION_THRESHOLD,
    MIDDLE_COLLECTION_THRESHOLD,
    SERVING_GC_THRESHOLD,
    collect_less_often,
)
from hub.core.io.listen import ListenError, bound_port, open_listeners, resolve_port
from hub.core.io.serve import UNKNOWN_PEER, Connection, ServerStats, linger, serve_lines
from tests.core.memory_listener import MemoryListener


def test_resolve_port() -> None:
    assert resolve_port("0") == 0
    assert resolve_port(8080) == 8080
    assert resolve_port("http") == 80
    for bad in ("", "no-such-service-xyz", "70000", "-1"):
        with pytest.raises(ListenError):
            resolve_port(bad)


async def upper(connection: Connection) -> None:
    while True:
        line = await connection.lines.receive_line()
        if line == "boom":
            raise RuntimeError("handler bug")
        await connection.lines.send_line(line.upper())


async def read_line(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = await stream.receive_some(100)
        if not chunk:
            break
        data += chunk
    return data


async def test_serves_caps_and_survives_bad_handlers(capfd: pytest.CaptureFixture[str]) -> None:
    with trio.fail_after(10):
        listeners = await open_listeners("0")
        port = bound_port(listeners)
        assert port != 0
        assert listeners[0].socket.getsockname()[0] in ("127.0.0.1", "::1")
        stats = ServerStats()
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: serve_lines(
                    upper, listeners, max_connections=2, max_line=10, refuse_line="busy",
                    stats=stats, task_status=task_status,
                )
            )  # fmt: skip
            first = await trio.open_tcp_stream("127.0.0.1", port)
            second = await trio.open_tcp_stream("127.0.0.1", port)
            await first.send_all(b"hi\n")
            assert await read_line(first) == b"HI\n"
            await second.send_all(b"yo\n")
            assert await read_line(second) == b"YO\n"
            third = await trio.open_tcp_stream("127.0.0.1", port)
            assert await read_line(third) == b"busy\n"
            assert await third.receive_some(10) == b""
            # An over-long line ends that connection only; a handler bug too.
            await first.send_all(b"x" * 50 + b"\n")
            assert await first.receive_some(10) == b""
            await second.send_all(b"boom\n")
            assert await second.receive_some(10) == b""
            fourth = await trio.open_tcp_stream("127.0.0.1", port)
            await fourth.send_all(b"still\n")
            assert await read_line(fourth) == b"STILL\n"
            for stream in (first, second, third, fourth):
                await stream.aclose()
            nursery.cancel_scope.cancel()
    assert stats.refused == 1
    assert stats.accepted == 3
    assert "handler bug" in capfd.readouterr().err


async def test_port_in_use_is_a_listen_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(ListenError):
            await open_listeners(taken.getsockname()[1], host="127.0.0.1")


# -- any listener: in-memory connections ---------------------------------------------------


async def test_serves_over_a_memory_listener(autojump_clock: trio.testing.MockClock) -> None:
    listener = MemoryListener()
    peers: list[str] = []

    async def handler(connection: Connection) -> None:
        peers.append(connection.peer)
        await connection.lines.send_line(f"hello {connection.number}")
        await upper(connection)

    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(handler, [listener], task_status=task_status)
        )
        first, second = await listener.connect(), await listener.connect()
        assert await read_line(first) == b"hello 1\n"
        assert await read_line(second) == b"hello 2\n"
        await second.send_all(b"abc\n")
        assert await read_line(second) == b"ABC\n"
        nursery.cancel_scope.cancel()
    assert peers == [UNKNOWN_PEER, UNKNOWN_PEER]
    assert listener.closed


async def test_serving_makes_full_collections_rare_and_keeps_young_ones() -> None:
    """A full collection's pause, then the middle ones', were a loaded server's latency tail
    (bench/hub_load.py): serving raises the collector's third threshold and lowers its second,
    and the web's young thresholds (`collect_less_often`, in either order) keep both."""
    saved = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)  # Python's defaults
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: serve_lines(upper, [MemoryListener()], task_status=task_status)
            )
            assert gc.get_threshold() == (
                700,
                MIDDLE_COLLECTION_THRESHOLD,
                FULL_COLLECTION_THRESHOLD,
            )
            nursery.cancel_scope.cancel()
        collect_less_often()
        assert gc.get_threshold() == (
            SERVING_GC_THRESHOLD[0],
            MIDDLE_COLLECTION_THRESHOLD,
            FULL_COLLECTION_THRESHOLD,
        )
        gc.set_threshold(*SERVING_GC_THRESHOLD)  # a web server first, then the TCP one
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: serve_lines(upper, [MemoryListener()], task_status=task_status)
            )
            nursery.cancel_scope.cancel()
        assert gc.get_threshold() == (
            SERVING_GC_THRESHOLD[0],
            MIDDLE_COLLECTION_THRESHOLD,
            FULL_COLLECTION_THRESHOLD,
        )
    finally:
        gc.set_threshold(*saved)


async def test_only_capacity_errors_of_accept_are_retried(
    autojump_clock: trio.testing.MockClock, capfd: pytest.CaptureFixture[str]
) -> None:
    listener = MemoryListener()
    listener.errors = [OSError(errno.EMFILE, "Too many open files"), OSError(errno.ENOBUFS, "x")]
    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(upper, [listener], task_status=task_status)
        )
        client = await listener.connect()
        await client.send_all(b"still here\n")
        assert await read_line(client) == b"STILL HERE\n"
        nursery.cancel_scope.cancel()
    assert capfd.readouterr().err.count("hub: accept failed:") == 2

    listener = MemoryListener()
    listener.errors = [OSError(errno.EBADF, "Bad file descriptor")]
    with pytest.raises(BaseExceptionGroup) as caught:
        await serve_lines(upper, [listener])
    assert caught.group_contains(OSError)
    assert listener.closed


async def test_linger_sends_eof_and_waits_for_the_client_bounded(
    autojump_clock: trio.testing.MockClock,
) -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    await theirs.send_all(b"OK\n")
    await theirs.aclose()
    await linger(ours)  # reads the client's last words, then its EOF
    assert trio.current_time() == 0

    ours, theirs = trio.testing.memory_stream_pair()
    await linger(ours, seconds=1.5)  # a client that never closes costs the bound, no more
    assert trio.current_time() == 1.5
    assert await theirs.receive_some() == b""  # it got our EOF
