"""The Starlette application: read-only pages, JSON and server-sent event streams.

Routes (GET only; nothing here changes a game):

* ``/`` the lobby (running and recent games), ``/events`` its stream;
* ``/game/{id}`` one game, followed live or replayed move by move, ``/game/{id}/events``;
* ``/PAGE`` the current game of a series with a running score and the score, for a PAGE
  some installed game's `hub.core.play.game.Series` facet names (chess: ``/console``, the
  console's games), ``/PAGE/events``;
* ``/api/games``, ``/api/game/{id}``, ``/api/game/{id}/ply/{n}``, ``/api/PAGE``: JSON;
* ``POST /new`` (with a ``Host``, ``hub serve GAME --web``): a person starts a game from the
  lobby, within their address's share of new games (`hub.web.limits`), as the name their
  browser keeps (``{"opponent", "name", "token"}``; a wrong token is 403), or a guest,
  with the time control and options they chose (``"tc"``, ``"settings"``: 400 outside the
  operator's limits);
* ``POST /name`` (``{"name"}``): a person registers a name: ``{"name", "token"}``, 409 if
  it is taken (counted in the same share);
* ``/ratings``, ``/ratings/{game}``, ``/player/{name}``: leaderboards and players
  (hub.web.ratings).

Every request passes `hub.web.guard.Guard` first (allowed host names and origins, each
client's share of event streams).

Pages are rendered on the server (so they show something before the script runs) and kept
up to date by ``static/app.js`` from the event stream. Every text from outside is escaped,
and a Content-Security-Policy allows only this site's own script.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from importlib import resources
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from hub.core.model.values import JSON, PlayerInfo
from hub.web.guard import Guard, client_of, read_json, refusal
from hub.web.index import LOBBY, SERIES, GameIndex, TooManyViewers, game_topic
from hub.web.limits import AllowedHosts, ClientLimits, ServerFull, TooMany
from hub.web.play import Desk, GameResumer, GameStarter, host_section
from hub.web.play import routes as play_routes
from hub.web.ratings import Ratings
from hub.web.ratings import routes as ratings_routes
from hub.web.records import RecordsReader
from hub.web.standings import standings_html
from hub.web.streams import FrameStream
from hub.web.views import ShownGame, detail, ply_json, stored_summary

RECORDS_LISTED = 50
"""Games from the records store listed under the recent ones in the memory."""

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class EventStream(FrameStream):
    """A ``text/event-stream`` of one viewer's frames until the browser leaves (or the
    server closes the viewer); the viewer is released in any case. Its keepalive comments
    come from the index's one timer (`GameIndex.keep_alive`)."""

    def __init__(self, index: GameIndex, topic: str) -> None:
        super().__init__(SECURITY_HEADERS)
        self.index = index
        self.topic = topic

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            viewer = self.index.watch(self.topic)
        except TooManyViewers:
            await Response("too many viewers", 503, media_type="text/plain")(scope, receive, send)
            return
        with viewer:
            await self.serve(receive, send, lambda out: self._send_frames(viewer.receive, out))

    async def _send_frames(self, receive: Any, send: Send) -> None:
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        while (data := await receive()) is not None:
            await send({"type": "http.response.body", "body": data, "more_body": True})


class Standings(Protocol):
    """A series of games whose standings a page shows (``hub match --web``)."""

    def text(self) -> str:
        """The standings table as the terminal prints it."""
        ...

    def json(self) -> dict[str, Any]:
        """The same as JSON (what `hub.web.standings.standings_html` draws)."""
        ...


class Operator(Standings, Protocol):
    """What the operator of ``hub serve`` may do here with their token (``--admin-token``):
    start a round-robin among the bots present (hub.declared.arena), whose standings are
    the ``/match`` page."""

    @property
    def live(self) -> bool:
        """Whether the lobby links to the standings (a round-robin was started)."""
        ...

    @property
    def title(self) -> str:
        """The lobby's link to the standings."""
        ...

    def allowed(self, token: str) -> bool: ...

    def start(self, games: int, players: int | None = None) -> dict[str, Any]:
        """Start a round-robin, ``games`` per pair, now or once ``players`` bots have
        entered; `ValueError` with the words why not."""
        ...

    def begin(self) -> dict[str, Any]:
        """Begin the round-robin that waits for bots with those entered so far."""
        ...


