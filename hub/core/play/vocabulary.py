"""What the match loop and its seats say to each other (`hub.core.play.match.Match` drives them):
the seat's interface (`Seat`, with `BaseSeat`'s defaults, `LaunchedSeat` for a seat that starts
a program, `FailedSeat` for one that never got to the game), what a seat is told (`Start`,
`Turn`, `Moved`, `MatchResult`), why a game stopped early (`Fault`, `SeatFailure`) and the
default forfeit rule (`forfeit_outcome`), a `Spectator` of the typed states and the view of a
running match that seats and hosts may use (`MatchView`).

Kept apart from the loop so that the declaration (`hub.core.play.game`), the seats and the codecs
can name these without importing the loop.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import attrs
import trio

from hub.core.model.clock import SeatClock, TimeControl
from hub.core.model.referee import IllegalMove, Outcome, Termination
from hub.core.model.values import PlayerInfo

if TYPE_CHECKING:
    from hub.core.model.events import GameRecord, GameStarted, MoveMade

S = TypeVar("S")
M = TypeVar("M")
M_contra = TypeVar("M_contra", contravariant=True)

NO_LIMIT = TimeControl()
"""No time limit: the default time control of a `hub.core.play.match.Match`."""


class SeatFailure(Exception):
    """A seat could not produce (or acknowledge) a move; ``termination`` says how."""

    def __init__(self, termination: Termination, detail: str = "") -> None:
        if not termination.is_fault:
            raise ValueError(f"{termination} is not a fault")
        super().__init__(f"{termination.value}: {detail}" if detail else termination.value)
        self.termination = termination
        self.detail = detail


def new_game_id() -> str:
    """A fresh, globally unique game id (records from many processes and machines merge):
    128 random bits in hex, like a UUID4's (without importing uuid, for start-up time)."""
    return os.urandom(16).hex()


# The loop's own objects below (Start, Turn, Moved, MatchResult; hub.core.play.record's too) are
# plain classes with __slots__, not attrs classes: an attrs class costs about 0.3 ms to
# build at import (its methods are generated and compiled), and every program that plays a
# game imports these (clubhub starts a process per game). They are read-only by convention.


class Start(Generic[S]):
    """What a seat is told at ``begin``: its index, the first state, its time control, and
    the match (whose `GameStarted` event is ``event``, made when first read)."""

    __slots__ = ("control", "match", "seat", "state")

    def __init__(self, seat: int, state: S, control: TimeControl, match: MatchView) -> None:
        self.seat = seat
        self.state = state
        self.control = control
        self.match = match

    @property
    def event(self) -> GameStarted:
        return self.match.started_event()


class Turn(Generic[S]):
    """A request for a move: the seat, the state, when its time is up (``deadline``, in
    trio time; ``math.inf``: no limit), the seat's clock, and ``ply``, the number the move
    will have (1 for the game's first).

    ``scope`` is the cancel scope the match loop awaits the move under (None where the loop
    cannot move the deadline: a turn with a late grace, simultaneous turns): `told` moves
    it."""

    __slots__ = ("clock", "deadline", "ply", "scope", "seat", "state")

    def __init__(self, seat: int, state: S, deadline: float, clock: SeatClock, ply: int) -> None:
        self.seat = seat
        self.state = state
        self.deadline = deadline
        self.clock = clock
        self.ply = ply
        self.scope: trio.CancelScope | None = None

    def time_left(self) -> float:
        return self.deadline - trio.current_time()

    def told(self, now: float) -> None:
        """The player was told of its turn at ``now`` (a program's ``go`` written): its clock
        starts then instead of when the loop asked the seat, and the deadline moves with it,
        as fastchess and cutechess time an engine. The referee's own delay (building and
        writing the request, a busy machine's wait for the CPU) is then not the player's.
        Only later, never earlier; a no-op where the loop cannot move the deadline."""
        self._move_start(self.clock.restart, now)

    def began(self, at: float) -> None:
        """The player was told of its turn at ``at``, before the loop asked its seat (a
        search started by `Foresight.foresee` while the referee checked the last move): its
        clock runs from then, and the deadline moves back as far. Only earlier; a no-op
        where the loop cannot move the deadline."""
        self._move_start(self.clock.began, at)

    def _move_start(self, move: Callable[[float], float], at: float) -> None:
        """Start the clock's running turn at ``at`` with ``move`` (`SeatClock.restart` or
        `SeatClock.began`, which return the new deadline), and the loop's scope with it."""
        if self.scope is None and math.isfinite(self.deadline):
            return
        self.deadline = move(at)
        if self.scope is not None:
            self.scope.deadline = self.deadline


