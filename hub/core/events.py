"""The one event stream: what every game publishes, and the fan-out to its subscribers.

The match loop publishes three kinds of event, each a frozen, JSON-serialisable value:

* `GameStarted`: the game's kind, settings, players, time controls and first state;
* `MoveMade`: who moved, the move in the game's own notation, the state after it, the time
  the move took and every seat's clock;
* `GameEnded`: the `GameRecord`, the same shape for every game (players, settings, moves,
  result, termination, times).

States in events are *views*: plain JSON values a game chooses (a FEN, a Kalah board, a
clubs table) so that subscribers (records, the web view, a progress line) never import a
game. An `EventBus` fans events out to any number of subscribers without ever blocking the
publisher:

* `EventBus.subscribe(size)` gives a `Subscription` with a bounded buffer read by its own
  task. A subscriber that falls ``size`` events behind is dropped (its iteration ends and
  ``dropped`` is set), so a stalled reader never delays a move.
* `EventBus.listen(callback)` calls a synchronous, non-blocking callback in the publisher's
  task, in order (a transcript printer that must interleave exactly with other output). A
  callback that raises is removed and the error kept in ``EventBus.errors``; the game goes on.
"""

from __future__ import annotations

import enum
import math
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, TypeAlias

import attrs
import trio

from hub.core.referee import Termination

JSON: TypeAlias = Any
"""A value made of dict/list/str/int/float/bool/None (what `json.dumps` accepts)."""

RECORD_VERSION = 1


def _tuple(value: Sequence[Any]) -> tuple[Any, ...]:
    return value if type(value) is tuple else tuple(value)


def _settings(value: Mapping[str, JSON]) -> dict[str, JSON]:
    return dict(value)


@attrs.frozen
class PlayerInfo:
    """Who sits in a seat: a display name and what kind of player it is.

    ``kind`` is one of ``program`` (a child process over pipes), ``remote`` (a TCP peer),
    ``ai`` (a built-in AI), ``engine`` (a UCI engine), ``person`` (at the terminal) or any
    word a game needs; ``spec`` is how to summon it again (``ai:4``, ``clubber``, ...).
    """

    name: str
    kind: str = "program"
    spec: str = ""


@attrs.frozen
class RecordedMove:
    """One move of a record: the seat, its text in the game's notation, seconds it took,
    and the state after it (a view)."""

    seat: int
    move: str
    elapsed: float
    state: JSON = None


@attrs.frozen
class FaultInfo:
    """The seat that ended the game early, how (a `Termination`), and the details."""

    seat: int
    termination: Termination
    detail: str = ""
    move: str | None = None
    """The offending move in the game's notation (illegal, or played after the deadline)."""


