"""Built-in AIs in worker threads, behind the one `hub.core.play.vocabulary.Seat` interface.

* `ThreadSeat`: the one local-player seat: a built-in AI whose synchronous
  ``think(state, time, stop)`` runs in a worker thread with a stop flag (`think_in_thread`,
  `run_in_thread`, `StopFlag`), so the event loop keeps serving and Ctrl-C (cancellation)
  returns at once. ``time`` is the turn's `TurnTime` (time left, the control, both game
  clocks), computed from the seat's clock in one place (`ClockedSeat`), so an AI budgets
  from it as it likes (Kalah's a share of its limit, chess's level 4 as UCI's ``go``).
* `PromptedSeat`: a built-in AI that thinks (in a worker thread, as `ThreadSeat`) only when
  its host says so with `PromptedSeat.play` (the chess console's bare ``move``).
* `ProcessSeat`: a `ThreadSeat` whose timed turns are thought in a forked worker process
  (`ThinkingProcess`), so that a search in Python does not share the GIL with the event
  loop: beside a search thread, the loop woke up to hundreds of ms late on a busy machine
  and missed its hard stop (docs/performance.md, "Built-in players on their clocks").

Apart from `hub.core.play.seats` (a peer over a line stream) so that a program whose seats are all
peers, such as ``clubhub``, does not build these classes at start-up.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import signal
import sys
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection, Pipe
from typing import Any, Generic, TypeVar

import attrs
import trio

from hub.core.model.clock import (
    MOVES_TO_GO,
    THINK_SHARE,
    TimeControl,
    hard_margin,
    think_budget,
)
from hub.core.model.values import PlayerInfo
from hub.core.play.vocabulary import (
    BaseSeat,
    LaunchedSeat,
    MatchResult,
    MatchView,
    Moved,
    Start,
    Turn,
)

S = TypeVar("S")
M = TypeVar("M")
T = TypeVar("T")
S_contra = TypeVar("S_contra", contravariant=True)


class StopFlag:
    """Set when the search should give up (the seat was cancelled, or its hard stop came);
    poll `is_set`. A search may `offer` its best move so far: a seat whose hard stop comes
    before the search answers plays the last one offered (`ThreadSeat`)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.offered: object | None = None
        """The last move `offer`ed (None: none yet)."""

    def offer(self, move: object) -> None:
        """``move`` is the search's best so far (a plain attribute write: safe from a thread)."""
        self.offered = move

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block the (worker) thread until the flag is set or ``timeout`` seconds have passed;
        True if it is set. For searches that sleep between steps, and for test stubs."""
        return self._event.wait(timeout)


async def run_in_thread(
    work: Callable[[StopFlag], T],
    *,
    limiter: trio.CapacityLimiter | None = None,
    stop: StopFlag | None = None,
) -> T:
    """Run ``work(stop)`` in a worker thread; on cancellation set ``stop`` and return at once
    (the thread notices the flag and ends by itself; its late answer is dropped). The one way
    hub runs a search. ``stop``: the flag to use (the caller reads what was offered on it)."""
    if stop is None:
        stop = StopFlag()
    try:
        return await trio.to_thread.run_sync(work, stop, abandon_on_cancel=True, limiter=limiter)
    finally:
        stop.set()


async def think_in_thread(
    work: Callable[[StopFlag], T],
    *,
    threaded: bool = True,
    limiter: trio.CapacityLimiter | None = None,
    busy: Callable[[], T] | None = None,
    stop: StopFlag | None = None,
) -> T:
    """The one way a built-in AI thinks: ``work(stop)`` in a worker thread of ``limiter``
    (`run_in_thread`: on cancellation the stop flag is set and this returns at once), or
    inline with ``threaded=False`` (deterministic tests, a search known to be instant).

    With ``busy``: when ``limiter`` (default: trio's) has no worker free right now, return
    ``busy()`` at once instead of waiting for one (a loaded server: a quick answer that is
    never late beats a queue of searches starving the event loop of the GIL)."""
    if not threaded:
        return work(stop or StopFlag())
    if busy is None:
        return await run_in_thread(work, limiter=limiter, stop=stop)
    shared = limiter or trio.to_thread.current_default_thread_limiter()
    if shared.available_tokens <= 0:
        return busy()
    shared.acquire_nowait()
    try:
        # The thread holds our token of the shared limiter, taken above.
        return await run_in_thread(work, limiter=trio.CapacityLimiter(1), stop=stop)
    finally:
        shared.release()


SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits for it (`sys.setswitchinterval`),
set for the whole process by the first seat with a hard stop: at Python's default 5 ms the
event loop woke a median 5-13 ms late beside a searching thread, at 1 ms 1.3 ms (a 10 ms
sleep beside a CPU-bound thread and a spinner on a busy machine): the hard stop's timer and
the move's hand-over wait for the GIL."""


@attrs.frozen
class TurnTime:
    """A turn's time, as a player budgets it: seconds ``left`` to the deadline (``inf``:
    none), the seat's time ``control``, its game clock now (``game_left``) and the
    opponent's after the last move (``other_left``; None without a game clock or with
    other than two seats), and ``asked``, `time.perf_counter` when the seat was asked (a
    worker thread cannot read trio's clock: `since_asked` tells what starting it took)."""

    left: float = math.inf
    control: TimeControl = attrs.Factory(TimeControl)
    game_left: float | None = None
    other_left: float | None = None
    asked: float = 0.0

    def since_asked(self) -> float:
        return time.perf_counter() - self.asked

    def budget(self, moves_to_go: int = MOVES_TO_GO, share: float = THINK_SHARE) -> float | None:
        """Seconds to think from now (None: no limit): `hub.core.model.clock.think_budget` of this
        turn's clocks (per-move limit, game clock, increment, ``moves_to_go``), less what
        has passed since the seat was asked (starting the worker thread)."""
        budget = think_budget(
            self.left, self.game_left, self.control.increment, moves_to_go=moves_to_go,
            share=share,
        )  # fmt: skip
        return None if budget is None else max(0.0, budget - self.since_asked())

    def hard_stop(self) -> float:
        """Seconds from now to the seat's hard stop (`hub.core.model.clock.hard_margin` before the
        deadline; ``inf`` without one)."""
        if not math.isfinite(self.left):
            return math.inf
        return max(0.0, self.left - hard_margin(self.left) - self.since_asked())


@attrs.define(eq=False)
class ClockedSeat(BaseSeat[S, M], Generic[S, M]):
    """A seat that budgets from the clocks: it keeps each seat's game clock as the last move
    left it and makes the turn's `TurnTime` (the one place it is computed, for a built-in AI
    and a UCI engine alike)."""

    seat: int = attrs.field(default=-1, init=False)
    clocks: tuple[float | None, ...] = attrs.field(default=(), init=False)
    """Each seat's game clock after the last move (None: no game clock)."""

    async def begin(self, start: Start[S]) -> None:
        self.seat = start.seat
        self.clocks = (start.control.base, start.control.base)

    async def observe(self, moved: Moved[S, M]) -> None:
        self.clocks = moved.clocks

    def turn_time(self, turn: Turn[S]) -> TurnTime:
        clock = turn.clock
        now = trio.current_time()
        game_left = None
        if clock.remaining is not None:
            started = clock.started_at if clock.started_at is not None else now
            game_left = max(0.0, clock.remaining - (now - started))
        other = self.clocks[1 - turn.seat] if len(self.clocks) == 2 else None
        return TurnTime(turn.deadline - now, clock.control, game_left, other, time.perf_counter())


@attrs.define(eq=False)
class ThreadSeat(ClockedSeat[S, M], Generic[S, M]):
    """The one local-player seat: a built-in AI whose ``think(state, time, stop)`` runs in
    a worker thread of ``limiter``.

    ``time`` is the turn's `TurnTime`: the AI budgets from it (`TurnTime.budget`).
    ``busy(state)``, if given, answers at once when ``limiter`` has no worker free
    (`think_in_thread`). ``late_grace`` lets the loop still record a move that comes after
    the deadline (Kalah shows it to the opponent).

    ``fallback(state)``, if given, is the hard stop behind the AI's own budget: at
    `TurnTime.hard_stop` (`hub.core.model.clock.hard_margin` before a finite deadline) the seat
    stops waiting for the thread (its stop flag is set, its late answer dropped) and answers
    with the move the search last `StopFlag.offer`ed, else ``fallback(state)`` (any legal
    move, at once): a search that overruns, or a thread that a busy machine does not run,
    never loses on time.
    """

    think: Callable[[S, TurnTime, StopFlag], M]
    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("AI", "ai"))
    limiter: trio.CapacityLimiter | None = None
    late_grace: float = 0.0
    threaded: bool = True
    """False: think inline (deterministic tests, or a search that is known to be instant)."""
    busy: Callable[[S], M] | None = None
    fallback: Callable[[S], M] | None = None
    hard_stops: int = 0
    """How many turns the hard stop answered (tests, benchmarks)."""

    async def choose(self, turn: Turn[S]) -> M:
        state, when = turn.state, self.turn_time(turn)
        busy, fallback, stop = self.busy, self.fallback, StopFlag()
        thinking = think_in_thread(
            lambda stop: self.think(state, when, stop),
            threaded=self.threaded,
            limiter=self.limiter,
            busy=None if busy is None else lambda: busy(state),
            stop=stop,
        )
        if fallback is None or not self.threaded or not math.isfinite(when.left):
            return await thinking
        if sys.getswitchinterval() > SWITCH_INTERVAL:
            sys.setswitchinterval(SWITCH_INTERVAL)
        with trio.move_on_after(when.hard_stop()):
            return await thinking
        stop.set()
        self.hard_stops += 1
        offered = stop.offered
        return offered if offered is not None else fallback(state)  # type: ignore[return-value]


