"""Kalah's local seats: the AI, a script, a person. Each chooses a whole turn.

The AI is the core's one local-player seat (`hub.core.seats.ThreadSeat`, made by
`ai_seat`): `KalahAi` is all Kalah adds, its ``think`` (the search in a worker thread,
budgeting a share of what is left of the limit from the moment it was asked) and its
``busy`` answer (a one-turn lookahead at once when no worker is free). A script is the
core's `ScriptedSeat` (`scripted_seat`). A person (`HumanPlayer`) sees the board and a
countdown of the time left, and with a `TypeAhead` keyboard loses no move to lines typed
before their turn. Every one has `LATE_GRACE`. Our client asks a seat outside a match with
`hub.core.seats.ask`.
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import attrs
import trio

from hub.core.clock import TimeControl
from hub.core.identity import ai_identity, person_identity
from hub.core.local_seats import Keys, ScriptedSeat, StopFlag, ThreadSeat, TurnTime
from hub.core.match import BaseSeat, Seat, SeatFailure, Turn
from hub.core.output import Output, write_all
from hub.core.referee import IllegalMove, Termination
from hub.core.stdin import open_line_input
from hub.core.values import PlayerInfo
from hub.games.kalah.ai import (
    DEFAULT_LEVEL,
    LEVEL_DEPTH,
    Search,
    SearchResult,
    budget_seconds,
    check_level,
)
from hub.games.kalah.console import draw_board, read_typed
from hub.games.kalah.rules import (
    PIE,
    KalahState,
    Move,
    display_state,
    sow_one,
    start_turn,
)

LATE_GRACE = 5.0
"""Seconds a late local player still gets to produce the move sent after ``TIME``: at its
deadline the opponent is told ``TIME`` at once, and a move that still comes within the
grace is shown to the opponent before ``WINNER`` (the record keeps it as the fault's
move)."""


def limit_left_ms(control: TimeControl, left: float) -> int:
    """What is left of a per-move limit when the player is asked, in the protocol's ms (at
    least 1; 0: no limit). The clock started when the mover's ``OK`` was sent; a loaded
    server may reach this turn later, and an AI that searched for its share of the whole
    limit would then answer after the deadline (bench/load.py: 500 games at 100 ms)."""
    per_move = control.per_move
    if per_move is None:
        return 0
    # (a whole limit, asked at once, is the limit: no float noise may take a ms off it)
    return max(1, min(round(per_move * 1000), math.floor(left * 1000 + 1e-6)))


@attrs.define(eq=False)
class KalahAi:
    """What Kalah's AI needs of the core's one local-player seat (`ThreadSeat`): its
    ``think`` (the alpha-beta search at ``level``, budgeting `budget_seconds` of the time
    left, from the moment it was asked) and its ``busy`` answer (every worker busy, a loaded
    server: a one-turn lookahead right here costs well under a millisecond and is never
    late; waiting for a worker instead queued the searches and starved the event loop of
    the GIL, and games were lost on time: bench/load.py, docs/reliability.md). The search
    (its transposition table) is kept across turns, but never shared with a search that was
    abandoned (cancelled) and still runs."""

    level: int = attrs.field(default=DEFAULT_LEVEL, validator=lambda _s, _a, v: check_level(v))
    max_nodes: int | None = None
    """Stop each search after about this many nodes (tests and benchmarks)."""
    budget: float | None = None
    """Seconds per turn instead of the share of the time limit (benchmarks)."""
    table_size: int = 1 << 15
    last: SearchResult | None = None
    """The last search's result (tests, benchmarks)."""
    _search: Search | None = None

    def _take(self, state: KalahState) -> Search:
        search, self._search = self._search, None
        if search is None or search.h != state.holes or search.total != state.total:
            search = Search(state.holes, state.total, table_size=self.table_size)
        return search

    def __call__(self, state: KalahState, time: TurnTime, stop: StopFlag) -> Move:
        if self.budget is None:
            limit = budget_seconds(limit_left_ms(time.control, time.left))
        else:
            limit = self.budget
        search = self._take(state)
        result = search.run(
            state,
            budget=max(0.0, limit - time.since_asked()),
            max_depth=LEVEL_DEPTH[self.level],
            max_nodes=self.max_nodes,
            stop=stop.is_set,
        )
        if not stop.is_set():
            self._search = search
        self.last = result
        return result.move

    def busy(self, state: KalahState) -> Move:
        search = self._take(state)
        self.last = search.run(state, max_depth=1)
        self._search = search
        return self.last.move


