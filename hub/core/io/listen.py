"""Listening for TCP clients: a port from a number or a service name, bound on localhost.

`open_listeners` resolves a port number or a service name (``mysql``) and binds on the
loopback interface by default (a game server is exposed to anyone who can connect: opening
it to the network is an explicit choice); a failure is a `ListenError` that says why and
what to do. `bound_port` reports the port actually bound (for ``--listenOn 0``). A client needs only
`resolve_port` and `ListenError`: this module is all it imports of the serving code.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Sequence

import trio

from hub.core.io.text import parse_whole_number

LOCALHOST = "localhost"


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