@attrs.define(eq=False)
class PromptedSeat(ThreadSeat[S, M], Generic[S, M]):
    """A built-in AI that moves only when its host prompts it (`play`).

    While it waits for the prompt the loop rests, as for a person (``waits_for_input``): the
    chess console's computers move when the user types a bare ``move``. Once prompted it
    thinks like a `ThreadSeat`: in a worker thread, with a stop flag set on cancellation.
    """

    waits_for_input: bool = True
    match: MatchView | None = None
    asked: bool = False
    """True while the loop waits for this seat's move (and so for a prompt)."""
    _go: trio.Event = attrs.Factory(trio.Event)
    _moved: trio.Event = attrs.Factory(trio.Event)
    _made: bool = False

    async def begin(self, start: Start[S]) -> None:
        await super().begin(start)
        self.match = start.match
        start.match.on_finished(self._game_over)

    def _game_over(self) -> None:
        """`play` must not wait for a game that ended meanwhile (the event is the one of
        the prompt under way: each makes a new one)."""
        self._moved.set()

    async def choose(self, turn: Turn[S]) -> M:
        self.asked = True
        try:
            await self._go.wait()
        finally:
            self.asked = False
        self._go = trio.Event()
        return await super().choose(turn)

    async def observe(self, moved: Moved[S, M]) -> None:
        await super().observe(moved)
        if moved.seat == self.seat:
            self._made = True
            self._moved.set()

    async def play(self) -> bool:
        """Think now and wait until the move is made and the loop rests again, as
        `FedSeat.submit` does (if the move ended the game, `MatchView.wait_finished` waits
        for the end's event); False if the game ended without the move. Call it only while
        `asked`."""
        if self.match is None or self.match.finished:
            return False
        self._moved, self._made = trio.Event(), False
        self._go.set()
        await self._moved.wait()  # set by the move, or by the end of the game
        if not self._made:
            return False
        await self.match.settle()
        return True


