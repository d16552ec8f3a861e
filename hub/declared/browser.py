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

A seat also knows whether its person is here: each open event stream of its page holds it
(`attend`). Every program that seats people (``hub serve``'s lobby, ``hub play ... web``)
follows one rule built on it: a waiting person whose page has gone leaves the queue
(`gone`); a game's clocks start only once every person has come (`come`, which calls the
game off after `ARRIVAL`; while it waits, each page says for whom, ``waiting``); and a
person whose page has been gone for `GRACE` mid-game has left it, a disconnect
(`play_attended`). A person waiting for an opponent may `leave`.

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import attrs
import trio

from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.game import BadMove, Game, legal_texts
from hub.core.play.match import Match
from hub.core.play.vocabulary import BaseSeat, MatchResult, MatchView, Moved, Seat, Start, Turn
from hub.declared.terminal import result_words
from hub.web.limits import ServerFull

MAX_SEATS = 1000
"""Browser seats one desk holds at once (the oldest finished ones are forgotten first)."""
ARRIVAL = 300.0
"""Seconds a person in a browser has to open their seat's page once their game is made (a
friend to open the shared link); then the game is called off. Clocks start only after."""
GRACE = 10.0
"""Seconds a person's page may be gone (a reload comes back sooner) before they have left:
the queue while they wait, the game (a disconnect) while they play."""


class SeatRelay(Protocol):
    """Where a seat's game is played when it is not here (a person paired with a person at
    another process: hub.declared.remote.PageRelay): the page's snapshot comes from there,
    its moves and actions go there."""

    def snapshot(self) -> dict[str, Any] | None:
        """The seat's snapshot there (None: none yet)."""
        ...

    def act(self, kind: str, text: str = "") -> str | None:
        """A move (``kind`` ``move``, its ``text``) or an action (resign, leave, draw,
        decline-draw, rematch) sent there; None, else why not."""
        ...

    def attended(self, pages: int) -> None:
        """How many streams of the seat's page are open now."""
        ...


class DeskFull(ServerFull):
    """The desk holds `MAX_SEATS` seats that are still playing (the web answers 503)."""