def ai_seat(
    level: int = DEFAULT_LEVEL,
    *,
    name: str = "AI",
    spec: str = "",
    limiter: trio.CapacityLimiter | None = None,
    threaded: bool = True,
    max_nodes: int | None = None,
    budget: float | None = None,
) -> ThreadSeat[KalahState, Move]:
    """Kalah's AI as the core's one local-player seat (`ThreadSeat` over `KalahAi`), with
    `LATE_GRACE`; ``threaded=False`` searches inline (deterministic tests)."""
    ai = KalahAi(level, max_nodes, budget)
    player = PlayerInfo(name, "ai", spec, ai_identity("kalah", level))
    return ThreadSeat(
        ai,
        player,
        limiter=limiter,
        late_grace=LATE_GRACE,
        threaded=threaded,
        busy=ai.busy,
    )


def scripted_seat(
    moves: list[Move],
    then: Seat[KalahState, Move] | None = None,
    delays: list[float] | None = None,
    name: str = "AI",
) -> ScriptedSeat[KalahState, Move]:
    """The core's `ScriptedSeat` with Kalah's `LATE_GRACE` (``hub serve kalah --script``,
    tests)."""
    return ScriptedSeat(
        moves, then, delays or [], player=PlayerInfo(name, "ai"), late_grace=LATE_GRACE
    )


class PlayerQuit(Exception):
    """The person gave up (typed quit, or their input ended)."""


TYPED_AHEAD = "ignored input typed before your turn"

PERSON_MIN_MS = 5000
"""Below this limit per turn a person is warned before the first move: reading the board and
typing even one hole takes a few seconds (docs/decisions.md, "Kalah: words at the client")."""


def seconds_text(limit_ms: int) -> str:
    """``1 s``, ``1.5 s``, ``30 s``: a limit in ms as a person reads it."""
    return f"{limit_ms / 1000:g} s"


def time_warning(limit_ms: int, advice: str) -> str | None:
    """The warning for a person whose limit per turn (``limit_ms``; 0 = none) is shorter than
    `PERSON_MIN_MS`, ending with ``advice`` (how to get a longer one); None if it is not."""
    if not 0 < limit_ms < PERSON_MIN_MS:
        return None
    return (
        f"warning: {seconds_text(limit_ms)} a turn is too short for a person to type a move "
        f"(allow {seconds_text(PERSON_MIN_MS)} at least); {advice}"
    )


TICK = 0.1
"""Seconds between two redraws of a person's countdown on a terminal."""


