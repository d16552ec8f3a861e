"""Two people in browsers at two ``hub serve`` processes of one hub, paired and playing
(issue 27 item 4; docs/postgres.md, "Two people at two processes").

A person's page cannot move: it is served by the process where they started (the *guest*).
When they ask for the next player to arrive and the oldest player waiting for the same
choice is a person at another process (the *host*: its wait posted ``FIXED`` on the shared
queue), the guest claims that wait and sends the host a *join* (`hub.records.relaying`):

* At the host, the person is a `RemoteSeat`: a `BrowserSeat` in every way (the match loop
  referees and clocks it, `come` waits for its page, `play_attended` ends the game as its
  disconnect once its page has been gone for `GRACE`), whose page is at the guest. It joins
  the queue of the choice, where the person who waited is, and the game starts as usual.
  Each change of the seat's snapshot (what its page shows, built from its own view only: a
  hidden hand of another seat is never in it) is sent to the guest; the page's moves,
  actions and attendance come from the guest. A guest process that stops writing its
  heartbeat (`STALE`) counts as the page gone.
* At the guest, the person's own `BrowserSeat` (the one their page at ``/play/TOKEN``
  follows) gets a `PageRelay`: its snapshot is the host's latest, its moves and actions
  (found by the seat's token, as for every seat) are sent to the host. A host that does
  not answer the join (`JOIN_SECONDS`) or declines it (its person has gone) sends the person
  back to wait at home; a host that stops writing its heartbeat mid-game has cut the game
  off, and the page says so.

The messages go through the shared queue's one connection and worker thread; a game's task
never waits on the database (a snapshot to send marks its seat, and one task sends the
latest of each, so a burst of changes costs one message).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hub.core.model.values import PlayerInfo
from hub.declared.browser import BrowserSeat, DrawOffer

if TYPE_CHECKING:
    from hub.core.play.game import Game
    from hub.records.waiting import Claimed, SharedQueue, WaitingBoard

JOIN_SECONDS = 5.0
"""How long a guest waits for the host's first snapshot before its person waits at home."""
STALE = 5.0
"""Seconds without a heartbeat (``hub_processes``, written every second by
`hub.records.live`) after which the partner process of a relayed seat has gone."""
WATCH_EVERY = 1.0
"""Seconds between two looks at the partner processes' heartbeats."""
POLL_EVERY = 1.0
"""Seconds between two looks for messages without a notice (one lost while the listening
connection was down), while this process has relayed seats (a join whose notice was lost
is not answered: its person waits at home after `JOIN_SECONDS`)."""
MAX_OUTBOX = 10_000
"""Messages kept to send while the database fails (the oldest are dropped beyond)."""
CUT_OFF = "The game was cut off: the process of this hub that played it has stopped."
NO_REMATCH = "Your opponent plays at another process of this hub: no rematch across processes."

JoinHandler = Callable[[str, dict[str, Any]], bool]
"""A host's game: seat the person of a join (link, body); False if nobody waits for them."""


PLAYER_KEYS = ("name", "kind", "spec", "identity")
"""What a join says of its person (`PlayerInfo`'s fields)."""
LIMITS = (40, 20, 80, 200)
"""How long each may be (characters)."""


def player_json(player: PlayerInfo) -> dict[str, str]:
    return {key: str(getattr(player, key)) for key in PLAYER_KEYS}


def player_of(value: object) -> PlayerInfo:
    """The player of a join (the guest checked them, as it checks every person: the
    processes of one hub trust each other); a guest if it is not one."""
    if isinstance(value, dict) and all(isinstance(value.get(key), str) for key in PLAYER_KEYS):
        fields = [str(value[key])[:most] for key, most in zip(PLAYER_KEYS, LIMITS, strict=True)]
        return PlayerInfo(*fields)
    return PlayerInfo("browser", "person", "web", "person:browser")