class BrowserSeat(BaseSeat[Any, Any]):
    """A person in a browser. ``version`` grows at every change of the snapshot."""

    waits_for_input = True

    def __init__(
        self,
        game: Game[Any, Any],
        token: str,
        player: PlayerInfo,
        draws: dict[str, DrawOffer] | None = None,
    ) -> None:
        self.game = game
        self._draws: dict[str, DrawOffer] = {} if draws is None else draws
        """The draw offers of the games of this seat's desk, by game id."""
        self.draw = DrawOffer()
        self.infos: list[PlayerInfo] = []
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
        self.game_id = ""
        """The match's id: the page steps through its positions at ``/api/game/ID/ply/N``."""
        self.clocks: tuple[float | None, ...] = ()
        self.clocks_at = 0.0
        """Each seat's time left after the last move, and when (trio's clock)."""
        self.numbered = False  # the game numbers its moves (chess), not the list's plies
        self.turn: Turn[Any] | None = None
        self.error = ""
        self.result = ""
        self.ending: tuple[str, list[int]] | None = None
        """How the game ended (its termination's word) and its winners."""
        self.over = False
        self.version = 0
        self.rematch: RematchOffer | None = None
        self.next_page = ""
        """Where the rematch is played (``/play/TOKEN`` of this person's next seat)."""
        self._changed = trio.Event()
        self._send, self._receive = trio.open_memory_channel[str](1)
        self.pages = 0
        """Event streams of this seat's page open now (`attend`)."""
        self.came = False
        """A page of this seat was opened at least once."""
        self._attendance = trio.Event()
        self.waiting = ""
        """While the game waits (for an opponent, for a person to come): the words why."""
        self.leaving: Callable[[], bool] | None = None
        """While the person waits in a queue: takes them out (False if too late)."""
        self.relay: SeatRelay | None = None
        """Where this seat's game is played, if at another process (its page is here)."""
        self.nameable: Callable[[PlayerInfo], str | None] | None = None
        """A friend's seat (a shared link): who opens it may play under their own name
        (`take_name`) until its page first comes; this says why a name may not (None: it
        may). None: the seat's player is known."""

    def take_name(self, player: PlayerInfo) -> str | None:
        """The person who opened this friend's seat plays as ``player`` (their registered
        name, checked by the caller): None if done, else why not (a seat whose player is
        known, a game begun, a name the checker refuses)."""
        if self.nameable is None:
            return "this seat's player is known already"
        if self.came or self.match is not None or self.over:
            return "too late: this seat's page has been opened already"
        why = self.nameable(player)
        if why is None:
            self.player = player
            self._bump()
        return why

    # -- the seat ------------------------------------------------------------------------------

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def begin(self, start: Start[Any]) -> None:
        self.seat = start.seat
        self.state = self.start = start.state
        self.match = start.match
        self.game_id = start.match.game_id
        self.infos = list(start.event.players)
        self.players = [player.name for player in self.infos]
        self.waiting = ""
        self.leaving = None
        self.draw = self._draws.setdefault(self.game_id, DrawOffer())
        self.draw.seats.append(self)
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
        text = moved.text_for(self.seat)  # a card drawn into another's hand: not its name
        self.last = (text, moved.before)
        self.clocks, self.clocks_at = moved.clocks, trio.current_time()
        before = self.game.view(moved.before, None)
        pictures = self.game.pictures
        words = pictures.move_words(before, text)
        number = pictures.move_number(before)
        head = self._label(moved.seat, before) if number is None else number
        self.numbered = number is not None
        self.moves.append(f"{head} {words}")
        self.draw.moved(moved.seat)
        self._bump()

    def earlier(self, recorded: Sequence[tuple[int, str, Any]], first: Any) -> None:
        """Before a game played on from its record (an adjourned game resumed:
        hub.declared.adjourned): list its moves so far, each (seat, text, state after),
        from the state ``first``, as `observe` would have."""
        before = first
        pictures = self.game.pictures
        for seat, text, after in recorded:
            view = self.game.view(before, None)
            number = pictures.move_number(view)
            head = self._label(seat, view) if number is None else number
            self.numbered = number is not None
            self.moves.append(f"{head} {pictures.move_words(view, text)}")
            before = after
        self._bump()

    async def time_up(self, seat: int) -> None:
        self._bump()

    async def end(self, result: MatchResult[Any, Any]) -> None:
        players = [PlayerInfo(name) for name in self.players]
        self.result = result_words(self.game, players, result)
        self._adjourned(result)
        self.ending = (result.termination.value, sorted(result.outcome.winners))
        self.over = True
        self.turn = None
        if self in self.draw.seats:
            self.draw.seats.remove(self)
        if not self.draw.seats:
            self._draws.pop(self.game_id, None)
        self._bump()

    def _adjourned(self, result: MatchResult[Any, Any]) -> None:
        """A game the server's shutdown adjourned: the page says so, and that a player with
        a registered name resumes it from the lobby (hub.declared.adjourned)."""
        from hub.declared.adjourned import ADJOURNED, registered

        fault = result.fault
        if fault is None or fault.seat is not None or fault.detail != ADJOURNED:
            return
        self.result = "adjourned: the server shut down"
        mine = self.infos[self.seat] if 0 <= self.seat < len(self.infos) else None
        if mine is not None and registered(mine):
            self.result += "; resume it from the lobby page when the server is back"

    # -- whether the person is here ------------------------------------------------------------

    @contextmanager
    def attend(self) -> Iterator[None]:
        """A page of this seat follows it inside (an open event stream)."""
        self.pages += 1
        self.came = True
        self._attended()
        try:
            yield
        finally:
            self.pages -= 1
            self._attended()

    def _attended(self) -> None:
        if self.relay is not None:
            self.relay.attended(self.pages)
        self._attendance.set()
        self._attendance = trio.Event()

    async def arrived(self) -> None:
        """Return once a page of this seat is open (or the seat is over)."""
        while not self.pages and not self.over:
            await self._attendance.wait()

    async def gone(self, arrival: float, grace: float) -> None:
        """Return once the person has gone: no page within ``arrival`` seconds of the call
        (never came), no page for ``grace`` seconds after their last one closed (a tab
        closed; a reload comes back sooner), or the seat is over (they left the queue)."""
        while not self.over:
            if self.pages:
                await self._attendance.wait()
                continue
            with trio.move_on_after(grace if self.came else arrival):
                await self._attendance.wait()
                continue
            return

    def place(self, seat: int, players: Sequence[str]) -> None:
        """Before the game starts: the seat this person will play and who plays (so that the
        page names them while it waits)."""
        self.seat = seat
        self.players = list(players)
        self._bump()

    def wait_for(self, words: str) -> None:
        """What the page says while the game waits ("" once it starts)."""
        if words != self.waiting:
            self.waiting = words
            self._bump()

    def call_off(self, words: str) -> None:
        """This seat's game will not be played (it left the queue, someone did not come):
        the page shows ``words`` as its result."""
        if self.over:
            return
        self.over = True
        self.result = words
        self.waiting = ""
        self.leaving = None
        self._bump()
        self._attended()

    def leave(self) -> str | None:
        """The person leaves the queue; None if they did, else why not."""
        if self.relay is not None:
            return self.relay.act("leave")
        if self.leaving is None:
            return "you are not waiting for an opponent"
        if not self.leaving():
            return "too late: your game is starting"
        self.call_off("You left the queue: no game was played.")
        return None

    # -- the page's side -----------------------------------------------------------------------

    def submit(self, text: str) -> str | None:
        """Hand in a move from the page; None if it is taken to the game, else why not."""
        if self.relay is not None:
            return self.relay.act("move", text)
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
        if self.relay is not None:
            return self.relay.act("resign")
        if self.over:
            return "the game is over"
        if self.match is None:
            return "the game has not started (leave the queue, or close the page)"
        self.match.stop(self.seat, Termination.RESIGNATION, "resigned in the browser")
        return None

    def offer_draw(self) -> str | None:
        """This seat's person offers a draw, or accepts the one another person offered;
        None if done (the answer is in the snapshots), else why not. The built-in players
        answer at once by their evaluation (`hub.core.play.game.AgreedDraws.accepts`); when every
        other seat agreed, the match ends as the game's agreed draw (`Match.agree_draw`)."""
        if self.relay is not None:
            return self.relay.act("draw")
        if self.over or self.match is None or self.state is None:
            return "the game is over"
        draws = self.game.agreed_draws
        if draws is None:
            return f"{self.game.name} has no draws by agreement"
        outcome = draws.outcome(self.state)
        offer = self.draw
        if offer.by is self:
            return "you offered a draw already"
        if offer.by is not None:  # the other person's offer, accepted
            self.match.agree_draw(outcome)
            return None
        people = {seat.seat for seat in offer.seats if seat is not self}
        for seat, info in enumerate(self.infos):
            if seat == self.seat or seat in people:
                continue
            who = f"{self._label(seat, None)} ({info.name})"
            if info.kind != "ai":
                return f"{who} cannot be asked for a draw"
            if not draws.accepts(self.state, seat):
                offer.answer(f"{who} declines the draw.")
                return None
        if people:
            offer.make(self)
        else:
            self.match.agree_draw(outcome)
        return None

    def decline_draw(self) -> str | None:
        """This seat's person declines the draw another person offered."""
        if self.relay is not None:
            return self.relay.act("decline-draw")
        offer = self.draw
        if self.over or offer.by is None or offer.by is self:
            return "no draw is offered to you"
        offer.answer(f"{self._label(self.seat, None)} declines the draw.")
        return None

    def _draw_json(self) -> dict[str, Any]:
        offer = self.draw
        possible = not self.over and self.state is not None and self.game.agreed_draws is not None
        by = offer.by
        return {
            "possible": possible,
            "offered_by": "" if by is None or by is self else self._label(by.seat, None),
            "you_offered": by is self,
            "note": offer.note if possible else "",
        }

    def ask_rematch(self) -> str | None:
        """This seat's person asks for a rematch; None if asked (or started), else why not."""
        if self.relay is not None:
            return self.relay.act("rematch")
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

    def _label(self, seat: int, view: Any) -> str:
        """The seat's name where it sits now (Kalah after the pie swap: the side it plays)."""
        return self.game.seat_name(seat, view)

    def _left_ms(self, seat: int, to_move: int | None, mine: int | None) -> int | None:
        """A seat's time left in ms (None: no limit, or not known yet): this seat's own
        turn from its deadline, another's from the clocks of the last move."""
        if self.over:
            return None
        if seat == self.seat and mine is not None:
            return mine
        if seat >= len(self.clocks) or self.clocks[seat] is None:
            return None
        left = self.clocks[seat]
        assert left is not None
        if seat == to_move:
            left -= trio.current_time() - self.clocks_at
        return round(max(0.0, left) * 1000) if math.isfinite(left) else None

    def _status(self, view: Any) -> list[str]:
        """The game's words under the board (chess: ``White is in check.``, at the end
        ``Checkmate! Black wins!``)."""
        if view is None:
            return []
        termination, winners = self.ending or (None, None)
        try:
            pictures = self.game.pictures
            return list(pictures.status(view, termination=termination, winners=winners))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return []

    async def wait_changed(self, version: int) -> None:
        """Return once the snapshot is newer than ``version``."""
        if self.version <= version:
            await self._changed.wait()

    def snapshot(self) -> dict[str, Any]:
        """What this seat's page shows, as JSON (from this seat's own view alone; a relayed
        seat's: the seat's own view there)."""
        relayed = None if self.relay is None else self.relay.snapshot()
        if relayed is not None:
            return {**relayed, "version": self.version}
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
        spectator = None if state is None else game.view(state, None)
        legal = legal_texts(game, state) if mine else []
        # who won, for the players' bar: every seat "winning" is a draw, which marks no one
        won = self.ending[1] if self.ending and len(self.ending[1]) < len(self.players) else ()
        return {
            "version": self.version,
            "game": game.name,
            "seat": self.seat,
            "seat_name": self._label(self.seat, spectator) if self.seat >= 0 else "",
            "game_id": self.game_id,
            "players": [
                {
                    "seat": self._label(seat, spectator),
                    "name": name,
                    "you": seat == self.seat,
                    "to_move": seat == to_move,
                    "winner": seat in won,
                    "left_ms": self._left_ms(seat, to_move, left),
                }
                for seat, name in enumerate(self.players)
            ],
            "to_move": None if to_move is None else self._label(to_move, spectator),
            "your_turn": mine,
            "legal": legal,
            "legal_words": [pictures.move_words(spectator, text) for text in legal],
            "status": self._status(spectator),
            "html": html,
            "moves": self.moves,
            "numbered": self.numbered,
            "error": self.error,
            "left_ms": left,
            "result": self.result,
            "over": self.over,
            "rematch": self._rematch_json(),
            "draw": self._draw_json(),
            "next": self.next_page,
            "waiting": self.waiting,
            "can_leave": self.leaving is not None,
        }


