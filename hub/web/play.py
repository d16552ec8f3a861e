"""Playing in the browser: the pages of the seats a `Desk` holds (``/play/TOKEN``).

* ``GET /play/{token}``: the seat's page (its own view's picture, the legal moves on its
  turn as elements carrying ``data-move``, the moves, the clock, resign);
* ``GET /play/{token}/events``: the seat's snapshot as server-sent events, one at every
  change;
* ``POST /play/{token}/move`` (``{"move": "TEXT"}``), ``POST /play/{token}/resign``,
  ``POST /play/{token}/draw`` (offer a draw, or accept the one offered) and
  ``POST /play/{token}/decline-draw``, in a game that has draws; once the game is over,
  ``POST /play/{token}/rematch`` (this seat asks for a rematch; the snapshot's
  ``rematch`` says who asked, ``next`` where the new game is); and ``POST
  /play/{token}/leave`` (a person waiting for an opponent leaves the queue);
* ``POST /play/{token}/name`` (``{"name", "token"}``): a friend's seat is played under the
  registered name of who opened it (sent by the page before it follows the seat).

A seat knows while a page of its person follows it (`PlaySeat.attend`, held by each open
event stream): no program seats a person who left or starts a clock before everyone came,
and a person whose page is gone mid-game leaves it (`hub.declared.browser`).

Who may do what: the token in the URL *is* the seat (unguessable, one per seat); an unknown
token is 404, so a spectator or another seat cannot move for it. The site's door
(`hub.web.guard.Guard`) has checked every request's ``Host`` and ``Origin`` against the
allowed names; a POST's body is checked as every POST's (`hub.web.guard.read_json`: JSON,
which a cross-site form cannot send without a preflight this server never answers, at most
`hub.web.guard.MAX_BODY` bytes, not ``Sec-Fetch-Site: cross-site``); anything else is a 4xx
and the game goes on. A snapshot is built from its seat's own view, so a hidden hand
appears only on its owner's page. Each change of a seat is rendered once, however many of
its pages follow it (`SeatFrames`: a frame is kept under its own seat only). This module
knows no game: the seats are the `Desk`'s.
"""

from __future__ import annotations

import json
import math
import time
import weakref
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from html import escape
from typing import Any, Protocol, runtime_checkable

import trio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from hub.core.model.values import PlayerInfo
from hub.web.guard import read_json
from hub.web.streams import FrameStream

KEEPALIVE = 15.0


class PlaySeat(Protocol):
    version: int

    def snapshot(self) -> dict[str, Any]: ...

    def submit(self, text: str) -> str | None: ...

    def resign(self) -> str | None: ...

    def ask_rematch(self) -> str | None: ...

    def leave(self) -> str | None: ...

    def attend(self) -> AbstractContextManager[None]: ...

    def offer_draw(self) -> str | None: ...

    def decline_draw(self) -> str | None: ...

    async def wait_changed(self, version: int) -> None: ...


class Desk(Protocol):
    def find(self, token: str) -> PlaySeat | None: ...


class GameStarter(Protocol):
    """A program that starts games for people on the lobby page (``hub serve GAME --web``)."""

    guests: bool
    """Whether a person without a registered name may play (as an unrated guest)."""

    def choices(self) -> list[tuple[str, str]]:
        """(opponent, words) for each kind of game a person may start."""
        ...

    def limits(self) -> dict[str, Any]:
        """What a person may choose: ``{"tc": [TEXT, ...] (the first the default),
        "options": [{"name", "kind" (bool, int, float, choice), "default", "low", "high",
        "choices", "help"}, ...]}``."""
        ...

    def start(
        self,
        opponent: str,
        player: PlayerInfo | None = None,
        tc: object = None,
        settings: object = None,
    ) -> dict[str, Any]:
        """Start one for ``player`` (`identify`'s; None: a guest) with the time control
        ``tc`` and the ``settings`` chosen (None: the defaults; unchecked values from the
        request): ``{"play": PATH, "share": PATH or None}``; `ValueError` if refused
        (``POST /new`` answers 400 with its words: a choice outside the `limits` too),
        `hub.web.limits.ServerFull` if there is no room (503)."""
        ...

    async def identify(
        self, name: str, token: str | None, *, kind: str = ..., spec: str = ...
    ) -> PlayerInfo:
        """Who a person with ``name`` and ``token`` (their browser's) plays as; `ValueError`
        with the words to show if they may not (``POST /new`` answers 403)."""
        ...

    async def register(self, name: str) -> str:
        """Register ``name`` for a person; its token (the browser keeps it). `ValueError`
        with the words to show if it cannot be (taken, not a name; ``POST /name``: 409)."""
        ...


