"""Kalah's local seats: the AI, a script, a person. Each chooses a whole turn.

The AI is the core's one local-player seat (`hub.core.play.threads.ThreadSeat`, made by
`ai_seat`): `KalahAi` is all Kalah adds, its ``think`` (the search in a worker thread,
budgeting a share of what is left of the limit from the moment it was asked) and its
``busy`` answer (a one-turn lookahead at once when no worker is free). A script is the
core's `ScriptedSeat` (`scripted_seat`). A person is the core's `PersonSeat` with
`KalahPersonCodec` (`person_seat`): sees the board and a countdown of the time left, and
with a `TypeAhead` keyboard loses no move to lines typed before their turn. Every one has
`LATE_GRACE`. Our client asks a seat outside a match with `hub.core.play.fed.ask`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import attrs
import trio

from hub.core.io.output import Output
from hub.core.model.clock import TimeControl
from hub.core.model.identity import ai_identity, person_identity
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.fed import ScriptedSeat
from hub.core.play.person import AskAgain, Keys, PersonSeat, seconds_text
from hub.core.play.threads import StopFlag, ThreadSeat, TurnTime
from hub.core.play.vocabulary import Seat, SeatFailure, Turn
from hub.games.kalah.ai import (
    DEFAULT_LEVEL,
    LEVEL_DEPTH,
    LEVEL_NODES,
    KalahSearch,
    KalahSearchResult,
    budget_seconds,
    check_level,
    game_clock_budget,
    greedy,
    hard_margin,
)
from hub.games.kalah.console import draw_board, read_typed
from hub.games.kalah.rules import (
    PIE,
    KalahState,
    Move,
    Partial,
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
    last: KalahSearchResult | None = None
    """The last search's result (tests, benchmarks)."""
    _search: KalahSearch | None = None
    _running: KalahSearch | None = None
    """The search of the turn being thought (`fallback` reads its best move so far)."""

    def _take(self, state: KalahState) -> KalahSearch:
        search, self._search = self._search, None
        if search is None or search.h != state.holes or search.total != state.total:
            search = KalahSearch(state.holes, state.total, table_size=self.table_size)
        search.best = None
        self._running = search
        return search

    def hard_stop(self, time: TurnTime) -> float:
        """Seconds from now after which the seat answers without the search (`fallback`)."""
        if not math.isfinite(time.left):
            return math.inf
        return max(0.0, time.left - hard_margin(time.left) - time.since_asked())

    def fallback(self, state: KalahState) -> Move:
        """The running search's best move so far in ``state``, else the greedy turn (well
        under a millisecond): the answer of a seat whose search missed its hard stop."""
        running = self._running
        best = running.best if running is not None else None
        if best is not None and best[0] == state:
            return best[1]
        return greedy(state)

    def __call__(self, state: KalahState, time: TurnTime, stop: StopFlag) -> Move:
        if self.budget is None:
            limit = budget_seconds(limit_left_ms(time.control, time.left))
            control = time.control
            if control.base is not None and time.game_left is not None:
                # a game clock: its share for this turn (and the per-move limit's, if any)
                clock = game_clock_budget(time.game_left, control.increment)
                limit = clock if control.per_move is None else min(limit, clock)
        else:
            limit = self.budget
        return self.search(state, max(0.0, limit - time.since_asked()), stop)

    def search(self, state: KalahState, seconds: float, stop: StopFlag) -> Move:
        """The move found in about ``seconds`` (the search at ``level``, given up soon after
        ``stop`` is set)."""
        search = self._take(state)
        nodes = [n for n in (self.max_nodes, LEVEL_NODES.get(self.level)) if n is not None]
        result = search.run(
            state,
            budget=seconds,
            max_depth=LEVEL_DEPTH[self.level],
            max_nodes=min(nodes, default=None),
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


@attrs.define(eq=False)
class KalahAiSeat(ThreadSeat[KalahState, Move]):
    """The core's `ThreadSeat` over `KalahAi`, with a hard stop behind the search's own
    deadline: at `KalahAi.hard_stop` (`hub.games.kalah.ai.hard_margin` before the deadline)
    the event loop gives up on the thread (its stop flag is set) and answers with the best
    move found so far. The search keeps its deadline by itself, checking the clock every few
    hundred nodes; this is for a machine so busy that the thread does not get to run. An
    untimed turn (no deadline) has no hard stop and asks the thread without a cancel scope."""

    ai: KalahAi | None = None

    async def choose(self, turn: Turn[KalahState]) -> Move:
        ai = self.ai
        # untimed (no deadline): nothing to stop, so no cancel scope to pay for every move
        if ai is None or not self.threaded or turn.deadline == math.inf:
            return await super().choose(turn)
        with trio.move_on_after(ai.hard_stop(self.turn_time(turn))):
            return await super().choose(turn)
        return ai.fallback(turn.state)


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
    """Kalah's AI as the core's one local-player seat (`KalahAiSeat`: a `ThreadSeat` over
    `KalahAi` with a hard stop), with `LATE_GRACE`; ``threaded=False`` searches inline
    (deterministic tests)."""
    ai = KalahAi(level, max_nodes, budget)
    player = PlayerInfo(name, "ai", spec, ai_identity("kalah", level))
    return KalahAiSeat(
        ai,
        player,
        limiter=limiter,
        late_grace=LATE_GRACE,
        threaded=threaded,
        busy=ai.busy,
        ai=ai,
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


PERSON_MIN_MS = 5000
"""Below this limit per turn a person is warned before the first move: reading the board and
typing even one hole takes a few seconds (docs/decisions.md, "Kalah: words at the client")."""


def time_warning(limit_ms: int, advice: str) -> str | None:
    """The warning for a person whose limit per turn (``limit_ms``; 0 = none) is shorter than
    `PERSON_MIN_MS`, ending with ``advice`` (how to get a longer one); None if it is not."""
    if not 0 < limit_ms < PERSON_MIN_MS:
        return None
    return (
        f"warning: {seconds_text(limit_ms)} a turn is too short for a person to type a move "
        f"(allow {seconds_text(PERSON_MIN_MS)} at least); {advice}"
    )


@attrs.define(eq=False)
class KalahPersonCodec:
    """Kalah's `hub.core.play.person.PersonCodec`: a person sees the board (``labels`` name this
    player and its opponent) and types holes one or several at a time; a turn that ends in
    the person's store is asked again with the board, until it is whole. ``p`` takes the pie
    when it is allowed, ``q`` (or the end of input) gives up."""

    labels: tuple[str, str] = ("you", "opponent")
    partial: Partial | None = None
    """The turn so far (the holes sown, the board they left)."""

    def _board(self, state: KalahState, partial: Partial) -> list[str]:
        seat = state.mover if state.mover is not None else 0
        names = self.labels if seat == 0 else (self.labels[1], self.labels[0])
        return ["", "\n".join(draw_board(display_state(partial), seat, names))]

    def _so_far(self, state: KalahState) -> Partial:
        if self.partial is None:
            self.partial = start_turn(state)
        return self.partial

    def turn_lines(self, seat: int, state: KalahState) -> Sequence[str]:
        self.partial = start_turn(state)
        return self._board(state, self.partial)

    def prompt(self, seat: int, state: KalahState) -> str:
        options = "holes 1-" + str(state.holes)
        if state.pie_available and not self._so_far(state).holes:
            options += ", P to take the pie (swap sides)"
        return f"your move ({options}, q to quit)"

    def read_move(self, seat: int, text: str, state: KalahState) -> Move:
        partial = self._so_far(state)
        typed = read_typed(text, state.holes)
        if typed.quit:
            raise SeatFailure(Termination.RESIGNATION, "quit")
        if typed.error:
            raise AskAgain(typed.error)
        if typed.pie:
            if state.pie_available and not partial.holes:
                return PIE
            raise AskAgain("the pie is only allowed as the first reply of the game")
        attempt = partial
        try:
            for hole in typed.holes:
                attempt = sow_one(attempt, hole)
        except IllegalMove as exc:
            raise AskAgain(f"{exc}; try again") from None
        self.partial = attempt
        if not attempt.done:
            move_again = "the last seed fell in your store: move again"
            raise AskAgain(move_again, *self._board(state, attempt))
        self.partial = None
        return Move(attempt.holes)

    def refused_lines(
        self, seat: int, move: Move, error: IllegalMove, state: KalahState
    ) -> Sequence[str]:
        self.partial = None
        return [f"{error}; try again"]


def person_seat(
    keyboard: Keys,
    out: Output,
    labels: tuple[str, str] = ("you", "opponent"),
    *,
    name: str = "you",
    spec: str = "",
    terminal: bool | None = None,
    write: Callable[[str], None] | None = None,
) -> PersonSeat[KalahState, Move]:
    """A person at the terminal: the core's `PersonSeat` with `KalahPersonCodec`, counting
    down the time left (``countdown``), with `LATE_GRACE`; ``name`` is how records name it."""
    player = PlayerInfo(name, "person", spec, person_identity(name))
    return PersonSeat(
        keyboard,
        out,
        KalahPersonCodec(labels),
        player,
        countdown=True,
        terminal=terminal,
        write=write,
        late_grace=LATE_GRACE,
    )