@attrs.define(eq=False)
class DrawOffer:
    """The draw offers of one game, shared by its browser seats (`seats`): who offered
    the standing one (``by``; a move by another seat withdraws it, as declining), and the
    last answer in words (``note``: ``Black (ai:1) declines the draw.``) until the next
    move."""

    seats: list[BrowserSeat] = attrs.Factory(list)
    by: BrowserSeat | None = None
    note: str = ""

    def make(self, seat: BrowserSeat) -> None:
        self.by, self.note = seat, ""
        self._tell()

    def answer(self, note: str) -> None:
        self.by, self.note = None, note
        self._tell()

    def moved(self, seat: int) -> None:
        if self.by is not None and self.by.seat != seat:
            self.by = None
        self.note = ""

    def _tell(self) -> None:
        for seat in self.seats:
            seat._bump()


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


def people(seats: Sequence[Seat[Any, Any]]) -> list[tuple[int, BrowserSeat]]:
    """The browser seats of a game's ``seats``, with their seat numbers."""
    return [(number, seat) for number, seat in enumerate(seats) if isinstance(seat, BrowserSeat)]


def who(game: Game[Any, Any], seats: Sequence[Seat[Any, Any]], numbers: Sequence[int]) -> str:
    """``Red (browser), Yellow (friend)``: the seats ``numbers`` in words."""
    return ", ".join(f"{game.seat_name(n)} ({seats[n].player.name})" for n in numbers)


