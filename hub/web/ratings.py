"""The ratings pages: a game's leaderboard and a registered player's page.

* ``GET /ratings``: the leaderboard of the site's game (a site of several games lists
  them, each a link to its own); ``GET /ratings/{game}``: that game's;
  ``GET /api/ratings/{game}``: the same as JSON;
* ``GET /player/{name}``: a registered player's rating in each game it played and its
  recent games, each a link to its replay page (``/game/{id}``).

The rating list is hub.records.leaderboard's (the ML Elo of `hub.records.elo.fit` with 95%
margins, over every recorded game whose seats are all registered names or built-in
players). Links are made under the request's ``root_path``, so the pages work as they are
where the site is mounted under a prefix (a game's own, on a site of several games).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from html import escape
from urllib.parse import quote

import attrs
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hub.records.leaderboard import Leaderboard, LeaderboardReader, RatedPlayer

PlainPage = Callable[[str, str, str, int], Response]
"""``page(title, name, body, status)``: a page built as the rest of the site's."""


@attrs.frozen
class Ratings:
    """What the ratings pages read: the leaderboards of the site's database and the games
    the site serves (the first is ``/ratings``'s)."""

    boards: LeaderboardReader
    games: tuple[str, ...]


def _prefix(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def _number(value: float) -> str:
    return f"{value:+.0f}" if round(value) else "0"


def board_html(board: Leaderboard, prefix: str = "") -> str:
    """A leaderboard's table (every text escaped), and what was left out."""
    if not board.rows:
        table = '<p class="empty">No rated game yet.</p>'
    else:
        lines = []
        for place, row in enumerate(board.rows, 1):
            name = escape(row.name)
            if row.registered:
                name = f'<a href="{prefix}/player/{quote(row.name, safe="")}">{name}</a>'
            group = f" (group {row.group + 1})" if board.groups > 1 else ""
            lines.append(
                f'<tr data-identity="{escape(row.identity)}"><td>{place}</td><td>{name}{group}'
                f"</td><td>{_number(row.rating)}</td><td>&plusmn;{row.margin:.0f}</td>"
                f"<td>{row.games}</td><td>{row.wins}</td><td>{row.draws}</td>"
                f"<td>{row.losses}</td></tr>"
            )
        table = (
            '<table class="ratings"><thead><tr><th>#</th><th>player</th><th>Elo</th>'
            "<th>95%</th><th>games</th><th>won</th><th>drawn</th><th>lost</th></tr></thead>"
            f'<tbody id="ratings">{"".join(lines)}</tbody></table>'
        )
    notes = [f"{board.rated_games} rated games"]
    if board.guest_games:
        notes.append(f"{board.guest_games} with a guest (recorded, not rated)")
    if board.groups > 1:
        notes.append("groups that never met are rated apart")
    return f'{table}<p class="note">{escape("; ".join(notes))}.</p>'


def board_json(board: Leaderboard) -> dict[str, object]:
    return {
        "game": board.game,
        "rated_games": board.rated_games,
        "guest_games": board.guest_games,
        "groups": board.groups,
        "players": [attrs.asdict(row) for row in board.rows],
    }


def _row_words(row: RatedPlayer | None) -> str:
    if row is None:
        return "no rated game"
    return (
        f"{_number(row.rating)} &plusmn;{row.margin:.0f} ({row.games} games: {row.wins} won, "
        f"{row.draws} drawn, {row.losses} lost)"
    )


def routes(ratings: Ratings, headers: dict[str, str], page: PlainPage) -> list[Route]:
    """The ratings pages' routes (module doc)."""

    def reply(data: object, status: int = 200) -> Response:
        return JSONResponse(data, status, headers={"Cache-Control": "no-cache", **headers})

    def missing(what: str) -> Response:
        return page("Not found", "missing", f"<p>{escape(what)}</p>", 404)

    async def leaderboard(request: Request, game: str) -> Response:
        board = await ratings.boards.board(game)
        body = f'<section class="leaderboard">{board_html(board, _prefix(request))}</section>'
        return page(f"{game}: ratings", "ratings", body, 200)

    async def default_board(request: Request) -> Response:
        if len(ratings.games) == 1:
            return await leaderboard(request, ratings.games[0])
        prefix = _prefix(request)
        links = "".join(
            f'<li><a href="{prefix}/ratings/{quote(game, safe="")}">{escape(game)}</a></li>'
            for game in ratings.games
        )
        return page("Ratings", "ratings", f"<section><ul>{links}</ul></section>", 200)

    async def game_board(request: Request) -> Response:
        game = str(request.path_params["game"])
        if game not in ratings.games:
            return missing("No such game here.")
        return await leaderboard(request, game)

    async def api_board(request: Request) -> Response:
        game = str(request.path_params["game"])
        if game not in ratings.games:
            return reply({"error": "no such game"}, 404)
        return reply(board_json(await ratings.boards.board(game)))

    async def player_page(request: Request) -> Response:
        name = str(request.path_params["name"])
        games = ratings.games if len(ratings.games) == 1 else ()
        found = await ratings.boards.player(name[:64], games)
        if found is None:
            return missing("No player of that name is registered.")
        prefix = _prefix(request)
        rated = "".join(
            f"<li><b>{escape(game)}</b>: {_row_words(row)}</li>" for game, row in found.boards
        )
        recent = "".join(
            f'<tr><td><a href="{prefix}/game/{quote(summary.game_id, safe="")}">'
            f"{escape(summary.game)}</a></td><td>{escape(', '.join(summary.players))}</td>"
            f"<td>{escape(summary.result)}</td><td>{escape(_when(summary.ended_at))}</td></tr>"
            for summary in found.recent
        )
        body = (
            f'<section><h2>Rating</h2><ul id="rated">{rated or "<li>no game yet</li>"}</ul>'
            f"</section><section><h2>Recent games</h2>"
            '<table class="games"><thead><tr><th>game</th><th>players</th><th>result</th>'
            f'<th>ended</th></tr></thead><tbody id="player-games">{recent}</tbody></table>'
            "</section>"
        )
        kind = "a bot" if found.player.kind == "bot" else "a person"
        return page(f"{found.player.name} ({kind})", "player", body, 200)

    return [
        Route("/ratings", default_board, methods=["GET"]),
        Route("/ratings/{game}", game_board, methods=["GET"]),
        Route("/api/ratings/{game}", api_board, methods=["GET"]),
        Route("/player/{name}", player_page, methods=["GET"]),
    ]


def _when(moment: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(moment)) + " UTC"
