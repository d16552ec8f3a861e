"""Plays a match's schedule K games at a time and records each finished game as it arrives.

A *backend* gives K *slots*; each slot plays one game at a time and returns its record:

* `InProcess`: the kit's ``play`` in this trio run (K = 1; the default);
* `WorkerPool`: one ``python -m hub.tournament.worker`` child per slot, speaking JSON lines
  (`GameSpec` in, the record out), restarted if it dies, reaped with
  `hub.core.io.process.stop_all` however the match ends; `start_workers` starts them before
  the match's own checks (their imports overlap ours and the engines' probes), and the pool
  adopts them (`abandon_workers` ends those no slot took);
* ``RayBackend`` (`hub.tournament.ray_backend`, imported only for ``--cluster``): one Ray task
  per game.

`TournamentRunner` hands the games to the slots, and for every game that comes back (in the order
they finish): records it (`Recorder.add`, i.e. `hub.records.RecordStore`; aborted games are
not recorded, so a resumed match plays them again), adds it to the `Tally`, updates the
progress line and checks the SPRT, whose verdict stops the match. A slot that fails (the kit
raised, a worker died or answered nonsense) is an aborted game with the reason, and the match
goes on. Cancelling `TournamentRunner.run` (Ctrl-C) cancels the running games; every slot reaps
its processes on the way out, and `TournamentRunner.report` holds the results so far.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

import attrs
import trio

from hub.core.io.early import end_early, start_early
from hub.core.io.lines import LineError
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord, record_from_json
from hub.core.model.referee import ADJUDICATED, Termination, adjudicated
from hub.core.play.kit import GameSpec, TournamentKit, kit_session
from hub.tournament.elo import Sprt, SprtState
from hub.tournament.formats import PairingError
from hub.tournament.schedule import Schedule, Scheduled
from hub.tournament.standings import Crosstable
from hub.tournament.tally import GameOutcome, Tally
from hub.tournament.worker import MAX_LINE, describe_error, spec_to_json

WORKER_GRACE = 3.0
"""Seconds a worker has, after its input is closed, to end its game and reap its players."""
WORKER_ESCALATION = ((0.0, signal.SIGTERM), (2.0, signal.SIGKILL))
INCOMPLETE = "incomplete"
"""`MatchReport.stopped` of a tournament whose next stage needs a game that was aborted."""


class GameFailed(Exception):
    """The game could not be played to a result by its slot (kit error, worker death)."""


class Slot(Protocol):
    async def play(self, spec: GameSpec) -> GameRecord:
        """Play ``spec``; raises `GameFailed` if the game could not be played."""
        ...


class Backend(Protocol):
    @property
    def slots(self) -> int:
        """How many games run at once."""
        ...

    @property
    def name(self) -> str: ...

    def open_slot(self, index: int) -> AbstractAsyncContextManager[Slot]:
        """A slot; leaving the context releases (reaps) whatever it started."""
        ...


class Recorder(Protocol):
    """Where finished games go (`hub.records.RecordStore`)."""

    def add(
        self, record: GameRecord, *, match_id: str | None = None, index: int | None = None
    ) -> None: ...


# -- backends ------------------------------------------------------------------------------------


@attrs.define(eq=False)
class _KitSlot:
    kit: TournamentKit
    events: EventBus

    async def play(self, spec: GameSpec) -> GameRecord:
        try:
            return await self.kit.play(spec, self.events)
        except Exception as exc:
            raise GameFailed(describe_error(exc)) from exc


@attrs.define(eq=False)
class InProcess:
    """Games played by the kit in this process, one at a time (``events`` gets their events)."""

    kit: TournamentKit
    events: EventBus = attrs.Factory(EventBus)
    slots: int = 1
    name: str = "in-process"

    @asynccontextmanager
    async def open_slot(self, index: int) -> AsyncIterator[Slot]:
        async with kit_session(self.kit):
            yield _KitSlot(self.kit, self.events)


def worker_argv(kit_ref: str, python: str = sys.executable) -> tuple[str, ...]:
    return (python, "-m", "hub.tournament.worker", kit_ref)


def start_workers(
    kit_ref: str, count: int, python: str = sys.executable
) -> list[subprocess.Popen[bytes]]:
    """Start ``count`` workers now, before trio runs, each in its own process group with
    pipes for its input and answers, as `ChildProcess.spawn` starts them: a worker's start-up
    (its imports, the kit) then overlaps the match's own checks instead of following them.
    Hand them to `WorkerPool` (``early``), which adopts one per slot; end those it did not
    take with `abandon_workers`. A worker that cannot be started is simply not there (the
    pool spawns its slot's worker as usual, and says why if that fails too)."""
    started: list[subprocess.Popen[bytes]] = []
    for _ in range(count):
        try:
            started.append(start_early(worker_argv(kit_ref, python)))
        except (OSError, ValueError):
            break
    return started


def abandon_workers(workers: list[subprocess.Popen[bytes]], grace: float = WORKER_GRACE) -> None:
    """End the workers started early that no slot adopted (the match ended before, or needed
    fewer): their input closed and SIGTERM (which ends one still importing at once, and one
    waiting for a game as end of input does), then SIGKILL to one still there after
    ``grace`` seconds in all; every one reaped. Empties ``workers``."""
    end_early(workers, grace, terminate=True)
    workers.clear()


@attrs.define(eq=False)
class _WorkerSlot:
    argv: tuple[str, ...]
    early: list[subprocess.Popen[bytes]] = attrs.Factory(list)
    """Workers started before the match (`start_workers`), shared by the pool's slots: the
    first start of a slot adopts one of them, if any is left, instead of spawning."""
    child: ChildProcess | None = None
    restarts: int = 0

    async def _start(self) -> ChildProcess:
        if self.child is None and self.early:
            self.child = ChildProcess.adopt(self.early.pop(0), max_line=MAX_LINE)
        if self.child is None:
            try:
                self.child = await ChildProcess.spawn(self.argv, max_line=MAX_LINE)
            except SpawnFailed as exc:
                raise GameFailed(f"cannot start a worker: {exc}") from exc
        return self.child

    async def play(self, spec: GameSpec) -> GameRecord:
        child = await self._start()
        # written at once (no pass through the scheduler first, in which the match's loop
        # would record the last game, a database commit, before this one is on its way)
        child.lines.queue_line(json.dumps({"spec": spec_to_json(spec)}))
        await child.lines.flush_eagerly()
        try:
            line = await child.lines.receive_line()
        except LineError as exc:
            status = await self.stop()
            self.restarts += 1
            raise GameFailed(f"the worker died ({status})") from exc
        try:
            answer = json.loads(line)
            if "error" in answer:
                raise GameFailed(str(answer["error"]))
            return record_from_json(answer["record"])
        except (ValueError, KeyError, TypeError) as exc:
            await self.stop()
            self.restarts += 1
            raise GameFailed(f"the worker answered nonsense: {describe_error(exc)}") from exc

    async def stop(self, grace: float = WORKER_GRACE) -> str:
        """End the worker (input closed, then SIGTERM after ``grace``, then SIGKILL); how it
        ended."""
        child, self.child = self.child, None
        if child is None:
            return "not running"
        await child.close_stdin()
        [status] = await stop_all([child], grace=grace, escalation=WORKER_ESCALATION)
        if status.signal is not None:
            return f"killed by signal {status.signal}"
        return f"exit status {status.code}"


@attrs.define(eq=False)
class WorkerPool:
    """``slots`` worker processes, each ``python -m hub.tournament.worker KIT``."""

    kit_ref: str
    slots: int
    python: str = sys.executable
    name: str = "worker processes"
    early: list[subprocess.Popen[bytes]] = attrs.Factory(list)
    """Workers already started (`start_workers`) for the slots to adopt; whoever started them
    ends the ones left over (`abandon_workers`)."""

    @asynccontextmanager
    async def open_slot(self, index: int) -> AsyncIterator[Slot]:
        slot = _WorkerSlot(worker_argv(self.kit_ref, self.python), self.early)
        try:
            yield slot
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM) or failed: SIGTERM at once, which ends a worker
            # mid-game as its closed input does, and one still importing (its input unread
            # for a second or more on a loaded machine) at once too.
            with trio.CancelScope(shield=True):
                await slot.stop(grace=0.0)
            raise
        with trio.CancelScope(shield=True):
            await slot.stop()