async def come(
    game: Game[Any, Any],
    seats: Sequence[Seat[Any, Any]],
    arrival: float | None,
    grace: float = GRACE,
    told: Callable[[list[int]], None] | None = None,
) -> list[int]:
    """Before a game: name each browser seat's seat on its page, then wait until every
    person in a browser has opened their page (the clocks start after: the one rule of every
    program that seats people in browsers). Returns the seats of those who did not come
    (no page within ``arrival`` seconds, their page gone for ``grace``, or they left the
    queue): if any, the game is not to be played. ``arrival`` None: nobody is waited for
    (seats played in memory). ``told(missing)``, if given, hears the seats still awaited
    each time that changes (a terminal says it)."""
    names = [seat.player.name for seat in seats]
    present = people(seats)
    for number, seat in present:
        seat.place(number, names)
    if arrival is None or not present:
        return []
    absent: list[int] = []
    async with trio.open_nursery() as nursery:

        async def watch(number: int, seat: BrowserSeat) -> None:
            await seat.gone(arrival, grace)
            absent.append(number)
            nursery.cancel_scope.cancel()

        async def everyone() -> None:
            said: list[int] = []
            for _, seat in present:
                missing = [n for n, other in present if not other.pages]
                for number, each in present:
                    others = [n for n in missing if n != number]
                    each.wait_for(_waiting_words(who(game, seats, others), bool(missing)))
                if missing and missing != said and told is not None:
                    told(missing)
                said = missing
                await seat.arrived()
            nursery.cancel_scope.cancel()

        for number, seat in present:
            nursery.start_soon(watch, number, seat)
        nursery.start_soon(everyone)
    if not absent:
        for _, seat in present:
            seat.wait_for("")
    return absent


