"""The web view of several games at one address (``hub serve`` alone, `hub.declared.site`).

* ``/`` the home page: every game served (its name, summary, players, the games running and
  the players waiting), each linking to its lobby;
* ``/GAME/`` each game's own web view, the very app of ``hub serve GAME --web``
  (`hub.web.app.create_app`, mounted with its ``root``): its lobby (start a game against a
  level, a friend, the next to arrive), its running and recent games, its seats' pages;
* ``/health``: ``{"status": "ok", "games": {GAME: {"playing": N, "waiting": N, "played":
  N}}}``; while the server drains (shutting down) ``"status": "draining"`` with 503, so a
  load balancer sends new players elsewhere;
* ``/api/site``: the home page's games as JSON.

Every request passes one `hub.web.guard.Guard` (the home app's, or its game's), all with
the same allowed hosts and the same per-client limits, so a client's share of new games
and of event streams is one for the whole site. This module knows no game: a game is a
`SiteGame`, its pieces given by the command.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from html import escape
from importlib import resources
from typing import Any

import attrs
import hypercorn.trio
import trio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hub.core.io.limits import collect_less_often, freeze_start_up
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.web.app import SECURITY_HEADERS, Operator, _page, create_app
from hub.web.guard import Guard
from hub.web.index import GameIndex
from hub.web.limits import AllowedHosts, ClientLimits, default_hosts
from hub.web.play import Desk, GameStarter
from hub.web.ratings import Ratings
from hub.web.records import RecordsReader
from hub.web.server import WebServer, bind_socket, config_for

LOGGER = logging.getLogger("hub.web")
RESERVED = frozenset({"static", "health", "api"})
"""Paths of the site itself: no game is mounted there."""

LiveElsewhere = Callable[[Callable[[list[dict[str, Any]]], None]], None]
"""A game's lobby rows of its games running at the other processes (`SiteGame.others`)."""
Status = Callable[[], dict[str, Any]]
"""The site's health: ``{"status": "ok" | "draining", "games": {...}}``."""


@attrs.frozen
class SiteGame:
    """One game of the site: what its home-page row says and what its lobby is made of."""

    name: str
    summary: str
    players: str
    """How many play it (``2``, ``2-4``)."""
    bus: EventBus
    """Its games' events (its lobby's index follows them)."""
    desk: Desk
    starter: GameStarter
    records: RecordsReader | None = None
    ratings: Ratings | None = None
    """Its leaderboard and players' pages (``/NAME/ratings``), None without a database."""
    others: LiveElsewhere | None = None
    """How its lobby follows its games running at the other processes of a hub (called
    once with the index's `GameIndex.set_elsewhere`), None for a process alone."""
    operator: Operator | None = None
    """Its operator's round-robin (``/NAME/admin/round-robin``, ``/NAME/match``), None
    without ``--admin-token``."""