@attrs.frozen
class GameRecord:
    """A finished (or aborted) game, the same shape for every game type."""

    game_id: str
    game: str
    settings: dict[str, JSON] = attrs.field(converter=_settings)
    players: tuple[PlayerInfo, ...] = attrs.field(converter=_tuple)
    time_controls: tuple[str, ...] = attrs.field(converter=_tuple)
    initial_state: JSON
    moves: tuple[RecordedMove, ...] = attrs.field(converter=_tuple)
    final_state: JSON
    scores: tuple[float, ...] = attrs.field(converter=_tuple)
    winners: tuple[int, ...] = attrs.field(converter=_tuple)
    termination: Termination
    fault: FaultInfo | None
    started_at: float
    """Wall-clock (Unix) time when the game began."""
    ended_at: float
    thinking: tuple[float, ...] = attrs.field(converter=_tuple)
    """Seconds each seat spent choosing its moves."""
    version: int = RECORD_VERSION
    detail: str = ""
    """How the game ended in words (`Outcome.detail`: ``checkmate``, ``threefold repetition``,
    ...; for an abort, why the host stopped it: ``undo``, ``end of input``); empty when the
    termination says it all. A seat's fault has its details in ``fault``."""

    @property
    def duration(self) -> float:
        return max(0.0, self.ended_at - self.started_at)

    def result_text(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2`` for two seats; otherwise the winners' names."""
        if len(self.players) == 2:
            if len(self.winners) == 1:
                return "1-0" if self.winners[0] == 0 else "0-1"
            return "1/2-1/2" if self.winners else "*"
        if not self.winners:
            return "*"
        return "winners: " + ", ".join(self.players[seat].name for seat in self.winners)


@attrs.frozen
class GameStarted:
    game_id: str
    game: str
    settings: dict[str, JSON] = attrs.field(converter=_settings)
    players: tuple[PlayerInfo, ...] = attrs.field(converter=_tuple)
    time_controls: tuple[str, ...] = attrs.field(converter=_tuple)
    state: JSON
    to_move: int | None
    at: float


@attrs.frozen
class MoveMade:
    game_id: str
    ply: int
    """1 for the first move of the game."""
    seat: int
    move: str
    state: JSON
    to_move: int | None
    elapsed: float
    clocks: tuple[float | None, ...] = attrs.field(converter=_tuple)
    """Each seat's time left after the move (None: no limit)."""
    at: float


@attrs.frozen
class GameEnded:
    game_id: str
    record: GameRecord
    at: float


Event: TypeAlias = GameStarted | MoveMade | GameEnded

_KINDS: dict[str, type[Event]] = {
    "started": GameStarted,
    "moved": MoveMade,
    "ended": GameEnded,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def _serialise(_instance: object, _field: object, value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(value: Event | GameRecord) -> dict[str, JSON]:
    """A JSON-ready dict; events carry their kind under ``"event"``."""
    data: dict[str, JSON] = attrs.asdict(value, value_serializer=_serialise)
    name = _NAMES.get(type(value))  # type: ignore[arg-type]
    if name is not None:
        data["event"] = name
    return data


def record_from_json(data: Mapping[str, JSON]) -> GameRecord:
    """The inverse of `to_json` for a record (records and Ray results travel as JSON)."""
    fault = data.get("fault")
    return GameRecord(
        game_id=data["game_id"],
        game=data["game"],
        settings=data.get("settings") or {},
        players=[PlayerInfo(**player) for player in data["players"]],
        time_controls=data.get("time_controls") or (),
        initial_state=data.get("initial_state"),
        moves=[RecordedMove(**move) for move in data["moves"]],
        final_state=data.get("final_state"),
        scores=data["scores"],
        winners=data["winners"],
        termination=Termination(data["termination"]),
        fault=None
        if fault is None
        else FaultInfo(
            fault["seat"], Termination(fault["termination"]), fault["detail"], fault["move"]
        ),
        started_at=data["started_at"],
        ended_at=data["ended_at"],
        thinking=data.get("thinking") or (),
        version=data.get("version", RECORD_VERSION),
        detail=data.get("detail") or "",
    )


def event_from_json(data: Mapping[str, JSON]) -> Event:
    kind = data["event"]
    if kind == "ended":
        return GameEnded(data["game_id"], record_from_json(data["record"]), data["at"])
    fields = {key: value for key, value in data.items() if key != "event"}
    if kind == "started":
        fields["players"] = [PlayerInfo(**player) for player in fields["players"]]
        return GameStarted(**fields)
    if kind == "moved":
        return MoveMade(**fields)
    raise ValueError(f"unknown event kind {kind!r}")


# -- fan-out ---------------------------------------------------------------------------------

DEFAULT_BUFFER = 1024


class Subscription:
    """One subscriber's bounded buffer; iterate it (``async for event in sub``) in a task.

    Iteration ends when the bus is closed (after the events before it) or when the
    subscriber was dropped for falling behind (``dropped`` is then True).
    """

    def __init__(self, bus: EventBus, size: int) -> None:
        if size < 1:
            raise ValueError("a subscription needs room for at least one event")
        self._bus = bus
        self._size = size
        self._queue: deque[Event] = deque()
        self._wakeup = trio.Event()
        self.closed = False
        self.dropped = False

    def _offer(self, event: Event) -> bool:
        """Queue ``event``; False (and dropped) if the buffer is full."""
        if self.closed:
            return False
        if len(self._queue) >= self._size:
            self.dropped = True
            self._queue.clear()  # what it missed is gone: it must resynchronise
            self._close()
            return False
        self._queue.append(event)
        self._wakeup.set()
        return True

    def _close(self) -> None:
        self.closed = True
        self._wakeup.set()

    def close(self) -> None:
        """Stop receiving (the subscriber leaves); events already queued are discarded."""
        self._bus._remove(self)
        self._queue.clear()
        self._close()

    @property
    def pending(self) -> int:
        return len(self._queue)

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        while True:
            if self._queue:
                yield self._queue.popleft()
                continue
            if self.closed:
                return
            self._wakeup = trio.Event()
            await self._wakeup.wait()

    async def receive(self) -> Event | None:
        """The next event, or None once closed or dropped."""
        while not self._queue:
            if self.closed:
                return None
            self._wakeup = trio.Event()
            await self._wakeup.wait()
        return self._queue.popleft()


Listener = Callable[[Event], None]


class EventBus:
    """Fans published events out to subscriptions and listeners; `publish` never blocks."""

    def __init__(self) -> None:
        self._subscriptions: list[Subscription] = []
        self._listeners: list[Listener] = []
        self.errors: list[BaseException] = []
        self.dropped = 0
        """How many subscriptions were dropped for falling behind."""
        self.closed = False

    def subscribe(self, size: int = DEFAULT_BUFFER) -> Subscription:
        subscription = Subscription(self, size)
        if self.closed:
            subscription._close()
        else:
            self._subscriptions.append(subscription)
        return subscription

    def listen(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback(event)`` for every event, in the publisher's task; returns a
        function that stops it. The callback must not block (it cannot await)."""
        self._listeners.append(callback)

        def stop() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return stop

    @property
    def subscribers(self) -> int:
        return len(self._subscriptions) + len(self._listeners)

    def publish(self, event: Event) -> None:
        if self.closed:
            return
        for callback in list(self._listeners):
            try:
                callback(event)
            except Exception as exc:  # a broken listener must not break the game
                self.errors.append(exc)
                if callback in self._listeners:
                    self._listeners.remove(callback)
        keep = []
        for subscription in self._subscriptions:
            if subscription._offer(event):
                keep.append(subscription)
            elif subscription.dropped:
                self.dropped += 1
        self._subscriptions = keep

    def _remove(self, subscription: Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)

    def close(self) -> None:
        """No more events: every subscription ends after what it has queued."""
        self.closed = True
        for subscription in self._subscriptions:
            subscription._close()
        self._subscriptions = []
        self._listeners = []
