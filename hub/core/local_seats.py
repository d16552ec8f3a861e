"""Seats whose player lives in this process, behind the one `hub.core.match.Seat` interface.

* `ThreadSeat`: the one local-player seat: a built-in AI whose synchronous
  ``think(state, time, stop)`` runs in a worker thread with a stop flag (`think_in_thread`,
  `run_in_thread`, `StopFlag`), so the event loop keeps serving and Ctrl-C (cancellation)
  returns at once. ``time`` is the turn's `TurnTime` (time left, the control, both game
  clocks), computed from the seat's clock in one place (`ClockedSeat`), so an AI budgets
  from it as it likes (Kalah's a share of its limit, chess's level 4 as UCI's ``go``).
* `ScriptedSeat`: given moves in order (after optional delays), then another seat (tests,
  ``hub serve kalah --script``). `ask` asks any seat for a move outside a match.
* `FedSeat`: moves that arrive from elsewhere (a UQChess client's ``move`` command, a
  person's typed command): the host `submit`s them and learns whether they were accepted.
* `PromptedSeat`: a built-in AI that thinks (in a worker thread, as `ThreadSeat`) only when
  its host says so with `PromptedSeat.play` (the chess console's bare ``move``).
* `PersonSeat`: a person at the terminal who is the one reader of the keyboard: shown the
  game and asked for a move in words by a game's pure `PersonCodec`, told why a move was
  refused and asked again (clubs' human seat in ``hub play clubs``).

Apart from `hub.core.seats` (a peer over a line stream) so that a program whose seats are all
peers, such as ``clubhub``, does not build these classes at start-up; `hub.core.seats` still
offers every name.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Generic, Protocol, TypeVar

import attrs
import trio

from hub.core.clock import MOVES_TO_GO, THINK_SHARE, TimeControl, hard_margin, think_budget
from hub.core.match import (
    BaseSeat,
    MatchResult,
    MatchView,
    Moved,
    Seat,
    SeatFailure,
    Start,
    Turn,
)
from hub.core.output import Output, write_all
from hub.core.referee import IllegalMove, Termination
from hub.core.values import PlayerInfo

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
        """Seconds to think from now (None: no limit): `hub.core.clock.think_budget` of this
        turn's clocks (per-move limit, game clock, increment, ``moves_to_go``), less what
        has passed since the seat was asked (starting the worker thread)."""
        budget = think_budget(
            self.left, self.game_left, self.control.increment, moves_to_go=moves_to_go,
            share=share,
        )  # fmt: skip
        return None if budget is None else max(0.0, budget - self.since_asked())

    def hard_stop(self) -> float:
        """Seconds from now to the seat's hard stop (`hub.core.clock.hard_margin` before the
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
    `TurnTime.hard_stop` (`hub.core.clock.hard_margin` before a finite deadline) the seat
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
class ScriptedSeat(BaseSeat[S, M], Generic[S, M]):
    """Plays ``moves`` in order (each after its delay in ``delays``, in trio time: virtual
    in tests), then is ``then`` (every hook is passed on to it); with no ``then`` it
    resigns when the script is over. Tests, and ``hub serve kalah --script``."""

    moves: list[M]
    then: Seat[S, M] | None = None
    delays: list[float] = attrs.Factory(list)
    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("AI", "ai"))
    late_grace: float = 0.0

    async def begin(self, start: Start[S]) -> None:
        if self.then is not None:
            await self.then.begin(start)

    async def choose(self, turn: Turn[S]) -> M:
        if self.delays:
            await trio.sleep(self.delays.pop(0))
        if self.moves:
            return self.moves.pop(0)
        if self.then is None:
            raise SeatFailure(Termination.RESIGNATION, "the script is over")
        return await self.then.choose(turn)

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool:
        return False if self.then is None else await self.then.rejected(turn, move, error)

    async def observe(self, moved: Moved[S, M]) -> None:
        if self.then is not None:
            await self.then.observe(moved)

    async def time_up(self, seat: int) -> None:
        if self.then is not None:
            await self.then.time_up(seat)

    async def end(self, result: MatchResult[S, M]) -> None:
        if self.then is not None:
            await self.then.end(result)