class Moved(Generic[S, M]):
    """A move that was made, as every seat and spectator is told of it: the seat, the move
    and its ``text`` in the game's notation, the states ``before`` and ``after``,
    ``to_move`` (the seat to move next; None: the game is over), ``clocks`` (each seat's
    time left after the move; None: no limit) and ``event``, the published `MoveMade`, or
    None when the game's event bus has no subscriber (its state view is built only for
    someone who reads it)."""

    __slots__ = ("after", "before", "clocks", "event", "move", "seat", "text", "to_move", "told")

    def __init__(
        self,
        seat: int,
        move: M,
        text: str,
        before: S,
        after: S,
        to_move: int | None,
        clocks: tuple[float | None, ...],
        event: MoveMade | None = None,
        told: tuple[str, ...] | None = None,
    ) -> None:
        self.seat = seat
        self.move = move
        self.text = text
        self.before = before
        self.after = after
        self.to_move = to_move
        self.clocks = clocks
        self.event = event
        self.told = told
        """A chance outcome that not everyone may see: what each seat, then a spectator,
        is told of it (`text_for`); None: everyone is told ``text``."""

    @property
    def over(self) -> bool:
        return self.to_move is None

    def text_for(self, seat: int | None) -> str:
        """The move's text as ``seat`` (None: a spectator) is told it: ``text``, unless it
        is a chance outcome hidden from that seat (`hub.core.play.chance.Chance.told`)."""
        told = self.told
        if told is None:
            return self.text
        return told[-1] if seat is None or not 0 <= seat < len(told) - 1 else told[seat]


@attrs.frozen
class Fault:
    """Why a game stopped early. ``seat`` is None for an abort nobody is at fault for."""

    seat: int | None
    termination: Termination
    detail: str = ""
    move: object = None
    """The illegal move, or a move that arrived after the deadline; None otherwise."""
    error: BaseException | None = None
    """The `IllegalMove` or `SeatFailure` behind it, if any."""


class MatchResult(Generic[S, M]):
    """The final state, the moves in order (seat, move), the outcome, the fault if any and
    the record. ``outcome`` is always set: on a fault the others win (`forfeit_outcome`).

    The record (every move's state view) is built on first use: a game nobody records or
    watches never pays for the views."""

    __slots__ = ("_build_record", "_record", "fault", "moves", "outcome", "state")

    def __init__(
        self,
        state: S,
        moves: list[tuple[int, M]],
        outcome: Outcome,
        fault: Fault | None,
        build_record: Callable[[], GameRecord],
    ) -> None:
        self.state = state
        self.moves = moves
        self.outcome = outcome
        self.fault = fault
        self._build_record = build_record
        self._record: GameRecord | None = None

    def __repr__(self) -> str:
        moves = len(self.moves)
        return f"MatchResult(outcome={self.outcome!r}, fault={self.fault!r}, moves={moves})"

    @property
    def record(self) -> GameRecord:
        if self._record is None:
            self._record = self._build_record()
        return self._record

    @property
    def termination(self) -> Termination:
        return self.outcome.termination


class Seat(Protocol[S, M]):
    """One participant, as the match loop sees it. Subclass `BaseSeat` for the defaults."""

    player: PlayerInfo
    late_grace: float
    waits_for_input: bool

    async def begin(self, start: Start[S]) -> None: ...

    async def choose(self, turn: Turn[S]) -> M: ...

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool: ...

    async def observe(self, moved: Moved[S, M]) -> None: ...

    async def time_up(self, seat: int) -> None: ...

    async def end(self, result: MatchResult[S, M]) -> None: ...


