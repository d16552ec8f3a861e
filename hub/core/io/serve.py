"""Serving a line protocol: one handler task per connection, every client bounded.

`serve_lines` serves connections from any `trio.abc.Listener`s (TCP ones from
`hub.core.io.listen.open_listeners`; tests use in-memory ones) through `trio.serve_listeners`,
one handler task per connection, within `ServerLimits` (`hub.core.io.limits`):

* at the connection cap, or the per-address cap, a new connection is closed at once (after
  an optional goodbye line), so an overload is visible to the client instead of hanging in
  the backlog;
* its lines are bounded (`LineStream`'s ``max_line``);
* its output goes through a bounded `Outbox` written by a task of its own, so no write ever
  waits for a client; a client that does not read until the cap is queued is dropped (its
  socket closed, so its reader sees it gone);
* a client that sends no complete line for the idle timeout while it is not
  `Connection.busy` (in a game, or waiting for one) is dropped the same way: a silent
  client, or one that sends a byte a second, cannot hold a connection forever.

A handler that raises is logged (``hub.serve``, error, with its traceback) and its
connection closed; the server and every other connection go on. An accept that fails for
lack of resources (EMFILE, ENFILE, ENOMEM, ENOBUFS) is retried after a pause by
`trio.serve_listeners`, which logs it (``hub.serve`` gets it, `hub.core.io.serverlog`); any
other accept error ends the server. Refused and dropped clients are logged (``hub.serve``,
info). `linger` closes a connection gracefully.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import itertools
import logging
import os
from collections.abc import Awaitable, Callable, Sequence

import attrs
import trio

from hub.core.io.limits import ServerLimits, collect_fully_rarely
from hub.core.io.lines import DEFAULT_MAX_LINE, LineError, LineStream
from hub.core.io.outbox import Outbox
from hub.core.io.serverlog import configure_default_logging

__all__ = [
    "ACCEPT_CAPACITY_ERRNOS",
    "ACCEPT_RETRY_SECONDS",
    "LINGER_BYTES",
    "LINGER_SECONDS",
    "UNKNOWN_PEER",
    "Connection",
    "Handler",
    "ServerStats",
    "linger",
    "log",
    "peer_address",
    "serve_lines",
]

ACCEPT_CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
"""The accept errors that mean "overloaded, try again": those `trio.serve_listeners`
retries after a pause (`ACCEPT_RETRY_SECONDS`, trio's)."""
ACCEPT_RETRY_SECONDS = 0.1
UNKNOWN_PEER = "?"
"""`Connection.peer` when the stream has no socket address (a memory stream, a failed call)."""
LINGER_SECONDS = 2.0
LINGER_BYTES = 65536

log = logging.getLogger("hub.serve")


RECEIVE_SIZE = 65536
"""Bytes read from a socket at most at once (trio's ``SocketStream`` default)."""
_CLOSED_ERRNOS = frozenset({errno.EBADF, errno.ENOTSOCK})


class _OutboxStream(trio.abc.HalfCloseableStream):
    """A connection's stream: reads from the socket, writes through its bounded `Outbox`
    (so a write never blocks); ``send_eof`` first waits until the outbox is written.

    A socket is read as trio's ``SocketStream.receive_some`` reads it (a try, then a wait
    until it is readable; the same checkpoints, the same errors) without its layers (an
    async context manager, a context manager, a conflict detector around each read): a
    loaded server reads a line for every move."""

    def __init__(self, raw: trio.abc.Stream, outbox: Outbox) -> None:
        self.raw = raw
        self.outbox = outbox
        self._socket = raw.socket if isinstance(raw, trio.SocketStream) else None
        """The trio socket read directly (None: not a socket; its own ``receive_some``)."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        # Queueing never blocks: a cancellation point, but no trip through the scheduler
        # (one per line sent cost the server a tenth of its moves per second; the writer
        # task's own write is the scheduling point).
        await trio.lowlevel.checkpoint_if_cancelled()
        if self.outbox.broken:
            raise trio.BrokenResourceError("the client is gone or reads too slowly")
        self.outbox.send_bytes(bytes(data))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        await self.outbox.drained()
        if self.outbox.broken:
            raise trio.BrokenResourceError("the client is gone or reads too slowly")
        if isinstance(self.raw, trio.abc.HalfCloseableStream):
            await self.raw.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        socket = self._socket
        if socket is None:
            return await self.raw.receive_some(max_bytes)
        size = RECEIVE_SIZE if max_bytes is None else max_bytes
        if size < 1:
            raise ValueError("max_bytes must be >= 1")
        await trio.lowlevel.checkpoint_if_cancelled()
        try:  # the fd is asked for each time: a closed socket's is -1 (EBADF), never reused
            data = os.read(socket.fileno(), size)
        except BlockingIOError:
            pass
        except OSError as exc:
            raise _stream_error(exc) from exc
        else:
            await trio.lowlevel.cancel_shielded_checkpoint()
            return data
        while True:
            fd = socket.fileno()
            if fd < 0:
                raise trio.ClosedResourceError("this socket was already closed")
            await trio.lowlevel.wait_readable(fd)  # ClosedResourceError if closed meanwhile
            try:
                return os.read(socket.fileno(), size)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise _stream_error(exc) from exc

    async def aclose(self) -> None:
        await self.raw.aclose()


def _stream_error(exc: OSError) -> trio.ClosedResourceError | trio.BrokenResourceError:
    """A socket's read error as trio's ``SocketStream`` reports it."""
    if exc.errno in _CLOSED_ERRNOS:
        return trio.ClosedResourceError("this socket was already closed")
    return trio.BrokenResourceError(f"socket connection broken: {exc}")


def peer_address(stream: trio.abc.Stream) -> tuple[str, int] | None:
    """``(host, port)`` of a socket stream's peer; None for other streams or a failed call."""
    if not isinstance(stream, trio.SocketStream):
        return None
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return None
    return str(host), int(port)


def _never_busy() -> bool:
    return False


@attrs.define(eq=False)
class Connection:
    """One accepted client: its number (in order of connection), stream and line stream.

    ``stream`` writes through ``outbox`` (bounded; a write never waits for the client) and
    reads from the socket; ``lines`` is a `LineStream` over it. ``busy`` is set by a handler
    to say when the client is in a game (or waiting for one): the idle timeout only drops a
    client that is not busy.
    """

    number: int
    stream: trio.abc.HalfCloseableStream
    lines: LineStream
    outbox: Outbox
    address: tuple[str, int] | None = None
    busy: Callable[[], bool] = _never_busy

    @property
    def peer(self) -> str:
        """``host:port`` of a socket's peer, else `UNKNOWN_PEER`."""
        if self.address is None:
            return UNKNOWN_PEER
        host, port = self.address
        return f"{host}:{port}"


Handler = Callable[[Connection], Awaitable[None]]


@attrs.define(eq=False)
class ServerStats:
    """Counters a test or a status page can read."""

    accepted: int = 0
    refused: int = 0
    """Refused at once: the server was full, or the address had its share."""
    refused_address: int = 0
    """Of ``refused``: those refused for the per-address cap."""
    active: int = 0
    dropped_idle: int = 0
    dropped_output: int = 0
    per_address: dict[str, int] = attrs.Factory(dict)
    """Connections being served, by peer host (hosts with none are removed)."""


async def serve_lines(
    handler: Handler,
    listeners: Sequence[trio.abc.Listener[trio.abc.Stream]],
    *,
    limits: ServerLimits | None = None,
    max_connections: int | None = None,
    max_line: int = DEFAULT_MAX_LINE,
    refuse_line: str | None = None,
    stats: ServerStats | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept connections forever (until cancelled), one handler task per connection.

    ``limits`` caps the connections (in all and per address), the line length (its
    ``max_line``, else ``max_line``), the output queued per client and how long a client
    that is not `Connection.busy` may stay silent. ``max_connections`` overrides the limits'.
    The process's full cycle collections become rare (`collect_fully_rarely`: their pauses
    were a loaded server's latency tail), and one is made whenever the last client leaves
    (nobody waits on it then): the cycles put off meanwhile are freed, so that memory returns
    to where it was after clients leave (tests/soak).
    """
    collect_fully_rarely()
    limits = limits if limits is not None else ServerLimits()
    if max_connections is not None:
        limits = attrs.evolve(limits, max_connections=max_connections)
    line_limit = limits.line_limit(max_line)
    counter = itertools.count(1)
    stats = stats if stats is not None else ServerStats()

    async def refuse(stream: trio.abc.Stream, why: str, where: str) -> None:
        stats.refused += 1
        log.info("refused a connection from %s: %s", where, why)
        with trio.move_on_after(1):
            if refuse_line is not None:
                with contextlib.suppress(Exception):  # the client may be gone already
                    await LineStream(None, stream).send_line(refuse_line)
        await trio.aclose_forcefully(stream)

    async def run_one(stream: trio.abc.Stream) -> None:
        address = peer_address(stream)
        host = address[0] if address is not None else None
        where = host or UNKNOWN_PEER
        if stats.active >= limits.max_connections:
            await refuse(stream, f"server full ({limits.max_connections} connections)", where)
            return
        cap = limits.max_per_address
        if host is not None and cap is not None and stats.per_address.get(host, 0) >= cap:
            stats.refused_address += 1
            await refuse(stream, f"too many connections from this address ({cap})", where)
            return
        stats.accepted += 1
        stats.active += 1
        if host is not None:
            stats.per_address[host] = stats.per_address.get(host, 0) + 1
        outbox = Outbox(stream, limits.max_output)
        ours = _OutboxStream(stream, outbox)
        lines = LineStream(ours, ours, max_line=line_limit)  # read through `_OutboxStream` too
        connection = Connection(next(counter), ours, lines, outbox, address)
        log.debug("connection %d from %s", connection.number, connection.peer)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_write, connection, stream, stats)
                if limits.idle_timeout is not None:
                    nursery.start_soon(_watch_idle, connection, stream, limits.idle_timeout, stats)
                try:
                    await handler(connection)
                except LineError:
                    pass  # the peer went away or broke the stream: an ordinary end
                except Exception:
                    log.exception(
                        "connection %d from %s failed:", connection.number, connection.peer
                    )
                finally:
                    with trio.move_on_after(LINGER_SECONDS):
                        await outbox.drained()  # what the handler sent before it ended
                    nursery.cancel_scope.cancel()
        finally:
            try:
                await trio.aclose_forcefully(stream)
            finally:  # the last thing the task does: ``active`` counts tasks not finished
                stats.active -= 1
                if host is not None:
                    left = stats.per_address[host] - 1
                    if left:
                        stats.per_address[host] = left
                    else:
                        del stats.per_address[host]
                log.debug("connection %d from %s closed", connection.number, connection.peer)
                if stats.active == 0:
                    gc.collect()  # the full collection put off while clients were here

    configure_default_logging()
    async with trio.open_nursery() as nursery:
        # trio's accept loop: it closes the listeners when done, and backs off from an
        # accept that failed for lack of resources (logged, `hub.core.io.serverlog`).
        await nursery.start(functools.partial(trio.serve_listeners, run_one, list(listeners)))
        task_status.started()


async def _write(connection: Connection, raw: trio.abc.Stream, stats: ServerStats) -> None:
    """The connection's one writer; if its client falls too far behind, or writing fails,
    close the socket, so that whoever reads from it sees the client gone."""
    outbox = connection.outbox
    with trio.CancelScope() as scope:
        await outbox.run(scope)
    if outbox.overflowed:
        stats.dropped_output += 1
        log.info(
            "dropped connection %d from %s: it does not read its replies (more than %d "
            "bytes queued)",
            connection.number,
            connection.peer,
            outbox.limit,
        )
    if outbox.broken:
        await trio.aclose_forcefully(raw)


async def _watch_idle(
    connection: Connection, raw: trio.abc.Stream, timeout: float, stats: ServerStats
) -> None:
    """Close the connection once its client has sent no complete line for ``timeout`` s
    while not `Connection.busy` (a busy client is looked at again a timeout later)."""
    lines = connection.lines
    start = trio.current_time()
    deadline = start + timeout
    while True:
        await trio.sleep_until(deadline)
        now = trio.current_time()
        last = max(start, lines.last_line_at)
        if last + timeout > now:
            deadline = last + timeout
        elif connection.busy():
            deadline = now + timeout
        else:
            break
    stats.dropped_idle += 1
    log.info(
        "dropped connection %d from %s: no complete line for %g s",
        connection.number,
        connection.peer,
        timeout,
    )
    await trio.aclose_forcefully(raw)


async def linger(
    stream: trio.abc.Stream, *, seconds: float = LINGER_SECONDS, max_bytes: int = LINGER_BYTES
) -> None:
    """Close gracefully: send EOF, then read (and drop) what the client still sends.

    Closing a socket with unread input (say a client's acknowledgement of our last line)
    sends a reset, which can destroy the last lines before the client reads them; so we
    wait (bounded in time and bytes) for the client to close first. A stream that cannot
    half-close only waits for the client's EOF.
    """
    with trio.move_on_after(seconds):
        try:
            if isinstance(stream, trio.abc.HalfCloseableStream):
                await stream.send_eof()
            received = 0
            while received < max_bytes:
                data = await stream.receive_some(4096)
                if not data:
                    break
                received += len(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
