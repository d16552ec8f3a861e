"""A person in a browser: the ``web`` seat of every declared game.

`BrowserSeat` is a seat like any other: the match loop, clocks, faults and records do not
know that its moves come from a page. It keeps the *snapshot* of what its person may see
(their own view's HTML picture, the legal moves on their turn, the moves so far, the clocks,
the result) and wakes whoever waits for a change; `submit` hands it a move typed or clicked
on the page. A refused move is explained on the page and asked again with the clock running,
as for a person at the terminal; a page that says nothing costs the seat its clock, like any
seat (the game never waits beyond it).

`SeatDesk` is the one owner of the browser seats of a process: it makes each seat's
unguessable token (``secrets.token_urlsafe``) and finds a seat by it. The web layer
(`hub.web.play`) serves ``/play/TOKEN`` from a desk; whoever holds a token plays that seat
and no other, and a seat's snapshot is built from its own view only, so a hidden hand never
reaches another seat's page.

`RematchOffer` is a finished game's rematch: the program that started the game (``hub
play``, ``hub serve``'s lobby) gives its browser seats one, with the function that starts
the next game (the seats rotated by one: colours swapped in a two-player game) and returns
the new browser seats. The rematch starts when every browser seat of the game has asked for
it (against built-in players at once); an opponent that cannot be asked (a program over TCP
or pipes, a person at the terminal) leaves the offer with only its reason, shown on the page.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import trio

from hub.core.game import BadMove, Game
from hub.core.match import BaseSeat, MatchResult, MatchView, Moved, Start, Turn
from hub.core.referee import IllegalMove, Termination
from hub.core.values import PlayerInfo
from hub.declared.terminal import result_words

MAX_SEATS = 1000
"""Browser seats one desk holds at once (the oldest finished ones are forgotten first)."""


class DeskFull(Exception):
    """The desk holds `MAX_SEATS` seats that are still playing."""


class BrowserSeat(BaseSeat[Any, Any]):
    """A person in a browser. ``version`` grows at every change of the snapshot."""

    waits_for_input = True

    def __init__(self, game: Game[Any, Any], token: str, player: PlayerInfo) -> None:
        self.game = game
        self.token = token
        self.player = player
        self.seat = -1
        self.state: Any = None
        self.start: Any = None
        self.last: tuple[str, Any] | None = None
        """The last move's text and the state before it."""
        self.match: MatchView | None = None
        self.players: list[str] = []
        self.moves: list[str] = []
        self.numbered = False  # the game numbers its moves (chess), not the list's plies
        self.turn: Turn[Any] | None = None
        self.error = ""
        self.result = ""
        self.over = False
        self.version = 0
        self.rematch: RematchOffer | None = None
        self.next_page = ""
        """Where the rematch is played (``/play/TOKEN`` of this person's next seat)."""
        self._changed = trio.Event()
        self._send, self._receive = trio.open_memory_channel[str](1)

    # -- the seat ------------------------------------------------------------------------------

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def begin(self, start: Start[Any]) -> None:
        self.seat = start.seat
        self.state = self.start = start.state
        self.match = start.match
        self.players = [player.name for player in start.event.players]
        self._bump()

    async def choose(self, turn: Turn[Any]) -> Any:
        while True:  # a stale move from before this turn is not this turn's
            try:
                self._receive.receive_nowait()
            except trio.WouldBlock:
                break
        self.turn = turn
        self.state = turn.state
        self._bump()
        while True:
            text = await self._receive.receive()
            try:
                move = self.game.parse_move(turn.state, text)
            except BadMove as exc:
                self.error = str(exc)
                self._bump()
                continue
            self.error = ""
            return move

    async def rejected(self, turn: Turn[Any], move: Any, error: IllegalMove) -> bool:
        self.error = f"{self.game.move_text(turn.state, move)} is not allowed: {error}"
        self._bump()
        return True

    async def observe(self, moved: Moved[Any, Any]) -> None:
        if moved.seat == self.seat:
            self.turn = None
        self.state = moved.after
        self.last = (moved.text, moved.before)
        before = self.game.view(moved.before, None)
        pictures = self.game.pictures
        words = pictures.move_words(before, moved.text)
        number = pictures.move_number(before)
        head = self.game.seat_name(moved.seat, before) if number is None else number
        self.numbered = number is not None
        self.moves.append(f"{head} {words}")
        self._bump()

    async def time_up(self, seat: int) -> None:
        self._bump()

    async def end(self, result: MatchResult[Any, Any]) -> None:
        players = [PlayerInfo(name) for name in self.players]
        self.result = result_words(self.game, players, result)
        self.over = True
        self.turn = None
        self._bump()

    # -- the page's side -----------------------------------------------------------------------

    def submit(self, text: str) -> str | None:
        """Hand in a move from the page; None if it is taken to the game, else why not."""
        if self.over:
            return "the game is over"
        if self.turn is None:
            return "it is not your turn"
        try:
            self._send.send_nowait(text.strip()[:200])
        except trio.WouldBlock:
            return "a move is already on its way"
        return None

    def resign(self) -> str | None:
        if self.over or self.match is None:
            return "the game is over"
        self.match.stop(self.seat, Termination.RESIGNATION, "resigned in the browser")
        return None

    def ask_rematch(self) -> str | None:
        """This seat's person asks for a rematch; None if asked (or started), else why not."""
        if not self.over:
            return "the game is not over"
        offer = self.rematch
        if offer is None or offer.start is None:
            return offer.why_not if offer is not None else "no rematch is offered here"
        return offer.accept(self)

    def _rematch_json(self) -> dict[str, Any]:
        offer = self.rematch
        if offer is None or not self.over:
            return {"possible": False, "why_not": "", "asked_by": [], "you_asked": False}
        others = [
            self.game.seat_name(seat.seat)
            for seat in offer.asked
            if seat is not self and seat.seat >= 0
        ]
        return {
            "possible": offer.start is not None and not offer.failed,
            "why_not": offer.failed or offer.why_not,
            "asked_by": others,
            "you_asked": self in offer.asked,
        }

    async def wait_changed(self, version: int) -> None:
        """Return once the snapshot is newer than ``version``."""
        if self.version <= version:
            await self._changed.wait()

    def snapshot(self) -> dict[str, Any]:
        """What this seat's page shows, as JSON (from this seat's own view alone)."""
        game, state, pictures = self.game, self.state, self.game.pictures
        html = ""
        view = None
        if state is not None:
            view = game.view(state, self.seat)
            start = game.view(self.start, self.seat)
            if self.last is None:
                html = pictures.html(view)
            else:
                move, before = self.last
                html = pictures.html_after(view, (), move, game.view(before, self.seat))
            html += pictures.since_start_html(view, start, game.settings)
        mine = self.turn is not None and not self.over
        left = None
        if mine and self.turn is not None:
            seconds = self.turn.time_left()
            left = round(seconds * 1000) if math.isfinite(seconds) else None
        to_move = None if state is None or self.over else game.to_move(state)
        return {
            "version": self.version,
            "game": game.name,
            "seat": self.seat,
            "seat_name": game.seat_name(self.seat, view) if self.seat >= 0 else "",
            "players": [
                {"seat": game.seat_name(seat, view), "name": name}
                for seat, name in enumerate(self.players)
            ],
            "to_move": None if to_move is None else game.seat_name(to_move, view),
            "your_turn": mine,
            "legal": game.legal_texts(state) if mine else [],
            "html": html,
            "moves": self.moves,
            "numbered": self.numbered,
            "error": self.error,
            "left_ms": left,
            "result": self.result,
            "over": self.over,
            "rematch": self._rematch_json(),
            "next": self.next_page,
        }