# -- thinking in a worker process -----------------------------------------------------------

PROCESS_SWITCH = "HUB_AI_PROCESS"
"""The environment variable that turns `ProcessSeat`'s worker processes on (``1``) or off
(anything else) for a seat that does not say: the ``hub`` program sets it to ``1`` unless it
is set (hub/entry.py); a library or a test that plays in-process keeps threads."""
MAX_PROCESSES = 2 * (os.cpu_count() or 1)
"""Worker processes alive at once in this process (`ThinkingProcess`): a seat that would
start one more thinks in a thread (a server with many games must not fork a process each)."""
_live_processes = [0]
THINK_NICE = 5
"""How much nicer than its referee a worker process thinks (`os.nice`): when the CPUs are
short, the event loop that times the turn and answers at the hard stop is run before the
search it times (a search is never more urgent than its clock); alone on a CPU the search
runs at full speed all the same."""


class _ChildStop(StopFlag):
    """The stop flag of a search in the worker process: set when the parent says ``stop``
    for this turn (or goes away), polled on the pipe; `offer` sends the move to the parent."""

    def __init__(self, conn: Connection, turn: int) -> None:
        super().__init__()
        self._conn = conn
        self._turn = turn
        self.pending: tuple[Any, ...] | None = None
        """A message for the next turn read while polling (cannot happen in order; kept)."""

    def offer(self, move: object) -> None:
        self.offered = move
        with contextlib.suppress(OSError):
            self._conn.send(("offer", self._turn, move))

    def is_set(self) -> bool:
        if self._event.is_set():
            return True
        try:
            while self._conn.poll():
                message = self._conn.recv()
                if message[0] == "turn":
                    self.pending = message
                    self._event.set()
                elif message[0] == "stop" and message[1] >= self._turn:
                    self._event.set()
        except (EOFError, OSError):
            self._event.set()
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            remaining = None if end is None else end - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            self._conn.poll(remaining)  # until a message (or the end of the pipe) comes
        return True