def create_app(
    index: GameIndex,
    records: RecordsReader | None = None,
    desk: Desk | None = None,
    host: GameStarter | None = None,
    standings: Standings | None = None,
    *,
    hosts: AllowedHosts | None = None,
    limits: ClientLimits | None = None,
    ratings: Ratings | None = None,
    root: str = "",
    operator: Operator | None = None,
) -> Starlette:
    """The web view of ``index`` (and of the finished games in ``records``, if given; and
    the browser seats of ``desk``, if given: hub.web.play), answering to ``hosts`` (default:
    the loopback names) within ``limits`` (default: `ClientLimits`' defaults).

    ``root``: the path the app is mounted at (``/connect4`` in ``hub serve``'s site,
    `hub.web.site`); its pages' links, and their scripts' requests (the page's
    ``data-root``), go there. ``operator``: ``POST /admin/round-robin`` with its token, and
    its round-robin's standings at ``/match`` (when no ``standings`` are given)."""
    hosts = hosts if hosts is not None else AllowedHosts()
    limits = limits if limits is not None else ClientLimits()
    if standings is None:
        standings = operator

    def page(title: str, name: str, body: str, **options: Any) -> Response:
        return _page(title, name, body, root=root, **options)

    def seat_page(title: str, name: str, body: str, data: dict[str, str], status: int) -> Response:
        return page(title, name, body, data=data, status=status, script="play.js")

    async def find(game_id: str) -> ShownGame | None:
        game = index.game(game_id)
        if game is None and records is not None:
            game = await records.get(game_id)
        return game

    async def lobby_json() -> dict[str, Any]:
        await refresh_stored()
        return index.lobby()

    async def refresh_stored() -> None:
        """The records store's recent games into the index's lobby (which lists them after
        its own): the page, its first frame and its later snapshots all show them."""
        if records is not None:
            rows = await records.recent(RECORDS_LISTED)
            index.set_stored([stored_summary(row) for row in rows])

    async def lobby_page(request: Request) -> Response:
        lobby = await lobby_json()
        body = "".join(
            f"<section><h2>{title}</h2>{_table(name, lobby[name], root)}"
            f'<p class="empty" id="no-{name}"{" hidden" if lobby[name] else ""}>{empty}</p>'
            "</section>"
            for name, title, empty in [
                ("running", "Running", "No game is running."),
                ("recent", "Recent", "No game has finished yet."),
            ]
        )
        if host is not None:
            body = host_section(host) + body
        if ratings is not None:
            body += '<section><h2><a href="ratings">Ratings: the leaderboard</a></h2></section>'

        if operator is not None and standings is operator:
            if operator.live:
                body = (
                    f'<section><h2><a href="{root}/match" id="standings-link">'
                    f"{escape(operator.title)}</a></h2></section>" + body
                )
        elif standings is not None:
            body = (
                f'<section><h2><a href="{root}/match">The match: standings</a></h2></section>'
                + body
            )
        return page(root.strip("/") or "Games", "lobby", body)

    async def match_page(request: Request) -> Response:
        if standings is None:
            return page("No match", "missing", "<p>No match is played here.</p>", status=404)
        body = (
            '<section class="standings"><h2>Standings</h2>'
            f'<div id="standings">{standings_html(standings.json(), root)}</div>'
            f'<p><a href="{root}/">every game of the match</a></p></section>'
        )
        return page("Match", "match", body)

    async def api_match(request: Request) -> Response:
        if standings is None:
            return _json({"error": "no match"}, 404)
        report = standings.json()
        html = standings_html(report, root)
        return _json({"text": standings.text(), "report": report, "html": html})

    async def admin_round_robin(request: Request) -> Response:
        """The operator starts a round-robin among the bots present (``{"games": N}`` per
        pair, ``"players": N`` to wait for N bots, ``{"begin": true}`` to begin one that
        waits; ``Authorization: Bearer TOKEN``): 401 without the token, 409 with the words
        if it cannot start."""
        if operator is None:
            return refusal(
                "no operator here: start the server with --admin-token", 404, SECURITY_HEADERS
            )
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not operator.allowed(token.strip()):
            return refusal(
                "the operator's token is needed (Authorization: Bearer TOKEN)",
                401,
                {**SECURITY_HEADERS, "WWW-Authenticate": "Bearer"},
            )
        data = await read_json(request, SECURITY_HEADERS)
        if isinstance(data, Response):
            return data
        games, players = data.get("games", 1), data.get("players")
        if not _whole(games) or not (players is None or _whole(players)):
            return refusal(
                'send {"games": N} (games per pair; "players": N to wait for N bots)',
                400,
                SECURITY_HEADERS,
            )
        try:
            if data.get("begin") is True:
                return _json(operator.begin())
            return _json(operator.start(games, players))
        except ValueError as exc:
            return refusal(str(exc), 409, SECURITY_HEADERS)

    async def game_page(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        game = await find(game_id)
        if game is None and game_id in index.elsewhere:
            return page(*_elsewhere_page(index.elsewhere[game_id]))
        if game is None:
            return page("No such game", "missing", "<p>No such game.</p>", status=404)
        data = detail(game)
        return page(_title(data), "game", _game_body(data), game_id=str(data["id"]))

    async def series_page(request: Request) -> Response:
        page = request.path_params["page"]
        data = index.series_json(page)
        if data is None:
            return _page("Not found", "missing", "<p>No such page.</p>", status=404, root=root)
        body = _game_body(data["game"], series=page, score=data["score"])
        return _page(page.capitalize(), page, body, root=root)

    async def api_games(request: Request) -> Response:
        return _json(await lobby_json())

    async def api_game(request: Request) -> Response:
        game = await find(request.path_params["game_id"])
        if game is None:
            return _json({"error": "no such game"}, 404)
        return _json(detail(game))

    async def api_ply(request: Request) -> Response:
        game = await find(request.path_params["game_id"])
        data = None if game is None else ply_json(game, request.path_params["ply"])
        if data is None:
            return _json({"error": "no such game or ply"}, 404)
        return _json(data)

    async def api_series(request: Request) -> Response:
        data = index.series_json(request.path_params["page"])
        if data is None:
            return _json({"error": "no such page"}, 404)
        return _json(data)

    async def series_stream(request: Request) -> Response:
        if index.series_json(request.path_params["page"]) is None:
            return _json({"error": "no such page"}, 404)
        return EventStream(index, SERIES + request.path_params["page"])

    def stream(topic: str) -> Any:
        async def endpoint(request: Request) -> Response:
            if topic == LOBBY:
                await refresh_stored()
            return EventStream(index, topic)

        return endpoint

    async def game_stream(request: Request) -> Response:
        return EventStream(index, game_topic(request.path_params["game_id"]))

    async def new_game(request: Request) -> Response:
        """A person starts a game (``{"opponent": KIND, "tc": TC, "settings": {NAME:
        VALUE}}``, the last two optional): 429 over the address's share, 503 when the
        server has no room, 400 with the host's words when refused (a time control or an
        option outside the operator's limits too)."""
        if host is None:
            return refusal("no games are started here", 404, SECURITY_HEADERS)
        try:
            limits.take_new_game(client_of(request.scope))
        except TooMany as exc:
            return refusal(str(exc), 429, SECURITY_HEADERS, exc.retry_after)
        data = await read_json(request, SECURITY_HEADERS)
        if isinstance(data, Response):
            return data
        opponent, name, token = data.get("opponent"), data.get("name", ""), data.get("token")
        if not isinstance(opponent, str):
            return refusal('send {"opponent": "ai:N"}', 400, SECURITY_HEADERS)
        if not isinstance(name, str) or not isinstance(token, str | None):
            return refusal("name and token must be strings", 400, SECURITY_HEADERS)
        try:
            player = await host.identify(name.strip()[:64], token, kind="person", spec="web")
        except ValueError as exc:
            return refusal(str(exc), 403, SECURITY_HEADERS)
        try:
            return _json(host.start(opponent, player, data.get("tc"), data.get("settings")))
        except ServerFull as exc:
            return refusal(str(exc), 503, SECURITY_HEADERS, 30)
        except ValueError as exc:
            return refusal(str(exc), 400, SECURITY_HEADERS)

    async def new_name(request: Request) -> Response:
        """A person takes a name (``{"name": NAME}``): its token, which only their browser
        keeps; 409 with the words if it is taken or not a name."""
        if host is None:
            return refusal("no names are given here", 404, SECURITY_HEADERS)
        try:
            limits.take_new_game(client_of(request.scope))
        except TooMany as exc:
            return refusal(str(exc), 429, SECURITY_HEADERS, exc.retry_after)
        data = await read_json(request, SECURITY_HEADERS)
        if isinstance(data, Response):
            return data
        name = data.get("name")
        if not isinstance(name, str):
            return refusal('send {"name": "NAME"}', 400, SECURITY_HEADERS)
        try:
            token = await host.register(name.strip()[:64])
        except ValueError as exc:
            return refusal(str(exc), 409, SECURITY_HEADERS)
        return _json({"name": name.strip(), "token": token})

    async def person(request: Request) -> tuple[dict[str, Any], PlayerInfo] | Response:
        """The JSON body of a person's request and who they are (their name and token)."""
        data = await read_json(request, SECURITY_HEADERS)
        if isinstance(data, Response):
            return data
        name, token = data.get("name", ""), data.get("token")
        if not isinstance(name, str) or not isinstance(token, str | None):
            return refusal("name and token must be strings", 400, SECURITY_HEADERS)
        assert host is not None
        try:
            player = await host.identify(name.strip()[:64], token, kind="person", spec="web")
        except ValueError as exc:
            return refusal(str(exc), 403, SECURITY_HEADERS)
        return data, player

    async def adjourned_games(request: Request) -> Response:
        """A person's adjourned games (``{"name", "token"}``): ``{"games": [...]}``."""
        if not isinstance(host, GameResumer):
            return _json({"games": []})
        asked = await person(request)
        if isinstance(asked, Response):
            return asked
        return _json({"games": await host.adjourned(asked[1])})

    async def resume_game(request: Request) -> Response:
        """A person resumes an adjourned game (``{"game_id", "name", "token"}``): their
        seat's page, as ``POST /new``; 400 with the words when refused."""
        if not isinstance(host, GameResumer):
            return refusal("no games are resumed here", 404, SECURITY_HEADERS)
        try:
            limits.take_new_game(client_of(request.scope))
        except TooMany as exc:
            return refusal(str(exc), 429, SECURITY_HEADERS, exc.retry_after)
        asked = await person(request)
        if isinstance(asked, Response):
            return asked
        data, player = asked
        game_id = data.get("game_id")
        if not isinstance(game_id, str) or len(game_id) > 64:
            return refusal('send {"game_id": ID}', 400, SECURITY_HEADERS)
        try:
            return _json(await host.resume(game_id, player))
        except ServerFull as exc:
            return refusal(str(exc), 503, SECURITY_HEADERS, 30)
        except ValueError as exc:
            return refusal(str(exc), 400, SECURITY_HEADERS)

    static = resources.files("hub.web") / "static"
    routes = [
        Route("/", lobby_page, methods=["GET"]),
        Route("/events", stream(LOBBY), methods=["GET"]),
        Route("/game/{game_id}", game_page, methods=["GET"]),
        Route("/game/{game_id}/events", game_stream, methods=["GET"]),
        Route("/api/games", api_games, methods=["GET"]),
        Route("/api/game/{game_id}", api_game, methods=["GET"]),
        Route("/api/game/{game_id}/ply/{ply:int}", api_ply, methods=["GET"]),
        Route("/match", match_page, methods=["GET"]),
        Route("/api/match", api_match, methods=["GET"]),
        Route("/admin/round-robin", admin_round_robin, methods=["POST"]),
        Route("/new", new_game, methods=["POST"]),
        Route("/name", new_name, methods=["POST"]),
        Route("/adjourned", adjourned_games, methods=["POST"]),
        Route("/resume", resume_game, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(static)), name="static"),
    ]
    if desk is not None:
        routes += play_routes(
            desk, SECURITY_HEADERS, seat_page, None if host is None else host.identify
        )
    if ratings is not None:
        routes += ratings_routes(
            ratings,
            SECURITY_HEADERS,
            lambda title, name, body, status: page(title, name, body, status=status),
        )
    routes += [  # last: a series' page is any other name (a game's `Series.page`)
        Route("/api/{page}", api_series, methods=["GET"]),
        Route("/{page}", series_page, methods=["GET"]),
        Route("/{page}/events", series_stream, methods=["GET"]),
    ]
    guard = Middleware(Guard, hosts=hosts, limits=limits, headers=SECURITY_HEADERS)
    return Starlette(routes=routes, middleware=[guard])