async def ask(seat: Seat[S, M], state: S, control: TimeControl, *, index: int = 0) -> M:
    """``seat``'s move in ``state`` outside a match, its turn's clock starting now under
    ``control``: for a host that referees a conversation itself (Kalah's client, asking its
    AI, script or person)."""
    from hub.core.clock import SeatClock

    clock = SeatClock(control)
    return await seat.choose(Turn(index, state, clock.start(trio.current_time()), clock, 1))


@attrs.frozen
class Verdict:
    """What became of a submitted move: accepted, or rejected with the referee's reason."""

    accepted: bool
    error: IllegalMove | None = None
    over: bool = False
    """The game had already ended (or ended before the move could be taken)."""


@attrs.define(eq=False)
class FedSeat(BaseSeat[S, M], Generic[S, M]):
    """A seat whose moves are handed in from outside with `submit`.

    ``retry_illegal``: an illegal move is refused (`submit` returns the error) and the
    seat is asked again with its clock running; otherwise it loses the game.
    ``resign`` is `MatchView.stop` for this seat.
    """

    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("person", "person"))
    retry_illegal: bool = True
    waits_for_input: bool = True
    seat: int = -1
    match: MatchView | None = None
    _slot: trio.MemorySendChannel[M] | None = None
    _inbox: trio.MemoryReceiveChannel[M] | None = None
    _answer: trio.Event = attrs.Factory(trio.Event)
    _verdict: Verdict | None = None
    asked: bool = False
    """True while the loop waits for this seat's move."""

    def __attrs_post_init__(self) -> None:
        self._slot, self._inbox = trio.open_memory_channel(1)

    async def begin(self, start: Start[S]) -> None:
        self.seat = start.seat
        self.match = start.match
        start.match.on_finished(self._game_over)

    def _game_over(self) -> None:
        """A host waiting in `submit` must not wait for a game that ended meanwhile (the
        event is the one of the submit under way: each makes a new one)."""
        self._answer.set()

    async def choose(self, turn: Turn[S]) -> M:
        assert self._inbox is not None
        self.asked = True
        try:
            return await self._inbox.receive()
        finally:
            self.asked = False

    async def submit(self, move: M) -> Verdict:
        """Hand in a move and wait until the loop has judged it and come to rest again
        (after any computer reply). Call it only while `asked`; otherwise the move waits."""
        assert self._slot is not None
        if self.match is None or self.match.finished:
            return Verdict(False, over=True)
        self._answer = trio.Event()
        self._verdict = None
        try:
            self._slot.send_nowait(move)
        except trio.WouldBlock:
            return Verdict(False)  # a move is already waiting to be taken
        done = self.match
        await self._answer.wait()  # set by the verdict, or by the end of the game
        verdict = self._verdict or Verdict(False, over=True)
        if verdict.accepted:
            await done.settle()
        return verdict

    def resign(self, termination: Termination = Termination.RESIGNATION, detail: str = "") -> None:
        if self.match is not None:
            self.match.stop(self.seat, termination, detail)

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool:
        self._verdict = Verdict(False, error)
        self._answer.set()
        return self.retry_illegal

    async def observe(self, moved: Moved[S, M]) -> None:
        if moved.seat == self.seat:
            self._verdict = Verdict(True, over=moved.over)
            self._answer.set()


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


class AskAgain(Exception):
    """What a person typed is not a move: say ``lines`` and ask again (a typo, ``help``)."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class Keys(Protocol):
    """Where a person's lines come from: a `hub.core.stdin.LineInput`, Kalah's `TypeAhead`,
    or any reader."""

    async def receive(self) -> str | None:
        """The next line typed, or None at the end of input."""
        ...


class PersonCodec(Protocol[S_contra, M]):
    """A game's side of a conversation with a person at the terminal: pure, in words.

    ``seat`` is the person's seat. What everyone sees (the moves, the scores) is better
    printed by an `EventBus.listen` callback; the codec says what only this seat sees.
    """

    def turn_lines(self, seat: int, state: S_contra) -> Sequence[str]:
        """What to show when the person's turn comes (their hand, the position ...)."""
        ...

    def prompt(self, seat: int, state: S_contra) -> str:
        """The question, printed without a newline (the typed answer follows on the line;
        empty: none, the turn's lines end with the question)."""
        ...

    def read_move(self, seat: int, text: str, state: S_contra) -> M:
        """The move typed as ``text``; raises `AskAgain` for anything else, or `SeatFailure`
        (``RESIGNATION``) when the person asks to leave the game."""
        ...

    def refused_lines(
        self, seat: int, move: M, error: IllegalMove, state: S_contra
    ) -> Sequence[str]:
        """Why the referee refused ``move``, in words (the person is then asked again)."""
        ...