def terms_form(limits: dict[str, Any]) -> str:
    """The choices of the "Play" section: a select of the time controls (the first chosen)
    and an input per offered option with its default (``data-setting``: its name, read by
    ``static/app.js``; the server checks them again)."""
    controls = "".join(f'<option value="{escape(tc)}">{escape(tc)}</option>' for tc in limits["tc"])
    fields = [
        '<label>Time control <select id="tc" name="tc" title="BASE+INC seconds, or per move">'
        f"{controls}</select></label>"
    ]
    for option in limits["options"]:
        name, kind, default = str(option["name"]), option["kind"], option["default"]
        label = escape(name.replace("_", " "))
        common = f'id="setting-{escape(name)}" data-setting="{escape(name)}" data-kind="{kind}"'
        tip = f' title="{escape(str(option["help"]))}"'
        if kind == "bool":
            checked = " checked" if default else ""
            field = f'<input type="checkbox" {common}{checked}>'
        elif kind == "choice":
            field = (
                f"<select {common}>"
                + "".join(
                    f"<option{' selected' if value == default else ''}>{escape(value)}</option>"
                    for value in option["choices"]
                )
                + "</select>"
            )
        else:
            step = "1" if kind == "int" else "any"
            field = (
                f'<input type="number" {common} step="{step}" min="{option["low"]:g}" '
                f'max="{option["high"]:g}" value="{escape(str(default))}">'
            )
        fields.append(f"<label{tip}>{label} {field}</label>")
    return f'<div id="terms" class="terms">{" ".join(fields)}</div>'


@runtime_checkable
class GameResumer(Protocol):
    """A `GameStarter` whose adjourned games people resume from the lobby page (``hub
    serve``: hub.declared.adjourned): ``POST /adjourned`` lists a person's, ``POST
    /resume`` takes their seat again."""

    async def adjourned(self, player: PlayerInfo) -> list[dict[str, Any]]:
        """The adjourned games ``player`` may resume (``game_id``, ``players``, ...)."""
        ...

    async def resume(self, game_id: str, player: PlayerInfo) -> dict[str, Any]:
        """Take ``player``'s seat in ``game_id`` again: ``{"play": PATH}``; `ValueError`
        with the words to show if they may not."""
        ...


def host_section(host: GameStarter) -> str:
    """The lobby's "Play" section: the person's name (picked once, kept by their browser
    with its token: ``static/app.js``), the time control and options to choose
    (`terms_form`) and a button per kind of game a person may start."""
    buttons = "".join(
        f'<li><button type="button" class="start" data-opponent="{escape(opponent)}">'
        f"Play {escape(words)}</button></li>"
        for opponent, words in host.choices()
    )
    alone = ", or play as a guest, unrated" if host.guests else " (needed to play here)"
    return (
        '<section id="you"><h2>Your name</h2>'
        '<p id="named" hidden>You play as <b id="my-name"></b> (this browser keeps your '
        "name and its key).</p>"
        '<form id="name-form" autocomplete="off"><label for="name-input">Pick a name, once'
        f"{alone}:</label> "
        '<input id="name-input" maxlength="32" spellcheck="false"> '
        '<button type="submit">Take it</button></form>'
        '<p id="name-error" class="error"></p></section>'
        '<section id="play"><h2>Play</h2>'
        f'{terms_form(host.limits())}<ul class="choices">{buttons}</ul>'
        '<p id="start-error" class="error"></p></section>'
    )


PageMaker = Callable[[str, str, str, dict[str, str], int], Response]


class SeatFrames:
    """Each seat's latest snapshot as one server-sent event, built once per change of the
    seat however many of its pages follow it (a person with two tabs open). A frame is kept
    under its own seat only (a seat's snapshot shows its hidden hand): no other seat's page,
    and no spectator's, is ever given it. A frame with a running clock (``left_ms``) is
    reused for `FRESH` seconds only, so that a page opened later in the turn is not shown
    the time that was left when the turn began (nor, with ``counting``, the time used)."""

    FRESH = 0.1

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._frames: weakref.WeakKeyDictionary[PlaySeat, tuple[int, bytes, float]] = (
            weakref.WeakKeyDictionary()
        )
        self._clock = clock
        self.built = 0
        """How many frames were rendered (tests count them)."""

    def frame(self, seat: PlaySeat) -> tuple[int, bytes]:
        """``(version, frame)`` of ``seat``'s current snapshot."""
        version, now = seat.version, self._clock()
        cached = self._frames.get(seat)
        if cached is not None and cached[0] == version and now < cached[2]:
            return cached[0], cached[1]
        snapshot = seat.snapshot()
        data = f"data: {json.dumps(snapshot)}\n\n".encode()
        self.built += 1
        counting = snapshot.get("left_ms") is not None or snapshot.get("counting")
        fresh_until = now + self.FRESH if counting else math.inf
        self._frames[seat] = (version, data, fresh_until)
        return version, data