# -- page building ------------------------------------------------------------------------


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json(data: Any, status: int = 200) -> Response:
    return JSONResponse(data, status, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})


def _page(
    title: str,
    page: str,
    body: str,
    *,
    game_id: str = "",
    status: int = 200,
    data: dict[str, str] | None = None,
    script: str = "app.js",
    root: str = "",
) -> Response:
    """A page of the site; under a ``root`` (a game's lobby in ``hub serve``'s site) its
    links and its script's requests go there (``data-root``), and its header links the
    site's home page too."""
    extra = "".join(f' data-{name}="{escape(value)}"' for name, value in (data or {}).items())
    home = '<a class="home" href="/">hub</a>'
    if root:
        extra += f' data-root="{escape(root)}"'
        home += f'<a class="home section" href="{escape(root)}/">{escape(root.strip("/"))}</a>'

    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} - hub</title>"
        f'<link rel="stylesheet" href="{root}/static/style.css">'
        f'<link rel="icon" href="{root}/static/favicon.svg" type="image/svg+xml">'
        f'<script src="{root}/static/{script}" defer></script></head>'
        f'<body data-page="{page}" data-id="{escape(game_id)}"{extra}>'
        f"<header>{home}<h1>{escape(title)}</h1>"
        '<span id="live" class="live" hidden>live</span></header>'
        f"<main>{body}</main></body></html>"
    )
    return HTMLResponse(html, status, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})