class Foresight(Protocol[S, M_contra]):
    """An optional seat hook (a method ``foresee``, found by the loop once per game): hear
    another seat's move as soon as it is in, before the referee has checked it.

    ``foresee(turn, move, stopped)``: the mover of ``turn`` chose ``move`` and its clock
    stops at ``stopped``; the loop has not yet applied the move (it may still be illegal),
    looked for the game's end, recorded it or told anyone. A seat that expects to move next
    may start thinking now (a UCI engine's ``go``: `hub.chess.seats.UciSeat`), so that the
    referee's work overlaps its thinking instead of delaying it; its `choose` for the state
    that follows then takes the search over and calls `Turn.began` with when it started
    (its clock runs from then). If the move is refused, the game ends, or the next state is
    not the one foreseen, the seat drops what it started (at ``choose`` or ``end``). Must
    not raise `SeatFailure`: a broken seat is found at its next ``choose``."""

    async def foresee(self, turn: Turn[S], move: M_contra, stopped: float) -> None: ...


class Spectator(Protocol[S, M]):
    """An in-process watcher of one game, told of it with its typed states (a game's own
    transcript printer): cheaper than an event-bus listener, whose events carry JSON views.
    Every method is synchronous and must not block; it is called where the matching event
    is published (start, each move before any seat observes it, the end after the seats).
    ``started`` gets the state play starts from: after a `History`'s moves, which are not
    told again (the host knows them)."""

    def started(self, state: S) -> None: ...

    def moved(self, moved: Moved[S, M]) -> None: ...

    def ended(self, result: MatchResult[S, M]) -> None: ...


class BaseSeat(Generic[S, M]):
    """Defaults for every hook: nothing to say, lose on an illegal move, no grace."""

    player: PlayerInfo = PlayerInfo("player")
    late_grace: float = 0.0
    waits_for_input: bool = False

    async def begin(self, start: Start[S]) -> None:
        return None

    async def choose(self, turn: Turn[S]) -> M:
        raise NotImplementedError

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool:
        return False

    async def observe(self, moved: Moved[S, M]) -> None:
        return None

    async def time_up(self, seat: int) -> None:
        return None

    async def end(self, result: MatchResult[S, M]) -> None:
        return None


class LaunchedSeat(BaseSeat[S, M], Generic[S, M]):
    """A seat that starts what it needs (a program, an engine) before the game's clocks
    start and stops it after: its host calls `launch` (every such seat of a game together)
    and, however the game ends, `aclose`. A failure to start is kept in `failure`; the
    seat's ``begin`` should raise it, so the game ends with that seat at fault."""

    failure: SeatFailure | None = None

    async def launch(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


class FailedSeat(BaseSeat[S, M], Generic[S, M]):
    """A seat whose player never got as far as the game (a program that could not be run or
    did not answer its handshake): ``begin`` raises its `SeatFailure`, so even that game
    ends through the loop, with a record saying who and why."""

    def __init__(self, player: PlayerInfo, termination: Termination, detail: str = "") -> None:
        self.player = player
        self.termination = termination
        self.detail = detail

    async def begin(self, start: Start[S]) -> None:
        raise SeatFailure(self.termination, self.detail)


class MatchView(Protocol):
    """What seats and hosts may use of a running `Match`."""

    @property
    def game_id(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    def started_event(self) -> GameStarted: ...

    def stop(
        self, seat: int | None, termination: Termination = Termination.ABORTED, detail: str = ""
    ) -> None: ...

    def agree_draw(self, outcome: Outcome) -> None: ...

    async def settle(self) -> None: ...

    async def wait_finished(self) -> None: ...

    def on_finished(self, callback: Callable[[], None]) -> None: ...


Adjudicate = Callable[[Moved[S, M], int], Outcome | None]
"""An adjudicator (`Match`'s ``adjudicate``): given a move of a game that goes on and the
number of moves made so far, the outcome that ends the game now, or None to play on."""


def forfeit_outcome(seats: int, fault: Fault) -> Outcome:
    """The default result of a fault: every other seat wins (nobody wins an abort)."""
    winners = [] if fault.seat is None else [s for s in range(seats) if s != fault.seat]
    return Outcome([0] * seats, winners, fault.termination)