Identify = Callable[..., Awaitable[PlayerInfo]]
"""`GameStarter.identify`: a person's name and token checked (a `ValueError` if refused)."""


def routes(
    desk: Desk, headers: dict[str, str], page: PageMaker, identify: Identify | None = None
) -> list[Route]:
    """The routes of ``desk``'s seats; ``headers`` are the site's security headers and
    ``page(title, name, body, data, status)`` builds a page as the rest of the site does;
    with ``identify``, a friend's seat takes the name of who opens it (``/name``)."""

    frames = SeatFrames()

    def seat_of(request: Request) -> PlaySeat | None:
        return desk.find(str(request.path_params["token"]))

    def reply(data: Any, status: int = 200) -> Response:
        return JSONResponse(data, status, headers={"Cache-Control": "no-cache", **headers})

    async def play_page(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return page("No such seat", "missing", "<p>No such seat.</p>", {}, 404)
        snapshot = seat.snapshot()
        title = page_title(snapshot)
        data = {"token": request.path_params["token"]}
        if identify is not None and getattr(seat, "nameable", None) is not None:
            data["nameable"] = "1"  # (play.js sends the name it keeps, if any: `take_name`)
        return page(title, "play", seat_body(snapshot), data, 200)

    async def events(request: Request) -> Response:
        seat = seat_of(request)
        if seat is None:
            return reply({"error": "no such seat"}, 404)
        return SnapshotStream(seat, headers, frames)

    async def checked_body(request: Request) -> dict[str, Any] | Response:
        """The POST's JSON object, or its refusal: an unknown token 404, else the one body
        check of every POST (`hub.web.guard.read_json`; `Guard` checked Host and Origin)."""
        if seat_of(request) is None:
            return reply({"error": "no such seat"}, 404)
        return await read_json(request, headers)

    async def move(request: Request) -> Response:
        data = await checked_body(request)
        if isinstance(data, Response):
            return data
        text = data.get("move")
        if not isinstance(text, str):
            return reply({"error": 'send {"move": "TEXT"}'}, 400)
        seat = seat_of(request)
        assert seat is not None
        problem = seat.submit(text)
        return reply({"error": problem}, 409) if problem else reply({"ok": True})

    def seat_action(
        act: Callable[[PlaySeat], str | None],
    ) -> Callable[[Request], Awaitable[Response]]:
        """A POST that asks the token's seat to act (resign, ask for a rematch): its body
        checked like a move's, 409 with the seat's words if it may not."""

        async def action(request: Request) -> Response:
            data = await checked_body(request)
            if isinstance(data, Response):
                return data
            seat = seat_of(request)
            assert seat is not None
            problem = act(seat)
            return reply({"error": problem}, 409) if problem else reply({"ok": True})

        return action

    async def take_name(request: Request) -> Response:
        """A friend's seat opened by a person with a name (``{"name", "token"}``, checked as
        a game's start checks them): the seat is theirs under that name; 403 for a wrong
        token, 409 if the seat's player is known or its page was opened already."""
        data = await checked_body(request)
        if isinstance(data, Response):
            return data
        name, token = data.get("name"), data.get("token")
        if not isinstance(name, str) or not isinstance(token, str) or identify is None:
            return reply({"error": 'send {"name": NAME, "token": TOKEN}'}, 400)
        seat = seat_of(request)
        assert seat is not None
        if getattr(seat, "nameable", None) is None:
            return reply({"error": "this seat's player is known already"}, 409)
        try:
            player = await identify(name.strip()[:64], token, kind="person", spec="web")
        except ValueError as exc:
            return reply({"error": str(exc)}, 403)
        problem = seat.take_name(player)  # type: ignore[attr-defined]
        return reply({"error": problem}, 409) if problem else reply({"ok": True})

    resign = seat_action(lambda seat: seat.resign())
    rematch = seat_action(lambda seat: seat.ask_rematch())
    leave = seat_action(lambda seat: seat.leave())
    draw = seat_action(lambda seat: seat.offer_draw())
    decline_draw = seat_action(lambda seat: seat.decline_draw())

    return [
        Route("/play/{token}", play_page, methods=["GET"]),
        Route("/play/{token}/events", events, methods=["GET"]),
        Route("/play/{token}/move", move, methods=["POST"]),
        Route("/play/{token}/resign", resign, methods=["POST"]),
        Route("/play/{token}/rematch", rematch, methods=["POST"]),
        Route("/play/{token}/leave", leave, methods=["POST"]),
        Route("/play/{token}/draw", draw, methods=["POST"]),
        Route("/play/{token}/decline-draw", decline_draw, methods=["POST"]),
        Route("/play/{token}/name", take_name, methods=["POST"]),
    ]


def seat_body(snapshot: dict[str, Any]) -> str:
    """The seat's page as the server renders it (the script redraws it from the stream): the
    players' bar with every clock, the picture, the game's words under it (check), the move
    box, resign (which asks first), the result, and the move list with the buttons that
    step through the game's positions."""
    players = "".join(
        f'<li class="player{" you" if p.get("you") else ""}">'
        f"<span class=side>{escape(p['seat'])}</span> "
        f'<span class="name">{escape(p["name"])}</span></li>'
        for p in snapshot["players"]
    )
    steps = "".join(
        f'<button id="{name}" type="button" title="{title}">{glyph}</button>'
        for name, glyph, title in (
            ("first", "&laquo;", "the start"),
            ("prev", "&lsaquo;", "one move back"),
            ("next", "&rsaquo;", "one move on"),
            ("last", "&raquo;", "the game now"),
        )
    )
    return (
        '<div class="game-page play">'
        f'<section class="view"><ol id="bar" class="players">{players}</ol>'
        '<p id="viewing" class="viewing" hidden>An earlier position. '
        '<button id="back" type="button">Back to the game</button></p>'
        f'<div id="position">{snapshot["html"]}</div>'
        '<ul id="status" class="status"></ul>'
        f'<p id="score" class="score"{"" if snapshot.get("score") else " hidden"}>'
        f"{escape(str(snapshot.get('score') or ''))}</p>"
        f'<p id="turn" class="status">{escape(turn_words(snapshot))}</p>'
        '<p id="error" class="error"></p>'
        '<div id="legal" class="legal-moves"></div>'
        '<form id="movebox" class="movebox" hidden autocomplete="off">'
        '<label for="move-input">Type a move</label> '
        '<input id="move-input" list="legal-list" size="8" spellcheck="false">'
        '<datalist id="legal-list"></datalist> <button type="submit">Play</button></form>'
        '<p class="actions"><button id="resign" type="button">Resign</button>'
        '<span id="confirm" class="confirm" hidden> Resign this game? '
        '<button id="resign-yes" type="button">Yes, resign</button> '
        '<button id="resign-no" type="button">No</button></span> '
        '<button id="draw" type="button" hidden>Offer a draw</button> '
        f'<button id="leave" type="button"{"" if snapshot.get("can_leave") else " hidden"}>'
        "Leave the queue</button></p>"
        '<div id="draw-offer" class="draw-offer"></div></section>'
        f'<aside><p id="result" class="result">{escape(snapshot["result"])}</p>'
        '<div id="rematch" class="rematch"></div>'
        f'<div class="replay">{steps}<span id="plylabel"></span></div>'
        '<ol id="moves" class="moves"></ol></aside></div>'
    )


def page_title(snapshot: dict[str, Any]) -> str:
    """The seat page's heading: the game and the viewer's seat (once it is known), or the
    snapshot's own ``title`` (the chess console's page)."""
    if snapshot.get("title"):
        return str(snapshot["title"])
    if snapshot["seat_name"]:
        return f"{snapshot['game']}: you play {snapshot['seat_name']}"
    return f"{snapshot['game']}: waiting for an opponent"


def turn_words(snapshot: dict[str, Any]) -> str:
    if snapshot.get("waiting"):
        return str(snapshot["waiting"])
    if snapshot["over"]:
        return "The game is over."
    if snapshot["your_turn"]:
        return f"Your move ({snapshot['seat_name']})."
    if snapshot["to_move"]:
        return f"Waiting for {snapshot['to_move']}."
    return "Waiting for the game to start."


class SnapshotStream(FrameStream):
    """``text/event-stream`` of one seat's snapshots: the current one, then one per change,
    until the browser leaves."""

    def __init__(self, seat: PlaySeat, headers: dict[str, str], frames: SeatFrames) -> None:
        super().__init__(headers)
        self.seat = seat
        self.frames = frames

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.seat.attend():  # the person is here while a page of theirs follows
            await self.serve(receive, send, self._frames)

    async def _frames(self, send: Send) -> None:
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        seen = -1
        while True:
            version, data = self.frames.frame(self.seat)
            if version != seen:
                seen = version
                await send({"type": "http.response.body", "body": data, "more_body": True})
            with trio.move_on_after(KEEPALIVE) as idle:
                await self.seat.wait_changed(seen)
            if idle.cancelled_caught:
                await send(
                    {"type": "http.response.body", "body": b": keepalive\n\n", "more_body": True}
                )
