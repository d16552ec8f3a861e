"""The web view's memory of the games, fed by the event bus, and its fan-out to viewers.

`GameIndex` is an `EventBus` subscriber: one task reads a bounded subscription and keeps, per
running game, its start, its moves and its latest state, plus the most recent finished games
(``max_finished`` records). A game's memory is released when it ends; everything is bounded.
If the index itself falls behind the bus (its subscription is dropped) it subscribes again
and marks every running game stale: the next event of such a game resynchronises its
viewers, and a stale game is the first to be forgotten when ``max_live`` is reached.

Viewers (one per open page) `watch` a topic: ``lobby``, ``game:<id>`` or ``series:<page>``,
the page of a series of games with a running score (a game's `hub.core.play.game.Series` facet:
the chess console's ``/console``). Each has
a bounded queue of ready-made server-sent-event frames: an event is serialised once per topic
and offered to every viewer without waiting. A viewer that falls ``viewer_buffer`` frames
behind loses its queue and gets a fresh snapshot of the current state when it next reads, so
a stalled browser costs a bounded amount of memory and never delays the game (or the index).
One timer (`GameIndex.keep_alive`) sends a comment to the viewers that were sent nothing for
a while, so that a frame costs its stream no timeout of its own.
"""

from __future__ import annotations

import functools
import json
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.core.model.values import JSON
from hub.web.render import points_text
from hub.web.views import LiveGame, ShownGame, detail, move_json, summary

LOBBY = "lobby"
ELSEWHERE = "playing at another process"
"""The state a lobby shows of a game running at another process (`elsewhere_row`)."""
SERIES = "series:"
"""The topics of the series' pages: ``series:console``."""
BUS_BUFFER = 4096
"""Events the index may fall behind the bus before it is dropped (and resubscribes)."""
VIEWER_BUFFER = 32
"""Frames a viewer may fall behind before it is resynchronised."""
KEEPALIVE = 15.0
"""Seconds between comments on an idle stream (proxies close silent connections)."""
KEEPALIVE_FRAME = b": keepalive\n\n"


def game_topic(game_id: str) -> str:
    return f"game:{game_id}"


def frame(message: dict[str, JSON]) -> bytes:
    """One server-sent event (JSON has no raw newlines, so one ``data:`` line)."""
    text = json.dumps(message, separators=(",", ":"), allow_nan=False, default=str)
    return b"data: " + text.encode() + b"\n\n"


class TooManyViewers(Exception):
    """The index already serves ``max_viewers`` pages."""