TYPED_AHEAD = "ignored input typed before your turn"
"""Said when lines typed before a person's turn were dropped (`TypeAhead`)."""
TICK = 0.1
"""Seconds between two redraws of a person's countdown on a terminal."""


def seconds_text(milliseconds: int) -> str:
    """``1 s``, ``1.5 s``, ``30 s``: a time in ms as a person reads it."""
    return f"{milliseconds / 1000:g} s"


def countdown_frame(text: str) -> str:
    """Terminal text that rewrites the line above the cursor with ``text`` and puts the
    cursor back where it was (on the input line, after what the person has typed so far)."""
    return f"\x1b7\x1b[A\r{text}\x1b[K\x1b8"


def time_left(prompt: str, seconds: float) -> str:
    """The status line of a turn with ``seconds`` left: ``your move (...), 4.2 s left``."""
    return f"{prompt}, {max(0.0, seconds):.1f} s left"


@attrs.define(eq=False)
class TypeAhead:
    """A person's lines, read all the time (`run`, one task) so that the lines typed while it
    was not their turn can be told apart (`drop_typed_ahead`) instead of becoming moves: a
    `PersonSeat` drops them at the start of each turn and says so (`TYPED_AHEAD`).

    At most ``capacity`` lines wait; more typed ahead are dropped at once (and counted). The
    end of input is never dropped: `receive` returns None from then on.
    """

    source: Keys
    capacity: int = 16
    _send: trio.MemorySendChannel[str] = attrs.field(init=False)
    _receive: trio.MemoryReceiveChannel[str] = attrs.field(init=False)
    _overflow: int = 0

    def __attrs_post_init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[str](self.capacity)

    async def run(self) -> None:
        """Read ``source`` until its end of input (or until cancelled)."""
        with self._send:
            while (line := await self.source.receive()) is not None:
                try:
                    self._send.send_nowait(line)
                except trio.WouldBlock:
                    self._overflow += 1

    def drop_typed_ahead(self) -> int:
        """Drop every line that has arrived and not been taken; how many there were."""
        dropped, self._overflow = self._overflow, 0
        while True:
            try:
                self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return dropped
            dropped += 1

    async def receive(self) -> str | None:
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            return None


@contextlib.asynccontextmanager
async def dropping_type_ahead(source: Keys) -> AsyncIterator[TypeAhead]:
    """``source`` read by a `TypeAhead` task for the block."""
    keys = TypeAhead(source)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keys.run)
        yield keys
        nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def open_keyboard(fd: int = 0) -> AsyncIterator[Keys]:
    """A person's lines from ``fd``: on a terminal through a `TypeAhead` (lines typed before
    a turn are dropped); from a pipe or file (a script) every line in order."""
    from hub.core.stdin import open_line_input

    async with open_line_input(fd) as lines:
        if not os.isatty(fd):
            yield lines
            return
        async with dropping_type_ahead(lines) as keys:
            yield keys