@attrs.define(eq=False)
class TypeAhead:
    """A person's lines, read all the time (`run`, one task) so that the lines typed while it
    was not their turn can be told apart (`drop_typed_ahead`) instead of becoming moves.

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


@asynccontextmanager
async def dropping_type_ahead(source: Keys) -> AsyncIterator[TypeAhead]:
    """``source`` read by a `TypeAhead` task for the block."""
    keys = TypeAhead(source)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keys.run)
        yield keys
        nursery.cancel_scope.cancel()


@asynccontextmanager
async def open_keyboard(fd: int = 0) -> AsyncIterator[Keys]:
    """A person's lines from ``fd``: on a terminal through a `TypeAhead` (lines typed before
    a turn are dropped); from a pipe or file (a script) every line in order."""
    async with open_line_input(fd) as lines:
        if not os.isatty(fd):
            yield lines
            return
        async with dropping_type_ahead(lines) as keys:
            yield keys


def countdown_frame(text: str) -> str:
    """Terminal text that rewrites the line above the cursor with ``text`` and puts the
    cursor back where it was (on the input line, after what the person has typed so far)."""
    return f"\x1b7\x1b[A\r{text}\x1b[K\x1b8"


@attrs.define(eq=False)
class HumanPlayer(BaseSeat[KalahState, Move]):
    """A person at the terminal: sees the board, types holes one or several at a time.

    On a terminal (``terminal``; None: whether ``out`` is one) the prompt is a status line
    above an input line ``> ``, and with a time limit the status line counts down the time
    left every `TICK` seconds, rewritten in place (`countdown_frame`); elsewhere (a pipe, a
    file) the prompt is one plain line and the limit is said once per turn. With a
    `TypeAhead` keyboard, lines typed before the turn began are dropped (and that is said).
    """

    keyboard: Keys
    out: Output
    labels: tuple[str, str] = ("you", "opponent")
    """How the board names this player and its opponent."""
    name: str = "you"
    terminal: bool | None = None
    write: Callable[[str], None] | None = None
    """Writes terminal text as it is (no newline); default: straight to ``out``'s fd."""
    spec: str = ""
    player: PlayerInfo = attrs.field(init=False)
    late_grace: float = LATE_GRACE
    waits_for_input: bool = True

    def __attrs_post_init__(self) -> None:
        self.player = PlayerInfo(self.name, "person", self.spec, person_identity(self.name))

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

    async def choose(self, turn: Turn[KalahState]) -> Move:
        """The whole turn, with what is left of the limit (`limit_left_ms`); quitting (or
        the end of input) resigns."""
        limit_ms = limit_left_ms(turn.clock.control, turn.time_left())
        try:
            return await self.play_turn(turn.state, limit_ms)
        except PlayerQuit as exc:
            raise SeatFailure(Termination.RESIGNATION, str(exc)) from None

    async def play_turn(self, state: KalahState, limit_ms: int) -> Move:
        """The whole turn in ``state`` with ``limit_ms`` for it (0: no limit)."""
        seat = state.mover if state.mover is not None else 0
        deadline = trio.current_time() + limit_ms / 1000 if limit_ms else None
        partial = start_turn(state)
        if isinstance(self.keyboard, TypeAhead) and self.keyboard.drop_typed_ahead():
            self.out.line(TYPED_AHEAD)
        terminal = self._is_terminal()
        if limit_ms and not terminal:
            self.out.line(f"(you have {seconds_text(limit_ms)} for the whole turn)")
        show = True
        while not partial.done:
            if show:
                self.out.line("")
                names = self.labels if seat == 0 else (self.labels[1], self.labels[0])
                self.out.line("\n".join(draw_board(display_state(partial), seat, names)))
            options = "holes 1-" + str(state.holes)
            if state.pie_available and not partial.holes:
                options += ", P to take the pie (swap sides)"
            prompt = f"your move ({options}, q to quit)"
            if terminal:
                line = await self._read_on_terminal(prompt, deadline)
            else:
                self.out.line(f"{prompt}> ")
                self.out.flush()
                line = await self.keyboard.receive()
            if line is None:
                raise PlayerQuit("end of input")
            typed = read_typed(line, state.holes)
            show = False
            if typed.quit:
                raise PlayerQuit("quit")
            if typed.error:
                self.out.line(typed.error)
                continue
            if typed.pie:
                if state.pie_available and not partial.holes:
                    return PIE
                self.out.line("the pie is only allowed as the first reply of the game")
                continue
            attempt = partial
            try:
                for hole in typed.holes:
                    attempt = sow_one(attempt, hole)
            except IllegalMove as exc:
                self.out.line(f"{exc}; try again")
                continue
            partial = attempt
            show = True
            if not partial.done:
                self.out.line("the last seed fell in your store: move again")
        return Move(partial.holes)

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


def time_left(prompt: str, seconds: float) -> str:
    """The status line of a turn with ``seconds`` left: ``your move (...), 4.2 s left``."""
    return f"{prompt}, {max(0.0, seconds):.1f} s left"
