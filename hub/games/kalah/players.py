"""Things that choose a whole turn for a seat: the AI (in a worker thread), a script, a person.

A `Player` is awaited for one turn with that turn's limit; it returns a `Move` (legal or
not: the referee judges) or raises `PlayerQuit`. In a refereed game a player sits in a
`hub.games.kalah.seats.PlayerSeat` of the core match loop; our client asks it directly.
The AI runs its search in a worker thread (`hub.core.seats.run_in_thread`: the event loop
keeps serving every other game, and a cancelled search is told to stop by its flag) through
a shared capacity limiter, and budgets its time from the moment it was asked, so waiting for
a thread counts too.
"""

from __future__ import annotations

import time
from typing import Protocol

import attrs
import trio

from hub.core.output import Output
from hub.core.referee import IllegalMove
from hub.core.seats import StopFlag, run_in_thread
from hub.core.stdin import LineInput
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


class PlayerQuit(Exception):
    """The player gave up (a person typed quit, or its input ended)."""


class Player(Protocol):
    name: str

    async def choose(self, state: KalahState, limit_ms: int) -> Move:
        """This player's whole turn in ``state`` with ``limit_ms`` for it (0 = no limit)."""
        ...


@attrs.define(eq=False)
class AiPlayer:
    """The alpha-beta AI; ``threaded=False`` searches inline (deterministic tests)."""

    level: int = attrs.field(default=DEFAULT_LEVEL, validator=lambda _s, _a, v: check_level(v))
    limiter: trio.CapacityLimiter | None = None
    threaded: bool = True
    max_nodes: int | None = None
    """Stop each search after about this many nodes (tests and benchmarks)."""
    budget: float | None = None
    """Seconds per turn instead of the share of the time limit (benchmarks)."""
    table_size: int = 1 << 15
    name: str = "AI"
    last: SearchResult | None = None
    _search: Search | None = None

    async def choose(self, state: KalahState, limit_ms: int) -> Move:
        asked = time.perf_counter()
        budget = self.budget if self.budget is not None else budget_seconds(limit_ms, self.level)
        search = self._search
        if search is None or search.h != state.holes or search.total != state.total:
            search = self._search = Search(state.holes, state.total, table_size=self.table_size)
        max_depth = LEVEL_DEPTH[self.level]

        def work(stop: StopFlag) -> SearchResult:
            remaining = max(0.0, budget - (time.perf_counter() - asked))
            return search.run(
                state,
                budget=remaining,
                max_depth=max_depth,
                max_nodes=self.max_nodes,
                stop=stop.is_set,
            )

        if not self.threaded:
            result = work(StopFlag())
        else:
            limiter = self.limiter or trio.to_thread.current_default_thread_limiter()
            thread = False
            with trio.move_on_after(budget):
                await limiter.acquire()
                thread = True
            if not thread:
                # Every worker is busy past our budget (an overloaded server): a one-turn
                # lookahead right here costs well under a millisecond and is never late.
                result = search.run(state, max_depth=1)
            else:
                try:
                    # The thread holds our token of the shared limiter, taken above.
                    result = await run_in_thread(work, limiter=trio.CapacityLimiter(1))
                except trio.Cancelled:
                    self._search = None  # the abandoned thread returns at its next check
                    raise
                finally:
                    limiter.release()
        self.last = result
        return result.move


@attrs.define(eq=False)
class ScriptedPlayer:
    """Plays the given moves in order (after optional delays), then asks ``then``."""

    moves: list[Move]
    then: Player | None = None
    delays: list[float] = attrs.Factory(list)
    """Seconds to wait before each scripted move (trio time: virtual in tests)."""
    name: str = "AI"

    async def choose(self, state: KalahState, limit_ms: int) -> Move:
        if self.delays:
            await trio.sleep(self.delays.pop(0))
        if self.moves:
            return self.moves.pop(0)
        if self.then is None:
            raise PlayerQuit("the script is over")
        return await self.then.choose(state, limit_ms)


@attrs.define(eq=False)
class HumanPlayer:
    """A person at the terminal: sees the board, types holes one or several at a time."""

    keyboard: LineInput
    out: Output
    labels: tuple[str, str] = ("you", "opponent")
    """How the board names this player and its opponent."""
    name: str = "you"

    async def choose(self, state: KalahState, limit_ms: int) -> Move:
        seat = state.mover if state.mover is not None else 0
        partial = start_turn(state)
        if limit_ms:
            self.out.line(f"(you have {limit_ms / 1000:g} s for the whole turn)")
        show = True
        while not partial.done:
            if show:
                self.out.line("")
                names = self.labels if seat == 0 else (self.labels[1], self.labels[0])
                self.out.line("\n".join(draw_board(display_state(partial), seat, names)))
            options = "holes 1-" + str(state.holes)
            if state.pie_available and not partial.holes:
                options += ", P to take the pie (swap sides)"
            self.out.line(f"your move ({options}, q to quit)> ")
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