def _title(game: dict[str, JSON]) -> str:
    names = " vs ".join(player["name"] for player in game["players"]) or "?"
    return f"{game['game']}: {names}"


def _table(name: str, games: Sequence[dict[str, JSON]], root: str = "") -> str:
    """A lobby table (the script builds the same rows from the stream)."""
    rows = []
    for game in games:
        names = ", ".join(player["name"] for player in game["players"])
        if game["status"] == "finished" or game.get("elsewhere"):
            state = str(game.get("words") or game["result"])
        elif game["to_move"] is not None and game["to_move"] < len(game["players"]):
            state = f"{game['players'][game['to_move']]['name']} to move"
        else:
            state = "playing"
        rows.append(
            f'<tr data-id="{escape(game["id"])}"><td><a href="{root}/game/{escape(game["id"])}">'
            f"{escape(game['game'])}</a></td><td>{escape(names)}</td>"
            f"<td>{game['ply']}</td><td>{escape(state)}</td></tr>"
        )
    return (
        '<table class="games"><thead><tr><th>game</th><th>players</th><th>moves</th>'
        f'<th>state</th></tr></thead><tbody id="{name}">{"".join(rows)}</tbody></table>'
    )


def _elsewhere_page(game: dict[str, Any]) -> tuple[str, str, str]:
    """The page of a game running at another process of the hub (title, name, body): its
    moves are followed only there (the process that plays it); its record is here too once
    it has ended."""
    names = " vs ".join(player["name"] for player in game["players"]) or "?"
    body = (
        f'<p class="elsewhere">{escape(game["game"])}: {escape(names)} is being played at '
        "another process of this hub: its moves can be followed only there. Once it has "
        "ended, its record is shown here (reload this page).</p>"
    )
    return f"{game['game']}: {names}", "elsewhere", body


