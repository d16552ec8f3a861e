"""TCP serving for line protocols: bind to localhost, report the port, bound every client.

`open_listeners` resolves a port number or a service name (``mysql``) and binds on the
loopback interface by default (a game server is exposed to anyone who can connect: opening
it to the network is an explicit choice); a failure is a `ListenError` that says why and
what to do. `serve_lines` accepts connections and runs one handler task per connection,
within `ServerLimits` (one set of options for every server, `add_limit_options`):

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

A handler that raises is logged to stderr and its connection closed; the server and every
other connection go on. Any `trio.abc.Listener` serves (tests use in-memory listeners); an
accept that fails for lack of resources (EMFILE, ENFILE, ENOMEM, ENOBUFS) is retried after
a pause, as trio's own ``serve_listeners`` does, and any other accept error ends the server.
Refused and dropped clients are logged (``hub.serve``, info) and `log_games` logs each
game's start and result; `configure_logging` sends them to stderr. `linger` closes a
connection gracefully.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import itertools
import logging
import resource
import socket
import sys
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
import trio

from hub.core.bus import EventBus
from hub.core.events import Event, GameEnded, GameRecord, GameStarted
from hub.core.lines import DEFAULT_MAX_LINE, LineError, LineStream
from hub.core.outbox import DEFAULT_LIMIT as DEFAULT_MAX_OUTPUT
from hub.core.outbox import Outbox
from hub.core.referee import Termination
from hub.core.text import parse_whole_number
from hub.core.values import PlayerInfo

LOCALHOST = "localhost"
DEFAULT_MAX_CONNECTIONS = 2048
"""Enough for 1,000 UQChess clients or 500 Kalah games with room to spare."""
DEFAULT_MAX_PER_ADDRESS = 128
DEFAULT_IDLE_TIMEOUT = 300.0
"""Seconds a client not in a game may stay silent (a person between two games)."""
MIN_MAX_LINE = 64
FD_RESERVE = 64
"""Descriptors a server keeps for itself beside its connections (listeners, logs, ...)."""
ACCEPT_CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
"""The accept errors that mean "overloaded, try again" (trio's ``serve_listeners`` list)."""
ACCEPT_RETRY_SECONDS = 0.1
UNKNOWN_PEER = "?"
"""`Connection.peer` when the stream has no socket address (a memory stream, a failed call)."""
LINGER_SECONDS = 2.0
LINGER_BYTES = 65536

log = logging.getLogger("hub.serve")


def freeze_start_up() -> None:
    """Move every object made so far (modules, classes, functions: most of a fresh process)
    out of the cycle collector's sight, so that the full collections of a long-running
    server scan only what it made while serving: shorter pauses, which a server with
    100 ms clocks needs (`gc.freeze`; they are still freed as usual when unreferenced).
    For a program's ``main`` once it has started, not for a library call."""
    gc.freeze()


class ListenError(Exception):
    """The port or service could not be resolved, bound or listened on.

    ``str(error)`` is the reason in words (``port 8080 is in use (Address already in use)``,
    ``unknown service 'foo'``, ``port 99999 out of range (0-65535)``); ``hint`` says what to
    do about it, for a program that prints a second line after its own message.
    """

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


_FREE_PORT_HINT = "choose another port, or --listenOn 0 for any free one"


def resolve_port(port: str | int) -> int:
    """A port number from a number or a TCP service name; raises `ListenError`."""
    if isinstance(port, int):
        number = port
    elif (parsed := parse_whole_number(port, max_digits=5)) is not None:
        number = parsed
    else:
        if not port:
            raise ListenError("empty port", "give a port number or a service name")
        try:
            number = socket.getservbyname(port, "tcp")
        except (OSError, UnicodeError) as exc:
            raise ListenError(
                f"unknown service {port!r}", "give a port number or a name from /etc/services"
            ) from exc
    if not 0 <= number <= 65535:
        raise ListenError(f"port {number} out of range (0-65535)", _FREE_PORT_HINT)
    return number


def _bind_error(exc: OSError, number: int, host: str | None) -> ListenError:
    """A `ListenError` that names the OS's reason for ``exc`` and what to do."""
    why = exc.strerror or str(exc)
    if isinstance(exc, socket.gaierror):
        return ListenError(f"unknown host {host!r} ({why})", "give a host name or an address")
    if exc.errno == errno.EADDRINUSE:
        return ListenError(
            f"port {number} is in use ({why})",
            f"stop the program that uses it, or {_FREE_PORT_HINT}",
        )
    if exc.errno == errno.EACCES:
        return ListenError(
            f"port {number} needs privileges ({why})",
            f"use a port above 1023, or {_FREE_PORT_HINT}",
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return ListenError(
            f"address {host!r} is not on this machine ({why})", "use one of its own addresses"
        )
    return ListenError(f"port {number}: {why}", _FREE_PORT_HINT)


async def open_listeners(
    port: str | int, host: str | None = LOCALHOST
) -> list[trio.SocketListener]:
    """Listening sockets on ``host`` (loopback by default; None = every interface)."""
    number = resolve_port(port)
    try:
        listeners = await trio.open_tcp_listeners(number, host=host)
    except OSError as exc:
        raise _bind_error(exc, number, host) from exc
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


# -- limits -------------------------------------------------------------------------------


@attrs.frozen
class ServerLimits:
    """What one server lets its clients take; every server's options map onto this.

    ``max_per_address``, ``idle_timeout`` None: no cap, no timeout; ``max_line`` None: the
    game's own limit (a Kalah board's longest move, UQChess's 1024 bytes).
    """

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS
    max_line: int | None = None
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT

    def line_limit(self, default: int) -> int:
        return default if self.max_line is None else self.max_line


def _whole(name: str, low: int, high: int, *, zero_is_none: bool = False) -> LimitParser:
    def convert(text: str) -> int | None:
        value = parse_whole_number(text, max_digits=12)
        if value is None:
            raise ValueError(f"{name} is a whole number, not {text!r}")
        if zero_is_none and value == 0:
            return None
        if not low <= value <= high:
            raise ValueError(f"{name} is {low}..{high}, not {value}")
        return value

    return convert


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"a timeout is a number of seconds, not {text!r}") from None
    if not 0 <= value <= 10**6:  # also rejects nan
        raise ValueError(f"a timeout must be 0..1000000 seconds, not {text!r}")
    return None if value == 0 else value


LimitParser = Callable[[str], "int | float | None"]
LIMIT_OPTIONS: dict[str, tuple[str, LimitParser, str]] = {
    "--max-connections": (
        "max_connections",
        _whole("a number of connections", 1, 1_000_000),
        f"most clients served at once (default: {DEFAULT_MAX_CONNECTIONS}; fewer if the "
        "open-file limit is lower)",
    ),
    "--max-per-address": (
        "max_per_address",
        _whole("a number of connections", 1, 1_000_000, zero_is_none=True),
        f"most clients at once from one IP address; 0: no cap (default: {DEFAULT_MAX_PER_ADDRESS})",
    ),
    "--max-line": (
        "max_line",
        _whole("a line length", MIN_MAX_LINE, 1 << 24),
        "longest line a client may send, in bytes (default: the game's own)",
    ),
    "--idle-timeout": (
        "idle_timeout",
        _seconds,
        "drop a client that sends no complete line for this many seconds while not in a "
        "game; 0: never",
    ),
    "--max-output": (
        "max_output",
        _whole("an output cap", 1024, 1 << 30),
        f"bytes queued for a client that does not read before it is dropped (default: "
        f"{DEFAULT_MAX_OUTPUT})",
    ),
}
"""``--option``: (field of `ServerLimits`, parser raising ValueError, help)."""


def limits_from_values(values: Mapping[str, str], base: ServerLimits | None = None) -> ServerLimits:
    """`ServerLimits` from ``{"--max-line": "2048", ...}`` (options not given keep ``base``'s
    values); raises ValueError with the reason."""
    changes: dict[str, Any] = {}
    for option, text in values.items():
        field, parse, _help = LIMIT_OPTIONS[option]
        changes[field] = parse(text)
    return attrs.evolve(base if base is not None else ServerLimits(), **changes)


LIMIT_METAVARS = {"--max-line": "BYTES", "--idle-timeout": "SECONDS", "--max-output": "BYTES"}


def add_limit_options(
    parser: argparse.ArgumentParser,
    *,
    idle_default: float | None = DEFAULT_IDLE_TIMEOUT,
    idle_help: str | None = None,
) -> None:
    """The limit options, in a group of their own; `limits_from_args` reads them back.
    ``idle_default``/``idle_help``: a server whose idle timeout means something else (Kalah:
    the deadline for its handshake)."""
    group = parser.add_argument_group("limits (one set for every server, docs/reliability.md)")
    for option, (field, parse, help_text) in LIMIT_OPTIONS.items():
        if option == "--idle-timeout":
            shown = "0" if idle_default is None else f"{idle_default:g}"
            help_text = f"{idle_help or help_text} (default: {shown})"  # noqa: PLW2901

        def convert(text: str, parse: LimitParser = parse) -> int | float | None:
            try:
                return parse(text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None

        group.add_argument(
            option,
            dest=f"limit_{field}",
            metavar=LIMIT_METAVARS.get(option, "N"),
            type=convert,
            default=_UNSET,
            help=help_text,
        )
    parser.set_defaults(limit_idle_default=idle_default)


_UNSET: object = object()


def limits_from_args(args: argparse.Namespace) -> ServerLimits:
    changes = {
        field: getattr(args, f"limit_{field}")
        for _option, (field, _parse, _help) in LIMIT_OPTIONS.items()
        if getattr(args, f"limit_{field}", _UNSET) is not _UNSET
    }
    base = ServerLimits(idle_timeout=getattr(args, "limit_idle_default", DEFAULT_IDLE_TIMEOUT))
    return attrs.evolve(base, **changes)


def raise_open_file_limit() -> int:
    """Raise the soft open-file limit (``ulimit -n``) to the hard one; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft if soft != resource.RLIM_INFINITY else 1 << 30


def fit_open_files(limits: ServerLimits, reserve: int = FD_RESERVE) -> ServerLimits:
    """``limits`` with at most as many connections as the open-file limit leaves room for
    (after raising it to the hard limit) beside ``reserve`` descriptors of the server's own;
    a warning is logged when the limit lowers ``max_connections``."""
    room = max(1, raise_open_file_limit() - reserve)
    if room >= limits.max_connections:
        return limits
    log.warning(
        "only %d connections fit in the open-file limit (ulimit -n %d), not %d",
        room,
        room + reserve,
        limits.max_connections,
    )
    return attrs.evolve(limits, max_connections=room)


# -- logging ------------------------------------------------------------------------------

LOG_LEVELS = ("warning", "info", "debug")
LOG_FORMAT_DATE = "%Y-%m-%d %H:%M:%S"
_installed: list[logging.Handler] = []


def add_log_options(parser: argparse._ActionsContainer) -> None:
    """``--log-level {warning,info,debug}`` and ``-v/--verbose`` (= info)."""
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=None,
        help="what goes to stderr: warnings; games and refused or dropped clients; every "
        "connection (default: warning)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="the same as --log-level info (default: off)",
    )


def log_level_from_args(args: argparse.Namespace) -> str:
    level: str | None = args.log_level
    if level is None:
        level = "info" if args.verbose else "warning"
    return level


def configure_logging(prog: str, level: str | None) -> None:
    """Send the ``hub`` loggers' records at ``level`` and above to stderr, one line each:
    ``2026-11-25 02:10:00 kalah: game 3 started: ...``. None: print nothing at all (a
    program whose specification fixes its output)."""
    root = logging.getLogger("hub")
    for handler in _installed:
        root.removeHandler(handler)
    _installed.clear()
    output: logging.Handler
    if level is None:
        output = logging.NullHandler()
        root.setLevel(logging.CRITICAL + 1)
    else:
        output = logging.StreamHandler(sys.stderr)
        output.setFormatter(
            logging.Formatter(f"%(asctime)s {prog}: %(message)s", datefmt=LOG_FORMAT_DATE)
        )
        root.setLevel(level.upper())
    root.addHandler(output)
    root.propagate = False
    _installed.append(output)


def describe_players(players: Sequence[PlayerInfo]) -> str:
    return " vs ".join(player.name for player in players)


def describe_result(record: GameRecord) -> str:
    """A finished game's result in words, for a log line."""
    names = [player.name for player in record.players]
    if record.termination is Termination.ABORTED and record.fault is None:
        result = "aborted"
    elif not record.winners:
        result = "no winner"
    elif len(record.winners) == len(names):
        result = "draw"
    else:
        result = " and ".join(names[index] for index in record.winners) + " won"
    if record.scores and any(record.scores):
        result += " " + "-".join(f"{score:g}" for score in record.scores)
    fault = record.fault
    if fault is not None:
        who = names[fault.seat] if fault.seat is not None else "the server"
        result += f" ({who}: {fault.termination.value}"
        result += f"; {fault.detail})" if fault.detail else ")"
    elif record.termination not in (Termination.NORMAL, Termination.ABORTED):
        result += f" ({record.termination.value})"
    return f"{result}, {len(record.moves)} moves"


def log_games(events: EventBus, logger: logging.Logger | None = None) -> Callable[[], None]:
    """Log one line when each game on ``events`` starts (its players) and ends (its result);
    returns the function that stops it. Call it once logging is configured: when ``logger``
    logs nothing at INFO it does not listen at all, since a game whose bus has a listener
    makes an event, with the state's view, for every move (a FEN: a third of what the
    UQChess server spent on a human move)."""
    logger = logger if logger is not None else logging.getLogger("hub.games")
    if not logger.isEnabledFor(logging.INFO):
        return lambda: None

    def listen(event: Event) -> None:
        if not logger.isEnabledFor(logging.INFO):
            return
        if isinstance(event, GameStarted):
            logger.info("game %s started: %s", event.game_id[:8], describe_players(event.players))
        elif isinstance(event, GameEnded):
            record = event.record
            logger.info(
                "game %s ended: %s: %s",
                event.game_id[:8],
                describe_players(record.players),
                describe_result(record),
            )

    return events.listen(listen)


# -- connections --------------------------------------------------------------------------


class _OutboxStream(trio.abc.HalfCloseableStream):
    """A connection's stream: reads from the socket, writes through its bounded `Outbox`
    (so a write never blocks); ``send_eof`` first waits until the outbox is written."""

    def __init__(self, raw: trio.abc.Stream, outbox: Outbox) -> None:
        self.raw = raw
        self.outbox = outbox

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
        return await self.raw.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.raw.aclose()


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
    """
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
        lines = LineStream(stream, ours, max_line=line_limit)
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
                    sys.stderr.write(f"hub: connection {connection.number} failed:\n")
                    traceback.print_exc()
                finally:
                    with trio.move_on_after(LINGER_SECONDS):
                        await outbox.drained()  # what the handler sent before it ended
                    nursery.cancel_scope.cancel()
        finally:
            stats.active -= 1
            if host is not None:
                left = stats.per_address[host] - 1
                if left:
                    stats.per_address[host] = left
                else:
                    del stats.per_address[host]
            await trio.aclose_forcefully(stream)
            log.debug("connection %d from %s closed", connection.number, connection.peer)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept_loop, listener, run_one, nursery)
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