# -- the match -----------------------------------------------------------------------------------


@attrs.frozen
class Finished:
    """A game that came back: its record, or why it has none."""

    scheduled: Scheduled
    record: GameRecord | None
    error: str = ""

    @property
    def aborted(self) -> bool:
        return self.record is None or self.record.termination is Termination.ABORTED

    def outcome(self) -> GameOutcome:
        seating = self.scheduled.seating
        round_ = self.scheduled.index // len(seating) if seating else None
        record = self.record
        if record is None:
            return GameOutcome(seating, aborted=True, round=round_)
        fault = record.fault
        return GameOutcome(
            seating,
            record.winners,
            record.scores,
            aborted=self.aborted,
            round=round_,
            fault_seat=None if fault is None else fault.seat,
            fault=None if fault is None else fault.termination.value,
            fingerprint=fingerprint(record),
            adjudicated=record.detail.removeprefix(ADJUDICATED)
            if adjudicated(record.detail)
            else None,
        )

    def reason(self) -> str:
        if self.error:
            return self.error
        if self.record is not None and self.record.fault is not None:
            return self.record.fault.detail
        return self.record.detail if self.record is not None else ""


def fingerprint(record: GameRecord) -> str:
    """What makes a game the game it was: its players by seat (their specs), its start and
    every move in order. Two games with the same fingerprint are the same game played twice."""
    players = [player.spec or player.name for player in record.players]
    moves = [(move.seat, move.move) for move in record.moves]
    text = json.dumps([players, record.initial_state, moves], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def outcome_of(scheduled: Scheduled, record: GameRecord) -> GameOutcome:
    return Finished(scheduled, record).outcome()


@attrs.define
class Aborted:
    index: int
    reason: str


@attrs.define
class MatchReport:
    """The results so far; complete once `TournamentRunner.run` returns."""

    schedule: Schedule
    tally: Tally
    backend: str = ""
    planned: int = 0
    """Games this run set out to play (the schedule less those already recorded)."""
    done: int = 0
    """Games this run finished (aborted ones included)."""
    running: int = 0
    aborted: list[Aborted] = attrs.Factory(list)
    sprt: Sprt | None = None
    sprt_state: SprtState | None = None
    points: dict[int, dict[int, float]] = attrs.Factory(dict)
    """Each finished game's points by player, by the game's index (a tournament's next
    stage follows them)."""
    crosstable: Crosstable | None = None
    """The crosstable and the history of the standings (the table shows the crosstable for a
    tournament, the web page's chart the history for every match)."""
    stopped: str | None = None
    """None (every game was played), ``"sprt"``, ``"interrupted"``, ``"error"`` or
    `INCOMPLETE` (a tournament's stage has an aborted game, so the next cannot be drawn)."""
    error: str = ""
    started: float = attrs.Factory(time.monotonic)
    finished_at: float | None = None

    @property
    def elapsed(self) -> float:
        end = self.finished_at if self.finished_at is not None else time.monotonic()
        return max(0.0, end - self.started)


ReportListener = Callable[[MatchReport], None]
"""What `TournamentRunner` tells as a match goes on (core/bus's `Listener` hears a game)."""


class TournamentRunner:
    """Runs ``schedule`` (less the games in ``skip``) on ``backend``."""

    def __init__(
        self,
        schedule: Schedule,
        backend: Backend,
        *,
        skip: Iterable[int] = (),
        recorder: Recorder | None = None,
        tally: Tally | None = None,
        sprt: Sprt | None = None,
        on_update: ReportListener | None = None,
        on_game: Callable[[Finished], None] | None = None,
        crosstable: Crosstable | None = None,
        points: Mapping[int, Mapping[int, float]] | None = None,
    ) -> None:
        self.skipped = set(skip)
        self.games = [game for game in schedule.games if game.index not in self.skipped]
        self.backend = backend
        self.recorder = recorder
        self.on_update = on_update
        self.on_game = on_game
        tally = tally if tally is not None else Tally(schedule.players)
        tally_names = tally.names
        self.report = MatchReport(
            schedule,
            tally,
            backend=backend.name,
            planned=len(self.games),
            sprt=sprt,
            crosstable=crosstable if crosstable is not None else Crosstable(tally_names),
        )
        self.report.points = {index: dict(shares) for index, shares in (points or {}).items()}
        self._outstanding = 0
        self._stage_done = trio.Event()
        self._update_sprt()

    def _update_sprt(self) -> None:
        report = self.report
        if report.sprt is None:
            return
        report.sprt_state = report.tally.sprt_state(report.sprt)

    def _notify(self) -> None:
        if self.on_update is not None:
            self.on_update(self.report)

    async def run(self) -> MatchReport:
        """Play every game (or until the SPRT decides); cancel it to stop early."""
        report = self.report
        try:
            if report.sprt_state is not None and report.sprt_state.verdict is not None:
                report.stopped = "sprt"
                return report
            self._notify()
            async with trio.open_nursery() as nursery:
                games_in, games_out = trio.open_memory_channel[Scheduled](0)
                done_in, done_out = trio.open_memory_channel[Finished](0)
                nursery.start_soon(self._feed, games_in)
                async with done_in:
                    for index in range(min(self.backend.slots, len(self.games))):
                        nursery.start_soon(self._slot, index, games_out.clone(), done_in.clone())
                games_out.close()
                async for finished in done_out:
                    # the slot that sent it hands out its next game before this one is
                    # recorded (a database commit): its worker starts that game meanwhile
                    await trio.lowlevel.checkpoint()
                    if self._take(finished):
                        nursery.cancel_scope.cancel()
        finally:
            report.finished_at = time.monotonic()
            report.running = 0
        return report

    async def _feed(self, games_in: trio.MemorySendChannel[Scheduled]) -> None:
        """Hand out the games; a tournament's next stage once every game handed out is back
        (a stage with an aborted game is not complete: the tournament ends there)."""
        async with games_in:
            sent = set(self.skipped)
            games = self.games
            while games:
                for game in games:
                    sent.add(game.index)
                    self._outstanding += 1
                    await games_in.send(game)
                field = self.report.schedule.field
                if field is None:
                    return
                await self._stage_done.wait()
                self._stage_done = trio.Event()
                try:
                    schedule = field.schedule(self.report.points)
                except PairingError as exc:  # (not expected: a Swiss is kept short enough)
                    self.report.stopped, self.report.error = "error", str(exc)
                    return
                games = [game for game in schedule.games if game.index not in sent]
                self.report.schedule = schedule
                self.report.planned += len(games)
                if not games and not field.over(self.report.points):
                    self.report.stopped = INCOMPLETE

    async def _slot(
        self,
        index: int,
        games_out: trio.MemoryReceiveChannel[Scheduled],
        done_in: trio.MemorySendChannel[Finished],
    ) -> None:
        async with games_out, done_in, self.backend.open_slot(index) as slot:
            async for game in games_out:
                self.report.running += 1
                try:
                    record = await slot.play(game.spec)
                    finished = Finished(game, record)
                except GameFailed as exc:
                    finished = Finished(game, None, str(exc) or "the game failed")
                finally:
                    self.report.running -= 1
                await done_in.send(finished)

    def _take(self, finished: Finished) -> bool:
        """Count and record a finished game; True if the match must stop now."""
        stop = self._count(finished)
        self._outstanding -= 1
        if self._outstanding == 0:
            self._stage_done.set()
        return stop

    def _count(self, finished: Finished) -> bool:
        report = self.report
        report.done += 1
        if finished.aborted:
            report.aborted.append(Aborted(finished.scheduled.index, finished.reason()))
        elif self.recorder is not None and finished.record is not None:
            try:
                self.recorder.add(
                    finished.record,
                    match_id=report.schedule.match_id,
                    index=finished.scheduled.index,
                )
            except Exception as exc:
                report.stopped = "error"
                report.error = (
                    f"cannot record game {finished.scheduled.index}: {describe_error(exc)}"
                )
                self._notify()
                return True
        outcome = finished.outcome()
        report.tally.add(outcome)
        if not outcome.aborted:
            self.report.points[finished.scheduled.index] = outcome.points()
        if self.on_game is not None:
            self.on_game(finished)
        self._update_sprt()
        if report.crosstable is not None and finished.record is not None:
            report.crosstable.add(outcome, finished.record.game_id, report.sprt_state)
        stop = report.sprt_state is not None and report.sprt_state.verdict is not None
        if stop:
            report.stopped = "sprt"
        self._notify()
        return stop