@attrs.define(eq=False)
class PersonSeat(BaseSeat[S, M], Generic[S, M]):
    """A person at the terminal, typing moves on ``keyboard`` (its one reader) and reading
    ``out`` (shared with the program's other output, so the order on screen is the order of
    events). A refused move is explained and asked again with the clock running; end of
    input is the person leaving (``RESIGNATION``), as is whatever the codec treats so.

    With a `TypeAhead` keyboard, lines typed before the turn began are dropped (and that is
    said). With ``countdown`` (any timed person: Kalah's) the codec's prompt is a status
    line: on a terminal (``terminal``; None: whether ``out`` is one) above an input line
    ``> ``, and with a time limit the status line counts down the time left every `TICK`
    seconds, rewritten in place (`countdown_frame`); elsewhere (a pipe, a file) the prompt is
    one line ending ``> `` and the limit is said once per turn."""

    keyboard: Keys
    out: Output
    codec: PersonCodec[S, M]
    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("person", "person"))
    waits_for_input: bool = True
    seat: int = -1
    countdown: bool = False
    terminal: bool | None = None
    write: Callable[[str], None] | None = None
    """Writes terminal text as it is (no newline); default: straight to ``out``'s fd."""
    late_grace: float = 0.0
    _refused: bool = False

    async def begin(self, start: Start[S]) -> None:
        self.seat = start.seat

    def _show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out.line(line)
        self.out.flush()

    def _is_terminal(self) -> bool:
        if self.terminal is None:
            self.terminal = self.out.fd >= 0 and os.isatty(self.out.fd)
        return self.terminal

    def _write(self, text: str) -> None:
        self.out.flush()
        if self.write is not None:
            self.write(text)
        elif not self.out.broken:
            self.out.broken = not write_all(self.out.fd, text.encode("utf-8", "replace"))

    def turn_lines(self, turn: Turn[S]) -> Sequence[str]:
        """What to show when the turn comes: the codec's (a subclass may add the clock)."""
        return self.codec.turn_lines(self.seat, turn.state)

    def _opening(self, limit_ms: int) -> list[str]:
        """What is said before the turn's lines: dropped type-ahead, the limit (off a
        terminal, with ``countdown``)."""
        lines = []
        if isinstance(self.keyboard, TypeAhead) and self.keyboard.drop_typed_ahead():
            lines.append(TYPED_AHEAD)
        if self.countdown and limit_ms and not self._is_terminal():
            lines.append(f"(you have {seconds_text(limit_ms)} for the whole turn)")
        return lines

    async def choose(self, turn: Turn[S]) -> M:
        state = turn.state
        limit_ms = 0
        if turn.deadline != math.inf:
            limit_ms = max(1, math.floor(turn.time_left() * 1000 + 1e-6))
        deadline = trio.current_time() + limit_ms / 1000 if limit_ms else None
        lines = [] if self._refused else [*self._opening(limit_ms), *self.turn_lines(turn)]
        self._refused = False
        while True:
            self._show(lines)
            text = await self._ask(self.codec.prompt(self.seat, state), deadline)
            if text is None:
                raise SeatFailure(Termination.RESIGNATION, "end of input")
            try:
                return self.codec.read_move(self.seat, text, state)
            except AskAgain as exc:
                lines = list(exc.lines)

    async def _ask(self, prompt: str, deadline: float | None) -> str | None:
        """Ask with ``prompt`` and read the person's line."""
        if not self.countdown:
            if prompt and not self.out.broken:
                self.out.broken = not write_all(self.out.fd, prompt.encode("utf-8", "replace"))
            return await self.keyboard.receive()
        if not self._is_terminal():
            self.out.line(f"{prompt}> ")
            self.out.flush()
            return await self.keyboard.receive()
        return await self._read_on_terminal(prompt, deadline)

    async def _read_on_terminal(self, prompt: str, deadline: float | None) -> str | None:
        """The status line, then ``> `` and the person's line, the time left counting down
        above it until the line comes; if cancelled (the game ended meanwhile), the input
        line is ended so that what follows starts on a line of its own."""
        if deadline is None:
            self.out.line(prompt)
        else:
            self.out.line(time_left(prompt, deadline - trio.current_time()))
        self._write("> ")
        try:
            if deadline is None:
                return await self.keyboard.receive()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._count_down, prompt, deadline)
                line = await self.keyboard.receive()
                nursery.cancel_scope.cancel()
            return line
        except BaseException:
            self._write("\n")
            raise

    async def _count_down(self, prompt: str, deadline: float) -> None:
        tick = trio.current_time()
        while True:
            tick += TICK
            if tick >= deadline - TICK / 100:  # the last tenth: wake at the deadline itself
                await trio.sleep_until(deadline)
                self._write(countdown_frame(f"{prompt}: time is up"))
                return
            await trio.sleep_until(tick)
            self._write(countdown_frame(time_left(prompt, deadline - trio.current_time())))

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool:
        self._show(self.codec.refused_lines(self.seat, move, error, turn.state))
        self._refused = True
        return True