class RemoteSeat(BrowserSeat):
    """At the host: the seat of a person whose page is at the guest process ``guest``,
    known to both by ``link``."""

    def __init__(
        self,
        game: Game[Any, Any],
        link: str,
        player: PlayerInfo,
        draws: dict[str, DrawOffer] | None,
        hub: RelayHub,
        guest: str,
    ) -> None:
        self.hub = hub
        self.link = link
        self.guest = guest
        self.reported = 0
        """The open streams of the page at the guest, as the guest last said."""
        self.guest_alive = True
        """Whether the guest process writes its heartbeat (else its page counts as gone)."""
        super().__init__(game, link, player, draws)

    def _bump(self) -> None:
        super()._bump()
        self.hub.publish(self)

    def act(self, body: dict[str, Any]) -> None:
        """A message from the page at the guest: its attendance, a move, an action."""
        kind = body.get("type")
        problem: str | None = None
        if kind == "pages":
            pages = body.get("n")
            self.reported = pages if isinstance(pages, int) and 0 <= pages <= 1000 else 0
            self._count()
            return
        if kind == "move":
            text = body.get("text")
            problem = self.submit(text) if isinstance(text, str) else "send a move's text"
        elif kind == "resign":
            problem = self.resign()
        elif kind == "leave":
            problem = self.leave()
        elif kind == "draw":
            problem = self.offer_draw()
        elif kind == "decline-draw":
            problem = self.decline_draw()
        elif kind == "rematch":
            problem = self.ask_rematch()
        if problem and not self.over:
            self.error = problem
            self._bump()

    def alive(self, alive: bool) -> None:
        """Whether the guest process is there (its heartbeat is fresh): while it is not, the
        page counts as gone (`play_attended` ends the game after `GRACE`)."""
        self.guest_alive = alive
        self._count()

    def _count(self) -> None:
        pages = self.reported if self.guest_alive else 0
        if pages:
            self.came = True
        if pages != self.pages:
            self.pages = pages
            self._attended()


@attrs.define(eq=False)
class PageRelay:
    """At the guest: a person's `BrowserSeat` whose game is played at the host process
    ``host`` (`BrowserSeat.relay`)."""

    hub: RelayHub
    seat: BrowserSeat
    link: str
    host: str
    back: Callable[[], None]
    """Send the person back to wait at home (the host declined, or did not answer)."""
    view: dict[str, Any] | None = None
    """The host's latest snapshot of the seat."""
    sent: set[str] = attrs.Factory(set)
    """The moves and actions sent since that snapshot (one of each at a time: the host
    answers each with a new snapshot)."""
    heard_at: float = 0.0
    asked_at: float = attrs.field(factory=trio.current_time)

    def snapshot(self) -> dict[str, Any] | None:
        """The host's latest snapshot, its clocks run on since it came; None before it."""
        if self.view is None:
            return None
        view = dict(self.view)
        elapsed = round((trio.current_time() - self.heard_at) * 1000)
        if not view.get("over") and elapsed > 0:
            if isinstance(view.get("left_ms"), int):
                view["left_ms"] = max(0, view["left_ms"] - elapsed)
            players = []
            for each in view.get("players", []):
                left = each.get("left_ms") if isinstance(each, dict) else None
                if isinstance(left, int) and each.get("to_move"):
                    each = {**each, "left_ms": max(0, left - elapsed)}  # noqa: PLW2901
                players.append(each)
            view["players"] = players
        return view

    def act(self, kind: str, text: str = "") -> str | None:
        """The page asks for a move (``kind`` ``move``) or an action: sent to the host (the
        host's answer is in its next snapshot); the words of a refusal the snapshot shows."""
        view = self.view
        if view is None:
            return (
                "the game has not started" if kind != "leave" else "too late: your game is starting"
            )
        if view.get("over"):
            return "the game is over" if kind != "rematch" else NO_REMATCH
        if kind == "move" and not view.get("your_turn"):
            return "it is not your turn"
        if kind == "leave" and not view.get("can_leave"):
            return "you are not waiting for an opponent"
        if kind in self.sent:
            return "a move is already on its way" if kind == "move" else "already asked"
        self.sent.add(kind)
        body: dict[str, Any] = {"type": kind}
        if kind == "move":
            body["text"] = text.strip()[:200]
        self.hub.send(self.host, self.link, body)
        return None

    def attended(self, pages: int) -> None:
        if not self.seat.over:  # (after the end, nobody at the host listens)
            self.hub.send(self.host, self.link, {"type": "pages", "n": pages})

    def heard(self, body: dict[str, Any]) -> None:
        """A message from the host: the seat's snapshot, or the join declined."""
        if body.get("type") == "declined":
            self._home()
            return
        view = body.get("view")
        if body.get("type") != "view" or not isinstance(view, dict):
            return
        self.view, self.heard_at = view, trio.current_time()
        self.sent.clear()
        seat = self.seat
        if view.get("over"):
            seat.over = True
            seat.result = str(view.get("result", ""))
            self.hub.guests.pop(self.link, None)
        seat._bump()

    def _home(self) -> None:
        self.hub.guests.pop(self.link, None)
        self.seat.relay = None
        if not self.seat.over:
            self.back()

    def cut_off(self) -> None:
        """The host has gone: before its first snapshot the person waits at home again;
        after, the game was cut off."""
        if self.view is None:
            self._home()
            return
        self.hub.guests.pop(self.link, None)
        self.seat.relay = None
        self.seat.call_off(CUT_OFF)


