"""TCP serving for line protocols: bind to localhost, report the port, cap connections.

`open_listeners` resolves a port number or a service name (``mysql``) and binds on the
loopback interface by default (a game server is exposed to anyone who can connect: opening
it to the network is an explicit choice). `serve_lines` accepts connections and runs one
handler task per connection with a `LineStream` whose lines are bounded; at the connection
cap a new connection is closed at once (after an optional goodbye line), so an overload is
visible to the client instead of hanging in the backlog. A handler that raises is logged
to stderr and its connection closed; the server and every other connection go on. Any
`trio.abc.Listener` serves (tests use in-memory listeners); an accept that fails for lack of
resources (EMFILE, ENFILE, ENOMEM, ENOBUFS) is retried after a pause, as trio's own
``serve_listeners`` does, and any other accept error ends the server. `linger` closes a
connection gracefully.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import socket
import sys
import traceback
from collections.abc import Awaitable, Callable, Sequence

import attrs
import trio

from hub.core.lines import DEFAULT_MAX_LINE, LineError, LineStream
from hub.core.text import parse_whole_number

LOCALHOST = "localhost"
DEFAULT_MAX_CONNECTIONS = 1024
ACCEPT_CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
"""The accept errors that mean "overloaded, try again" (trio's ``serve_listeners`` list)."""
ACCEPT_RETRY_SECONDS = 0.1
UNKNOWN_PEER = "?"
"""`Connection.peer` when the stream has no socket address (a memory stream, a failed call)."""
LINGER_SECONDS = 2.0
LINGER_BYTES = 65536


class ListenError(Exception):
    """The port or service could not be resolved, bound or listened on."""


def resolve_port(port: str | int) -> int:
    """A port number from a number or a TCP service name; raises `ListenError`."""
    if isinstance(port, int):
        number = port
    elif (parsed := parse_whole_number(port, max_digits=5)) is not None:
        number = parsed
    else:
        if not port:
            raise ListenError("empty port")
        try:
            number = socket.getservbyname(port, "tcp")
        except (OSError, UnicodeError) as exc:
            raise ListenError(f"unknown service {port!r}") from exc
    if not 0 <= number <= 65535:
        raise ListenError(f"port {number} out of range")
    return number


async def open_listeners(
    port: str | int, host: str | None = LOCALHOST
) -> list[trio.SocketListener]:
    """Listening sockets on ``host`` (loopback by default; None = every interface)."""
    number = resolve_port(port)
    try:
        listeners = await trio.open_tcp_listeners(number, host=host)
    except OSError as exc:
        raise ListenError(str(exc)) from exc
    if number == 0 and len(listeners) > 1:
        # Several address families on an ephemeral port would get different ports: keep one.
        for extra in listeners[1:]:
            await extra.aclose()
        listeners = listeners[:1]
    return listeners


def bound_port(listeners: Sequence[trio.SocketListener]) -> int:
    """The port the first listener is bound to (never 0)."""
    port: int = listeners[0].socket.getsockname()[1]
    return port


@attrs.define(eq=False)
class Connection:
    """One accepted client: its number (in order of connection), stream and line stream."""

    number: int
    stream: trio.abc.Stream
    lines: LineStream

    @property
    def peer(self) -> str:
        """``host:port`` of a socket's peer, else `UNKNOWN_PEER`."""
        if not isinstance(self.stream, trio.SocketStream):
            return UNKNOWN_PEER
        try:
            host, port = self.stream.socket.getpeername()[:2]
        except OSError:
            return UNKNOWN_PEER
        return f"{host}:{port}"


Handler = Callable[[Connection], Awaitable[None]]


@attrs.define(eq=False)
class ServerStats:
    """Counters a test or a status page can read."""

    accepted: int = 0
    refused: int = 0
    active: int = 0


async def serve_lines(
    handler: Handler,
    listeners: Sequence[trio.abc.Listener[trio.abc.Stream]],
    *,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    max_line: int = DEFAULT_MAX_LINE,
    refuse_line: str | None = None,
    stats: ServerStats | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept connections forever (until cancelled), one handler task per connection."""
    counter = itertools.count(1)
    stats = stats if stats is not None else ServerStats()

    async def run_one(stream: trio.abc.Stream) -> None:
        lines = LineStream(stream, stream, max_line=max_line)
        if stats.active >= max_connections:
            stats.refused += 1
            with trio.move_on_after(1):
                if refuse_line is not None:
                    with contextlib.suppress(Exception):  # the client may be gone already
                        await lines.send_line(refuse_line)
            await trio.aclose_forcefully(stream)
            return
        stats.accepted += 1
        stats.active += 1
        connection = Connection(next(counter), stream, lines)
        try:
            await handler(connection)
        except LineError:
            pass  # the peer went away or broke the stream: an ordinary end of a connection
        except Exception:
            sys.stderr.write(f"hub: connection {connection.number} failed:\n")
            traceback.print_exc()
        finally:
            stats.active -= 1
            await trio.aclose_forcefully(stream)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept_loop, listener, run_one, nursery)
        task_status.started()


async def _accept_loop(
    listener: trio.abc.Listener[trio.abc.Stream],
    run_one: Callable[[trio.abc.Stream], Awaitable[None]],
    nursery: trio.Nursery,
) -> None:
    async with listener:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in ACCEPT_CAPACITY_ERRNOS:
                    raise
                # Out of descriptors or memory: back off instead of spinning.
                sys.stderr.write(f"hub: accept failed: {exc}\n")
                await trio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            nursery.start_soon(run_one, stream)


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