class Viewer:
    """One page's bounded queue of frames; `receive` in the page's own task."""

    def __init__(self, index: GameIndex, topic: str, size: int) -> None:
        self.topic = topic
        self._index = index
        self._size = size
        self._queue: deque[bytes] = deque()
        self._resync = True  # the first frame is a snapshot
        self._wakeup = trio.Event()
        self._idle = False
        """Nothing was received since the last `tick`."""
        self.closed = False
        self.resyncs = 0
        """How many times this viewer fell behind and was resynchronised."""

    def offer(self, data: bytes) -> None:
        """Queue a frame without ever waiting; a full queue turns into a resync."""
        if self.closed or self._resync:
            return  # the coming snapshot includes it
        if len(self._queue) >= self._size:
            self.resyncs += 1
            self.resync()
            return
        self._queue.append(data)
        self._wakeup.set()

    def resync(self) -> None:
        """Drop what is queued: the next `receive` is a snapshot of the current state."""
        self._queue.clear()
        self._resync = True
        self._wakeup.set()

    def tick(self) -> None:
        """A keepalive comment if nothing was received since the last tick (one timer for
        every viewer: a frame costs its stream no timeout of its own)."""
        if self._idle and not self._queue:
            self.offer(KEEPALIVE_FRAME)
        self._idle = True

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def receive(self) -> bytes | None:
        """The next frame, or None once closed."""
        while True:
            if self.closed:
                return None
            if self._resync:
                self._resync = self._idle = False
                return self._index.snapshot(self.topic)
            if self._queue:
                self._idle = False
                return self._queue.popleft()
            self._wakeup = trio.Event()
            await self._wakeup.wait()

    def close(self) -> None:
        self.closed = True
        self._queue.clear()
        self._wakeup.set()
        self._index._unwatch(self)

    def __enter__(self) -> Viewer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class GameIndex:
    """Running and recent games, from the bus; `run` it in a task (or feed `apply`)."""

    def __init__(
        self,
        bus: EventBus | None = None,
        *,
        bus_buffer: int = BUS_BUFFER,
        max_live: int = 1000,
        max_finished: int = 200,
        viewer_buffer: int = VIEWER_BUFFER,
        max_viewers: int = 1000,
    ) -> None:
        self.bus = bus
        self.bus_buffer = bus_buffer
        self.max_live = max_live
        self.max_finished = max_finished
        self.viewer_buffer = viewer_buffer
        self.max_viewers = max_viewers
        self.live: OrderedDict[str, LiveGame] = OrderedDict()
        """Running games, least recently moved first."""
        self.finished: OrderedDict[str, GameRecord] = OrderedDict()
        """Finished games, oldest first (at most ``max_finished``)."""
        self._viewers: dict[str, set[Viewer]] = {}
        self._snapshots: dict[str, bytes] = {}
        """Snapshots built since the last event, per topic (100 pages opening at once)."""
        self.drops = 0
        """How many times the index fell behind the bus and resubscribed."""
        self.series: dict[str, SeriesScore] = {}
        """Per series page, its current (or last) game and running score (the games of a
        `hub.core.play.game.Series`: the chess console's)."""
        self.changed: Callable[[Event], None] | None = None
        """Called after each event is applied (tests wait on it)."""
        self.stored: list[dict[str, Any]] = []
        """Finished games of a records store (their lobby rows, newest first), listed after
        the index's own recent games (`set_stored`)."""
        self.elsewhere: dict[str, dict[str, Any]] = {}
        """Games running at the other processes of a hub on PostgreSQL (their lobby rows,
        newest first, by id), listed after the index's own running games (`set_elsewhere`)."""

    # -- input ----------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Follow the bus until it closes (or this task is cancelled)."""
        if self.bus is None:
            raise ValueError("GameIndex.run needs a bus")
        subscription = self.bus.subscribe(self.bus_buffer)
        task_status.started()
        while True:
            async for event in subscription:
                self.apply(event)
            if not subscription.dropped:
                return
            self.drops += 1
            for game in self.live.values():
                game.stale = True
            subscription = self.bus.subscribe(self.bus_buffer)

    def apply(self, event: Event) -> None:
        """Take one event into account and tell the viewers concerned (never waits)."""
        self._snapshots.clear()
        if isinstance(event, GameStarted):
            self._started(event)
        elif isinstance(event, MoveMade):
            self._moved(event)
        else:
            self._ended(event)
        if self.changed is not None:
            self.changed(event)

    def _started(self, event: GameStarted) -> None:
        game = LiveGame.started(event)
        self._remember(game)
        found = series_of(game.game, game.settings)
        if found is not None:
            page, seats, score = found
            series = self.series.get(page) or SeriesScore(seats, [0.0] * len(seats))
            series.game_id = game.game_id
            if score:  # else the score goes on
                series.seats, series.score = seats, score
            self.series[page] = series
        self._publish(LOBBY, lambda: {"type": "game", "game": summary(game)})
        self._publish(
            game_topic(game.game_id), lambda: self.snapshot_json(game_topic(game.game_id))
        )
        self._series_changed(game.game_id)

    def _moved(self, event: MoveMade) -> None:
        game = self.live.get(event.game_id)
        if game is None:
            game = LiveGame.joined(event)
            self._remember(game)
        in_order = game.add(event) and not game.stale
        game.stale = False
        self.live.move_to_end(game.game_id)
        self._publish(LOBBY, lambda: {"type": "game", "game": summary(game)})
        topic = game_topic(game.game_id)
        if in_order:
            self._publish(topic, lambda: move_json(game, event))
        else:
            self._resync(topic)
        self._series_changed(game.game_id)

    def _ended(self, event: GameEnded) -> None:
        record = event.record
        self.live.pop(event.game_id, None)
        self.finished[event.game_id] = record
        self.finished.move_to_end(event.game_id)
        while len(self.finished) > self.max_finished:
            self.finished.popitem(last=False)
        for series in self.series.values():
            if event.game_id == series.game_id and record.termination is not Termination.ABORTED:
                for seat in record.winners:
                    if seat < len(series.score):
                        series.score[seat] += 1 / len(record.winners)
        self._publish(LOBBY, lambda: {"type": "game", "game": summary(record)})
        self._publish(
            game_topic(event.game_id), lambda: self.snapshot_json(game_topic(event.game_id))
        )
        self._series_changed(event.game_id)

    def _remember(self, game: LiveGame) -> None:
        self.live[game.game_id] = game
        self.live.move_to_end(game.game_id)
        while len(self.live) > self.max_live:
            victim = next((key for key, old in self.live.items() if old.stale), None)
            if victim is None:
                victim = next(iter(self.live))
            del self.live[victim]
            self._resync(game_topic(victim))

    # -- output ---------------------------------------------------------------------------

    def watch(self, topic: str) -> Viewer:
        """A new viewer of ``topic``; its first frame is a snapshot. Close it when done."""
        if self.viewers >= self.max_viewers:
            raise TooManyViewers(f"{self.max_viewers} viewers already")
        viewer = Viewer(self, topic, self.viewer_buffer)
        self._viewers.setdefault(topic, set()).add(viewer)
        return viewer

    async def keep_alive(
        self,
        interval: float = KEEPALIVE,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Every ``interval`` seconds, a keepalive comment to each viewer that was sent
        nothing since the last time (run it in a task beside the server)."""
        task_status.started()
        while True:
            await trio.sleep(interval)
            for viewers in list(self._viewers.values()):
                for viewer in list(viewers):
                    viewer.tick()

    def _unwatch(self, viewer: Viewer) -> None:
        viewers = self._viewers.get(viewer.topic)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self._viewers[viewer.topic]

    @property
    def viewers(self) -> int:
        return sum(len(viewers) for viewers in self._viewers.values())

    def close_viewers(self) -> None:
        """End every page's stream (the server is shutting down)."""
        for viewers in list(self._viewers.values()):
            for viewer in list(viewers):
                viewer.close()

    def _publish(self, topic: str, message: Callable[[], dict[str, JSON]]) -> None:
        viewers = self._viewers.get(topic)
        if not viewers:
            return  # nobody watches: build nothing
        data = frame(message())
        for viewer in viewers:
            viewer.offer(data)

    def _resync(self, topic: str) -> None:
        for viewer in self._viewers.get(topic, ()):
            viewer.resync()

    def _series_changed(self, game_id: str) -> None:
        for page, series in self.series.items():
            if game_id == series.game_id:
                for viewer in self._viewers.get(SERIES + page, ()):
                    viewer.resync()

    def snapshot(self, topic: str) -> bytes:
        """A frame with the whole current state of ``topic``."""
        data = self._snapshots.get(topic)
        if data is None:
            data = frame(self.snapshot_json(topic))
            self._snapshots[topic] = data
        return data

    def snapshot_json(self, topic: str) -> dict[str, JSON]:
        if topic == LOBBY:
            return {"type": "lobby", **self.lobby()}
        if topic.startswith(SERIES):
            return self.series_json(topic.removeprefix(SERIES)) or {"type": "missing"}
        game = self.game(topic.removeprefix("game:"))
        if game is None:
            return {"type": "missing"}
        return {"type": "snapshot", "game": detail(game)}

    # -- queries --------------------------------------------------------------------------

    def game(self, game_id: str) -> ShownGame | None:
        return self.live.get(game_id) or self.finished.get(game_id)

    def set_stored(self, rows: list[dict[str, Any]]) -> None:
        """The records store's recent games, for the lobby (its page and its stream's
        snapshots alike, so that a first frame never empties a list the page showed)."""
        if rows != self.stored:
            self.stored = rows
            self._snapshots.pop(LOBBY, None)

    def set_elsewhere(self, rows: list[dict[str, Any]]) -> None:
        """The games running at the other processes (their lobby rows: `elsewhere_row`),
        for the lobby; its viewers get the new list at once."""
        now = {row["id"]: row for row in rows}
        if now != self.elsewhere:
            self.elsewhere = now
            self._snapshots.pop(LOBBY, None)
            self._resync(LOBBY)

    def lobby(self) -> dict[str, Any]:
        running = [summary(game) for game in reversed(self.live.values())]
        recent = [summary(record) for record in reversed(self.finished.values())]
        if self.stored:
            known = {row["id"] for row in running + recent}
            recent += [row for row in self.stored if row["id"] not in known]
        if self.elsewhere:  # (one that has ended is recorded already: listed as such)
            known = {row["id"] for row in running + recent}
            running += [row for key, row in self.elsewhere.items() if key not in known]
        return {"running": running, "recent": recent}

    def series_json(self, page: str) -> dict[str, JSON] | None:
        """The page of a series: its current game and the score (``{"white": "1", ...}``);
        None for a page no installed game has."""
        series = self.series.get(page)
        if series is None:
            seats = series_pages().get(page)
            if seats is None:
                return None
            series = SeriesScore(seats, [0.0] * len(seats))
        game = None if series.game_id is None else self.game(series.game_id)
        score = zip(series.seats, series.score, strict=False)
        return {
            "type": page,
            "game": None if game is None else detail(game),
            "score": {seat: points_text(points) for seat, points in score},
        }


class SeriesScore:
    """A series page's memory: its seats' names (lower case), the running score by seat and
    the current game."""

    __slots__ = ("game_id", "score", "seats")

    def __init__(self, seats: tuple[str, ...], score: list[float]) -> None:
        self.seats = seats
        self.score = score
        self.game_id: str | None = None


@functools.cache
def series_pages() -> dict[str, tuple[str, ...]]:
    """The series pages of the installed games (`hub.core.play.game.Series.page`), each with its
    seats' names in lower case (the score's keys before any game of the series)."""
    from hub.core.commands.plugin import discover, pictures

    pages: dict[str, tuple[str, ...]] = {}
    for name in discover():
        declared = pictures(name)
        if declared is not None and declared.series is not None:
            seats = tuple(declared.seat_name(seat).lower() for seat in range(declared.seat_count))
            pages.setdefault(declared.series.page, seats)
    return pages


def series_of(
    game: str, settings: dict[str, JSON]
) -> tuple[str, tuple[str, ...], list[float]] | None:
    """For a game of a series with a running score (its declaration's `Series` facet: the
    chess console's games), its page, its seats' names in lower case and the score before
    it."""
    from hub.core.commands.plugin import pictures

    declared = pictures(game)
    if declared is None:
        return None
    series = declared.series
    if series is None:
        return None
    try:
        score = series.score(settings)
    except (TypeError, ValueError, AttributeError):
        return None
    if score is None:
        return None
    seats = tuple(declared.seat_name(seat).lower() for seat in range(len(score)))
    return series.page, seats, score


def elsewhere_row(
    game_id: str, game: str, players: Sequence[dict[str, str]], started: float
) -> dict[str, Any]:
    """The lobby row (as `hub.web.views.summary`'s) of a game running at another process of
    the hub: no moves or state are known here, its ``words`` say where it is."""
    return {
        "id": game_id,
        "game": game,
        "rules": None,
        "players": [{"name": p.get("name", "?"), "kind": p.get("kind", "")} for p in players],
        "status": "running",
        "elsewhere": True,
        "ply": "",
        "to_move": None,
        "started_at": started,
        "ended_at": None,
        "result": "*",
        "termination": None,
        "how": None,
        "words": ELSEWHERE,
    }