@attrs.define(eq=False)
class RematchOffer:
    """The rematch of one game, shared by its browser seats (`seats`). ``start`` starts the
    next game and returns its browser seats, the person of ``seats[k]`` taking the ``k``-th
    (None: no rematch here, for the reason `why_not`). It is called once, when every seat
    has asked; each seat's page is then told where its next game is (`BrowserSeat.next_page`)."""

    seats: Sequence[BrowserSeat]
    start: Callable[[], Sequence[BrowserSeat]] | None
    why_not: str = ""
    asked: list[BrowserSeat] = attrs.Factory(list)
    started: bool = False
    failed: str = ""

    def offer_to(self) -> None:
        """Give the offer to each of its seats."""
        for seat in self.seats:
            seat.rematch = self

    def accept(self, seat: BrowserSeat) -> str | None:
        if self.started:
            return None
        if seat not in self.asked:
            self.asked.append(seat)
        if len(self.asked) == len(self.seats) and self.start is not None:
            self.started = True
            try:
                following = self.start()
            except (DeskFull, ValueError) as exc:
                self.failed = f"no rematch: {exc}"
                following = []
            for old, new in zip(self.seats, following, strict=False):
                old.next_page = f"/play/{new.token}"
        for each in self.seats:
            each._bump()
        return self.failed or None


def cannot_ask(kind: str) -> str:
    """The reason no rematch is offered against an opponent of seat kind ``kind``."""
    if kind == "human":
        return "A person at the terminal plays here: they cannot be asked for a rematch."
    return "A program plays here (over TCP or pipes): it cannot be asked for a rematch."


REMATCH_KINDS = frozenset({"web", "ai", "random"})
"""The seat kinds a rematch can seat again (with the game's own kinds, such as a UCI
engine the hub starts itself): whoever else sits at the game cannot be asked."""


def rotated(items: Sequence[Any]) -> list[Any]:
    """A rematch's seat order: everyone moves one seat down, the first to the last (in a
    two-player game, the colours swapped)."""
    return [*items[1:], *items[:1]]


class SeatDesk:
    """The browser seats of this process, by token (one owner: every page finds its seat
    here)."""

    def __init__(self) -> None:
        self.seats: dict[str, BrowserSeat] = {}

    def open(self, game: Game[Any, Any], player: PlayerInfo | None = None) -> BrowserSeat:
        if len(self.seats) >= MAX_SEATS:
            for token in [token for token, seat in self.seats.items() if seat.over]:
                del self.seats[token]
                if len(self.seats) < MAX_SEATS:
                    break
            else:
                raise DeskFull(f"{MAX_SEATS} browser seats are playing")
        token = secrets.token_urlsafe(18)
        who = player or PlayerInfo("browser", "person", "web", "person:browser")
        seat = BrowserSeat(game, token, who)
        self.seats[token] = seat
        return seat

    def find(self, token: str) -> BrowserSeat | None:
        return self.seats.get(token)