def _game_body(
    game: dict[str, JSON] | None, *, series: str = "", score: dict[str, str] | None = None
) -> str:
    """A game's page; a series' (``series``: its page's name) has its ``score`` under the
    board and no replay controls (it follows the series' current game)."""
    latest = None if game is None else game["latest"]
    position = "<p>No game yet.</p>" if latest is None else latest["html"]
    lines = [] if latest is None else latest["status"]
    status = "".join(f"<li>{escape(line)}</li>" for line in lines)
    plies = 0 if game is None else len(game["moves"])
    moves = "" if game is None else _moves(game)
    result = ""
    if game is not None and game["status"] == "finished":
        result = str(game["words"])
    scoreline = ""
    if score is not None:
        points = ", ".join(
            f"{escape(seat.capitalize())} <b>{escape(text)}</b>" for seat, text in score.items()
        )
        scoreline = f'<p id="score" class="score">Score: {points}</p>'

    controls = (
        '<div class="replay" id="replay">'
        '<button id="first" title="start">|&#x25C0;</button>'
        '<button id="prev" title="back">&#x25C0;</button>'
        f'<input id="slider" type="range" min="0" max="{plies}" value="{plies}" '
        'aria-label="ply">'
        '<button id="next" title="forward">&#x25B6;</button>'
        '<button id="last" title="latest">&#x25B6;|</button>'
        f'<span id="plylabel">ply {plies} of {plies}</span></div>'
    )
    return (
        f'<div class="game-page{" " + escape(series) if series else ""}">'
        f'<section class="view"><div id="position">{position}</div>'
        f'<ul id="status" class="status">{status}</ul>{scoreline}'
        f"{'' if series else controls}</section>"
        f'<aside><p id="result" class="result">{escape(result)}</p>'
        f'<ol id="moves" class="moves">{moves}</ol></aside></div>'
    )


def _moves(game: dict[str, JSON]) -> str:
    items = []
    for ply, move in enumerate(game["moves"], 1):
        if move is None:
            items.append(f'<li data-ply="{ply}">&hellip;</li>')
            continue
        number = move.get("number")
        head, numbered = (
            (str(number), ' class="numbered"') if number is not None else (str(move["side"]), "")
        )
        items.append(
            f'<li data-ply="{ply}"{numbered}><span class="side">{escape(head)}</span> '
            f"{escape(str(move.get('words') or move['move']))}</li>"
        )
    return "".join(items)