def _child(conn: Connection, think: Callable[[Any, TurnTime, StopFlag], Any]) -> None:
    """The worker process's loop: each ``("turn", n, state, time)`` is answered with
    ``("move", n, move)`` (or ``("error", n, text)``); ``("stop", n)`` stops turn n; the end
    of the pipe ends the process."""
    pending: tuple[Any, ...] | None = None
    while True:
        if pending is None:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
        else:
            message, pending = pending, None
        if message[0] != "turn":
            continue  # a stop for a turn already answered
        _, number, state, when = message
        stop = _ChildStop(conn, number)
        try:
            reply: tuple[Any, ...] = ("move", number, think(state, when, stop))
        except Exception as exc:  # (the parent raises it in the seat)
            reply = ("error", number, f"{type(exc).__name__}: {exc}")
        pending = stop.pending
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _wait(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # (reaped already)
        os.waitpid(pid, 0)


def _reap(pid: int, conn: Connection) -> None:
    _live_processes[0] -= 1
    conn.close()
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


class ThinkingProcess:
    """A forked worker process that runs one seat's ``think`` (a copy of the seat's AI as
    the fork found it, kept between turns: its tables persist), one turn at a time, over a
    socket pair: the state and `TurnTime` go in pickled, offers and the move come back.

    Forked (not spawned): nothing is pickled but states and moves, and the child starts at
    once. The child closes every other inherited descriptor (a server's listening socket
    stays the server's), ignores SIGINT (the parent answers Ctrl-C and stops it) and ends
    when the pipe closes; `close` kills and reaps it."""

    def __init__(self, think: Callable[[Any, TurnTime, StopFlag], Any]) -> None:
        parent, child = Pipe(duplex=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: fork with threads
            pid = os.fork()
        if pid == 0:  # pragma: no cover  (the child; coverage does not follow it)
            code = 0
            try:
                parent.close()
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                with contextlib.suppress(ValueError, OSError):
                    signal.set_wakeup_fd(-1)
                with contextlib.suppress(OSError):
                    os.nice(THINK_NICE)
                keep = child.fileno()
                os.closerange(3, keep)
                os.closerange(keep + 1, 1 << 16)
                _child(child, think)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        child.close()
        self.pid = pid
        self.conn = parent
        self.turns = 0
        self.closed = False
        _live_processes[0] += 1
        # a process dropped without `close` (a host that never ended its game) is still
        # killed and reaped when this object goes, not left a zombie of a long-lived server
        self._reaper = weakref.finalize(self, _reap, pid, parent)

    def ask(self, state: Any, when: TurnTime) -> int:
        """Send the child a turn; its number. Raises what pickling ``state`` raises (nothing
        is sent then: a state that cannot be pickled is thought in a thread)."""
        self.turns += 1
        self.conn.send(("turn", self.turns, state, when))
        return self.turns

    async def answer(self, number: int, stop: StopFlag) -> Any:
        """The child's move for turn ``number``; offers go to ``stop`` as they come.
        Cancelled (the hard stop, the game's end), it tells the child to stop the turn."""
        try:
            while True:
                await trio.lowlevel.wait_readable(self.conn.fileno())
                while self.conn.poll():
                    kind, turn, payload = self.conn.recv()
                    if turn != number:
                        continue  # the late answer of an abandoned turn
                    if kind == "offer":
                        stop.offer(payload)
                    elif kind == "move":
                        return payload
                    else:
                        raise RuntimeError(f"the thinking process failed: {payload}")
        except BaseException:
            with contextlib.suppress(OSError, ValueError):
                self.conn.send(("stop", number))
            raise

    async def close(self) -> None:
        """Kill and reap the child (at once: it holds nothing to keep)."""
        if self.closed:
            return
        self.closed = True
        self._reaper.detach()
        _live_processes[0] -= 1
        self.conn.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_wait, self.pid)


@attrs.define(eq=False)
class ProcessSeat(ThreadSeat[S, M], LaunchedSeat[S, M], Generic[S, M]):
    """A `ThreadSeat` whose timed turns are thought in a `ThinkingProcess` forked when the
    game begins with a time limit (``forked``, or by default the environment's
    `PROCESS_SWITCH`, which the ``hub`` program turns on; at most `MAX_PROCESSES` at once;
    beyond, a thread), with the same budget, offers and hard stop (its ``think`` must not
    call back into trio: it runs in the child). A search in Python in a thread shares the GIL
    with the event loop: on a busy machine the thread holding it is not run for tens or
    hundreds of ms, and the loop, waiting for it, missed the hard stop (a 5 ms sleep beside
    a CPU-bound thread woke 78 ms late at p99, 490 ms at worst; beside none 6 and 32:
    docs/performance.md). Untimed turns (and ``threaded=False``) think as a `ThreadSeat`.
    Its host closes it (`aclose`, as every `LaunchedSeat`); the game's end stops it too."""

    forked: bool | None = None
    """Think timed turns in a worker process: True, False, or None: as the environment's
    `PROCESS_SWITCH` says."""
    worker: ThinkingProcess | None = None

    async def begin(self, start: Start[S]) -> None:
        await super().begin(start)
        forked = self.forked
        if forked is None:
            forked = os.environ.get(PROCESS_SWITCH) == "1"
        if (
            forked
            and self.worker is None
            and self.threaded
            and start.control.limited
            and _live_processes[0] < MAX_PROCESSES
        ):
            self.worker = ThinkingProcess(self.think)

    async def choose(self, turn: Turn[S]) -> M:
        worker = self.worker
        if worker is None or worker.closed or turn.deadline == math.inf:
            return await super().choose(turn)
        state, when, stop = turn.state, self.turn_time(turn), StopFlag()
        try:
            number = worker.ask(state, when)
        except (pickle.PicklingError, TypeError, AttributeError, OSError):
            await self.aclose()  # a state that cannot be pickled, a dead child: threads now
            return await super().choose(turn)
        try:
            if self.fallback is None:
                return await worker.answer(number, stop)  # type: ignore[no-any-return]
            with trio.move_on_after(when.hard_stop()):
                return await worker.answer(number, stop)  # type: ignore[no-any-return]
        except (EOFError, OSError):  # the child died (killed, out of memory): threads now
            await self.aclose()
            return await super().choose(turn)
        self.hard_stops += 1
        offered = stop.offered
        return offered if offered is not None else self.fallback(state)  # type: ignore[return-value]

    async def end(self, result: MatchResult[S, M]) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            await worker.close()
