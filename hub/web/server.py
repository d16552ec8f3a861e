"""Serving the web view from inside a program's own trio nursery.

``server = await nursery.start(serve_web, bus)`` indexes ``bus`` and serves the pages with
hypercorn's trio worker until the nursery is cancelled; like trio-websocket's
``serve_websocket`` it reports when it is listening, with the port it bound (port 0 picks a
free one). It binds to 127.0.0.1 unless told otherwise, prints nothing and logs only
warnings (to the ``hub.web`` logger). It answers only to its allowed host names (default:
the listening address and the loopback names, `hub.web.limits.default_hosts`) and gives
each client its share (`hub.web.limits.ClientLimits`). `start_web` is what a command's
``--web`` does: start it and print the URL on stderr; `open_page` serves one page of a
program's own (a series' page; the chess console's ``--gui`` starts `serve_web` with its
own desk instead).
"""

from __future__ import annotations

import logging
import os
import socket
from functools import partial

import attrs
import hypercorn.trio
import trio
from hypercorn.config import Config

from hub.core.io.limits import collect_less_often, freeze_start_up
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.web.app import Operator, Standings, create_app
from hub.web.index import GameIndex
from hub.web.limits import AllowedHosts, ClientLimits, default_hosts
from hub.web.options import DEFAULT_HOST
from hub.web.play import Desk, GameStarter
from hub.web.ratings import Ratings
from hub.web.records import RecordsReader

LOGGER = logging.getLogger("hub.web")
HYPERCORN_LOGGER = logging.getLogger("hub.web.hypercorn")
"""Hypercorn's own log: warnings and errors only, whatever ``--log-level`` says (its "Running
on ..." at info would come between a server's port and its URL on stderr)."""
HYPERCORN_LOGGER.setLevel(logging.WARNING)


@attrs.frozen
class WebServer:
    """A running web view: where it listens and what it shows."""

    host: str
    port: int
    index: GameIndex

    def url(self, path: str = "/") -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (not listening yet); `OSError` if it cannot be."""
    family, kind, protocol, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, protocol)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def config_for(sock: socket.socket) -> Config:
    """Hypercorn's settings: serve on (a duplicate of) ``sock``, quietly."""
    config = Config()
    config.bind = [f"fd://{os.dup(sock.fileno())}"]  # hypercorn owns and closes the copy
    config.accesslog = None
    config.errorlog = HYPERCORN_LOGGER  # warnings and errors only: no "Running on ..." banner
    config.graceful_timeout = 1.0
    config.h11_max_incomplete_size = 16 * 1024
    return config


async def serve_web(
    bus: EventBus | None = None,
    *,
    index: GameIndex | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    records: RecordsReader | None = None,
    desk: Desk | None = None,
    starter: GameStarter | None = None,
    standings: Standings | None = None,
    allowed_hosts: AllowedHosts | None = None,
    limits: ClientLimits | None = None,
    ratings: Ratings | None = None,
    operator: Operator | None = None,
    task_status: trio.TaskStatus[WebServer] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the web view of ``bus`` (or of a ready ``index``) until cancelled.

    Reports a `WebServer` once listening; an address that cannot be bound raises `OSError`
    before that. ``records`` adds the finished games of the records store to the pages.
    ``allowed_hosts`` (default: `default_hosts` of ``host``) are the names it answers to.
    """
    collect_less_often()  # (a program serving pages: the collector's pauses were its tail)
    if index is None:
        index = GameIndex(bus)
    elif bus is not None and index.bus is None:
        index.bus = bus
    hosts = allowed_hosts if allowed_hosts is not None else default_hosts(host)
    app = create_app(
        index,
        records,
        desk,
        starter,
        standings,
        hosts=hosts,
        limits=limits,
        ratings=ratings,
        operator=operator,
    )
    with bind_socket(host, port) as sock:
        async with trio.open_nursery() as nursery:
            if index.bus is not None:
                await nursery.start(index.run)
            await nursery.start(index.keep_alive)
            serve = partial(hypercorn.trio.serve, app, config_for(sock))  # type: ignore[arg-type]
            await nursery.start(serve)
            task_status.started(WebServer(host, sock.getsockname()[1], index))


async def open_page(
    nursery: trio.Nursery, bus: EventBus, path: str, *, host: str = DEFAULT_HOST, port: int = 0
) -> str:
    """Serve the web view of ``bus`` in ``nursery``; returns the URL of its page ``path``
    (a series' page, ``/console``: ``http://127.0.0.1:PORT/console``). Prints nothing: the
    caller says where."""
    server: WebServer = await nursery.start(partial(serve_web, bus, host=host, port=port))
    return server.url(path)


# -- for commands -----------------------------------------------------------------------------


async def start_web(
    nursery: trio.Nursery,
    bus: EventBus,
    address: tuple[str, int],
    *,
    records: RecordsReader | None = None,
    path: str = "/",
    err: Output | None = None,
    prog: str | None = None,
    desk: Desk | None = None,
    starter: GameStarter | None = None,
    standings: Standings | None = None,
    allowed_hosts: AllowedHosts | None = None,
    ratings: Ratings | None = None,
    operator: Operator | None = None,
) -> WebServer | None:
    """Start the web view of ``bus`` in ``nursery`` and print its URL on its own line on
    ``err`` (default: stderr), so that output a spec fixes stays byte-exact.

    An address that cannot be bound raises `OSError`; with ``prog``, it is reported on
    ``err`` instead (``PROG: can't serve the web view on port N: REASON``) and None returned.
    A program's call (``prog``) then freezes what start-up made, the web stack included
    (`hub.core.io.limits.freeze_start_up`: shorter collection pauses while it serves pages).
    """
    out = err if err is not None else Output(2)
    host, port = address
    try:
        server: WebServer = await nursery.start(
            partial(
                serve_web,
                bus,
                host=host,
                port=port,
                records=records,
                desk=desk,
                starter=starter,
                standings=standings,
                allowed_hosts=allowed_hosts,
                ratings=ratings,
                operator=operator,
            )
        )
    except OSError as exc:
        if prog is None:
            raise
        out.line(f"{prog}: can't serve the web view on port {port}: {exc.strerror or exc}")
        out.flush()
        return None
    out.line(server.url(path))
    out.flush()
    if prog is not None:  # a program's web view: its web stack, now imported, is start-up too
        freeze_start_up()
    return server