def _waiting_words(others: str, missing: bool) -> str:
    """What a page says while people have not come (``others``: who but its own person,
    in words; ``missing``: anyone at all)."""
    if not others:
        return "Waiting for the game to start." if missing else ""
    return f"Waiting for {others} to open their page: no clock runs until then."


async def play_attended(
    match: Match[Any, Any], seats: Sequence[Seat[Any, Any]], grace: float = GRACE
) -> None:
    """Play ``match`` while its people in browsers stay: a person whose page has been gone
    for ``grace`` seconds (and who did not reload) leaves the game, which ends as that
    seat's disconnect (recorded, as a TCP client's leaving is). With a clock too: a page
    that is gone does not make its opponent wait out the clock."""
    async with trio.open_nursery() as nursery:
        for _, seat in people(seats):
            nursery.start_soon(_stay, seat, grace)
        await match.run()
        nursery.cancel_scope.cancel()


async def _stay(seat: BrowserSeat, grace: float) -> None:
    await seat.gone(math.inf, grace)
    if not seat.over and seat.match is not None:
        seat.match.stop(
            seat.seat, Termination.DISCONNECT, f"its page was closed for {grace:g} seconds"
        )


class SeatDesk:
    """The browser seats of this process, by token (one owner: every page finds its seat
    here)."""

    def __init__(self) -> None:
        self.seats: dict[str, BrowserSeat] = {}
        self.draws: dict[str, DrawOffer] = {}
        """The draw offers of the games being played, by game id (`BrowserSeat.offer_draw`)."""

    def open(self, game: Game[Any, Any], player: PlayerInfo | None = None) -> BrowserSeat:
        if len(self.seats) >= MAX_SEATS:
            for token in [token for token, seat in self.seats.items() if seat.over]:
                del self.seats[token]
                if len(self.seats) < MAX_SEATS:
                    break
            else:
                raise DeskFull(
                    f"the server is full ({MAX_SEATS} browser seats are playing): try later"
                )
        token = secrets.token_urlsafe(18)
        who = player or PlayerInfo("browser", "person", "web", "person:browser")
        seat = BrowserSeat(game, token, who, self.draws)
        self.seats[token] = seat
        return seat

    def find(self, token: str) -> BrowserSeat | None:
        return self.seats.get(token)