@attrs.define(eq=False)
class RelayHub:
    """A process's relayed seats, as host (`hosted`) and as guest (`guests`), and the task
    that carries their messages (`run`)."""

    queue: SharedQueue
    hosts: dict[str, JoinHandler] = attrs.Factory(dict)
    """Each game's join handler here (`GameServer.take_guest`)."""
    hosted: dict[str, RemoteSeat] = attrs.Factory(dict)
    guests: dict[str, PageRelay] = attrs.Factory(dict)
    _outbox: list[tuple[str, str, dict[str, Any]]] = attrs.Factory(list)
    _dirty: dict[str, RemoteSeat] = attrs.Factory(dict)
    _wake: trio.Event = attrs.Factory(trio.Event)

    @property
    def process(self) -> str:
        return self.queue.board.process

    # -- what the seats ask ---------------------------------------------------------------

    def host(self, game: str, handler: JoinHandler) -> None:
        self.hosts[game] = handler

    def publish(self, seat: RemoteSeat) -> None:
        """``seat``'s snapshot changed: its latest is sent (soon, once)."""
        if seat.link in self.hosted:
            self._dirty[seat.link] = seat
            self._wake.set()

    def send(self, process: str, link: str, body: dict[str, Any]) -> None:
        if len(self._outbox) >= MAX_OUTBOX:
            del self._outbox[0]
        self._outbox.append((process, link, body))
        self._wake.set()

    def join(
        self,
        seat: BrowserSeat,
        game: str,
        claimed: Claimed,
        choice: str,
        back: Callable[[], None],
    ) -> PageRelay:
        """Play ``seat``'s person at the host whose wait ``claimed`` was taken (on the
        shared queue's choice ``choice``): the join sent, the seat relayed."""
        link = secrets.token_urlsafe(18)
        relay = PageRelay(self, seat, link, claimed.process, back)
        self.guests[link] = relay
        seat.relay = relay
        seat.leaving = None
        body = {
            "type": "join",
            "game": game,
            "entry": claimed.entry,
            "terms": choice,
            "guest": self.process,
            "player": player_json(seat.player),
        }
        self.send(claimed.process, link, body)
        relay.attended(seat.pages)
        return relay

    def seat_for(
        self, game: Game[Any, Any], link: str, body: dict[str, Any], draws: dict[str, DrawOffer]
    ) -> RemoteSeat:
        """The host's seat of a join's person (kept in `hosted` until its game is over)."""
        seat = RemoteSeat(
            game, link, player_of(body.get("player")), draws, self, str(body["guest"])
        )
        self.hosted[link] = seat
        return seat

    # -- the task ------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Until cancelled: send, receive and watch."""
        from hub.records import relaying

        await self.queue.on_board(relaying.create)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._sending)
            nursery.start_soon(self._receiving)
            nursery.start_soon(self._watching)
            task_status.started()

    def outgoing(self) -> list[tuple[str, str, dict[str, Any]]]:
        """The messages to send now, (recipient, link, body): those asked for, then the
        latest snapshot of each hosted seat that changed (a seat whose game is over is
        forgotten once its last is taken)."""
        messages = self._outbox
        self._outbox = []
        for link, seat in self._dirty.items():
            messages.append((seat.guest, link, {"type": "view", "view": seat.snapshot()}))
            if seat.over:
                self.hosted.pop(link, None)
        self._dirty = {}
        return messages

    async def flush(self) -> None:
        """Send what is left to send now (the process is stopping: a game it adjourned
        is told to its guest), whatever the cancellation around."""
        with trio.CancelScope(shield=True):
            messages = self.outgoing()
            if messages:
                await self.queue.on_board(partial(_send, messages=messages))

    async def _sending(self) -> None:
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            messages = self.outgoing()
            if not messages:
                continue
            sent = await self.queue.on_board(partial(_send, messages=messages))
            if sent is None:  # (the database failed: again with the next)
                self._outbox[:0] = messages[-MAX_OUTBOX:]
                await trio.sleep(POLL_EVERY)
                self._wake.set()

    async def _receiving(self) -> None:
        from hub.records import relaying
        from hub.records.database import database_errors, one_line

        while True:
            try:
                listener = await trio.to_thread.run_sync(
                    relaying.RelayListener.open, self.queue.url, self.process
                )
            except database_errors(OSError) as exc:
                self.queue._warn(f"cannot listen for relayed seats: {one_line(exc)}")
                await trio.sleep(POLL_EVERY)
                continue
            try:
                while True:
                    with trio.move_on_after(POLL_EVERY):
                        await trio.lowlevel.wait_readable(listener.fileno())
                    # (without a notice, a look only while seats are relayed: one lost)
                    if listener.mine() or self.hosted or self.guests:
                        await self._take()
            except database_errors(OSError) as exc:
                self.queue._warn(f"lost the relayed seats' notices ({one_line(exc)})")
            finally:
                listener.close()
            await trio.sleep(POLL_EVERY)

    async def _take(self) -> None:
        from hub.records import relaying

        messages = await self.queue.on_board(relaying.take)
        for link, body in messages or ():
            self.dispatch(link, body)

    def dispatch(self, link: str, body: dict[str, Any]) -> None:
        """One message to this process about ``link``."""
        if body.get("type") == "join":
            handler = self.hosts.get(str(body.get("game")))
            guest = body.get("guest")
            if not isinstance(guest, str):
                return
            if handler is None or link in self.hosted or not handler(link, body):
                self.send(guest, link, {"type": "declined"})
            return
        seat = self.hosted.get(link)
        if seat is not None:
            seat.act(body)
            return
        relay = self.guests.get(link)
        if relay is not None:
            relay.heard(body)

    async def _watching(self) -> None:
        """Every `WATCH_EVERY` s: a partner process that stopped writing its heartbeat has
        gone (a hosted seat's page is gone; a guest's game is cut off); a join unanswered
        for `JOIN_SECONDS` goes home."""

        while True:
            await trio.sleep(WATCH_EVERY)
            partners = {seat.guest for seat in self.hosted.values()}
            partners |= {relay.host for relay in self.guests.values()}
            if not partners:
                continue
            alive = await self.queue.on_board(partial(_fresh, processes=partners))
            if alive is None:
                continue  # (the database failed: nothing is known)
            now = trio.current_time()
            for seat in list(self.hosted.values()):
                seat.alive(seat.guest in alive)
            for relay in list(self.guests.values()):
                late = relay.view is None and now - relay.asked_at > JOIN_SECONDS
                if late or (relay.view is not None and relay.host not in alive):
                    relay.cut_off()


def _send(board: WaitingBoard, messages: list[tuple[str, str, dict[str, Any]]]) -> int:
    from hub.records import relaying

    return relaying.send(board, messages)


def _fresh(board: WaitingBoard, processes: set[str]) -> set[str]:
    from hub.records import relaying

    return relaying.fresh(board, processes, STALE)


def across(seats: object) -> bool:
    """Whether a game's ``seats`` has a person at another process (no rematch then)."""
    return isinstance(seats, list | tuple) and any(isinstance(s, RemoteSeat) for s in seats)


async def start_relays(nursery: trio.Nursery, queue: SharedQueue) -> RelayHub:
    """The process's `RelayHub` on ``queue``'s database, running in ``nursery``."""
    hub = RelayHub(queue)
    await nursery.start(hub.run)
    return hub