def create_site(
    games: Sequence[SiteGame],
    indexes: dict[str, GameIndex],
    status: Status,
    *,
    hosts: AllowedHosts | None = None,
    limits: ClientLimits | None = None,
) -> Starlette:
    """The site: the home page, ``/health``, and each game's app under ``/NAME``
    (``indexes``: each game's `GameIndex`, by name)."""
    hosts = hosts if hosts is not None else AllowedHosts()
    limits = limits if limits is not None else ClientLimits()
    for game in games:
        if game.name in RESERVED or not game.name.isidentifier():
            raise ValueError(f"a game cannot be served at /{game.name}")

    def rows() -> list[dict[str, Any]]:
        counts = status()["games"]
        return [
            {
                "name": game.name,
                "summary": game.summary,
                "players": game.players,
                "url": f"/{game.name}/",
                "ratings": f"/{game.name}/ratings" if game.ratings is not None else "",
                **counts.get(game.name, {}),
            }
            for game in games
        ]

    async def home(request: Request) -> Response:
        items = "".join(
            f'<tr data-game="{escape(row["name"])}">'
            f'<td><a href="{escape(row["url"])}">{escape(row["name"])}</a></td>'
            f"<td>{escape(row['summary'])}</td><td>{escape(row['players'])}</td>"
            f"<td>{row.get('playing', 0) + row.get('elsewhere', 0)}</td>"
            f"<td>{row.get('waiting', 0)}</td>"
            + (
                f'<td><a href="{escape(row["ratings"])}">ratings</a></td>'
                if row["ratings"]
                else "<td></td>"
            )
            + "</tr>"
            for row in rows()
        )
        body = (
            "<section><h2>Games</h2>"
            '<table class="games site"><thead><tr><th>game</th><th>what it is</th>'
            "<th>players</th><th>playing now</th><th>waiting</th><th>leaderboard</th></tr>"
            "</thead>"
            f'<tbody id="site-games">{items}</tbody></table>'
            "<p>Choose a game to play it in the browser (against the computer, a friend or "
            "the next player to arrive) or to watch its games. Programs play over TCP with "
            "the JSON bot protocol, naming the game in their hello.</p></section>"
        )
        return _page("Games", "home", body)

    async def health(request: Request) -> Response:
        report = status()
        code = 200 if report.get("status") == "ok" else 503
        return JSONResponse(report, code, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})

    async def api_site(request: Request) -> Response:
        return JSONResponse(
            {"games": rows()}, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS}
        )

    static = resources.files("hub.web") / "static"
    guard = Middleware(Guard, hosts=hosts, limits=limits, headers=SECURITY_HEADERS)
    home_app = Starlette(
        routes=[
            Route("/", home, methods=["GET"]),
            Route("/health", health, methods=["GET"]),
            Route("/api/site", api_site, methods=["GET"]),
            Mount("/static", StaticFiles(directory=str(static)), name="static"),
        ],
        middleware=[guard],
    )
    mounts = [
        Mount(
            f"/{game.name}",
            create_app(
                indexes[game.name],
                game.records,
                game.desk,
                game.starter,
                hosts=hosts,
                limits=limits,
                root=f"/{game.name}",
                ratings=game.ratings,
                operator=game.operator,
            ),
        )
        for game in games
    ]

    def to_lobby(name: str) -> Route:
        async def redirect(request: Request) -> Response:
            return RedirectResponse(f"/{name}/", 308)

        return Route(f"/{name}", redirect, methods=["GET"])

    redirects = [to_lobby(game.name) for game in games]
    return Starlette(routes=[*redirects, *mounts, Mount("", home_app)])


async def serve_site(
    games: Sequence[SiteGame],
    status: Status,
    *,
    host: str,
    port: int = 0,
    allowed_hosts: AllowedHosts | None = None,
    limits: ClientLimits | None = None,
    task_status: trio.TaskStatus[WebServer] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the site until cancelled (each game's index following its bus); reports a
    `WebServer` (its ``index`` the first game's) once listening; `OSError` before that if
    the address cannot be bound."""
    collect_less_often()
    indexes = {game.name: GameIndex(game.bus) for game in games}
    for game in games:
        if game.others is not None:
            game.others(indexes[game.name].set_elsewhere)
    hosts = allowed_hosts if allowed_hosts is not None else default_hosts(host)
    app = create_site(games, indexes, status, hosts=hosts, limits=limits)
    with bind_socket(host, port) as sock:
        async with trio.open_nursery() as nursery:
            for index in indexes.values():
                await nursery.start(index.run)
                await nursery.start(index.keep_alive)
            serve = partial(hypercorn.trio.serve, app, config_for(sock))  # type: ignore[arg-type]
            await nursery.start(serve)
            first = next(iter(indexes.values())) if indexes else GameIndex()
            task_status.started(WebServer(host, sock.getsockname()[1], first))


async def start_site(
    nursery: trio.Nursery,
    games: Sequence[SiteGame],
    status: Status,
    address: tuple[str, int],
    *,
    err: Output,
    prog: str,
    allowed_hosts: AllowedHosts | None = None,
) -> WebServer | None:
    """`serve_site` in ``nursery``, its URL printed on its own line on ``err``; an address
    that cannot be bound is reported there (``PROG: can't serve the web view on port N:
    REASON``) and None returned (as `hub.web.server.start_web`)."""
    host, port = address
    try:
        server: WebServer = await nursery.start(
            partial(serve_site, games, status, host=host, port=port, allowed_hosts=allowed_hosts)
        )
    except OSError as exc:
        err.line(f"{prog}: can't serve the web view on port {port}: {exc.strerror or exc}")
        err.flush()
        return None
    err.line(server.url("/"))
    err.flush()
    freeze_start_up()
    return server
