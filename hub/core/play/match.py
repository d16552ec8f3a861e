"""The match loop: the one place where a game is played, whatever the game and the seats.

`Match` drives a game (its declaration, `hub.core.play.game.Game`: pure rules, the moves' text,
the spectator's view, the forfeit rule and what it hides) and one `Seat` per player. Each
turn it starts the mover's clock, awaits the seat's move under the deadline, applies it
through the game's rules, stops the clock, publishes a `MoveMade` event and tells every
seat (the mover first). It ends when the rules report an outcome, when a seat is at fault
(an illegal or malformed move, a lost connection, no move in time) or when someone outside
stops it (a resignation that arrives at any time, a server closing, a console's ``undo``).
Every game ends with a `GameEnded` event carrying the same `GameRecord` shape, and a
`MatchResult`.

A `Match` may also play on a game that another one began (``history=``, a `History` taken
with `Match.history`): a console's ``undo`` stops its match and plays on from an earlier
point in a new one. The earlier moves open the new match's record and are published again
after its `GameStarted` (which shows the game's first state), so the record and every
subscriber see the whole game from its true start, and a move is never taken back.

The loop is the policy; a game's particular order of messages is expressed by its seats'
hooks, never by a second loop:

* ``begin``: the game starts (send the opening lines);
* ``choose``: this seat's move for a `Turn` (raise `SeatFailure` if it cannot give one);
* ``rejected``: the referee refused the seat's move; return True to be asked again with the
  clock still running (a person who mistyped), False to lose by it (a program);
* ``observe``: a move was made (the mover hears first, so Kalah's ``OK`` precedes the move
  reaching the opponent); may itself wait for an acknowledgement and raise `SeatFailure`,
  which puts *this* seat at fault; the next mover's clock starts only after every seat has
  observed, so a clock can start when an acknowledgement arrives;
* ``time_up``: some seat's deadline has passed (sent at once, before any late move), or a
  seat's acknowledgement did not come in time (``observe`` raised a ``TIMEOUT``);
* ``end``: the result, once;
* ``foresee`` (optional, `hub.core.play.vocabulary.Foresight`): another seat's move as soon
  as it is in, before the referee checks it, so that a seat expecting to move next (a UCI
  engine) can start thinking while the loop checks, records and tells the move.

A seat with ``late_grace > 0`` (a local AI) keeps thinking after its deadline: everyone is
told ``time_up`` at the deadline, and a move that still arrives within the grace is shown in
the record as the late move. A seat with ``waits_for_input`` (a client's commands, a
person) marks the points where the loop rests, which `Match.settle` waits for.

A declared game's chance and simultaneous moves (`hub.core.play.chance`) are played between
ordinary turns by `_between`, only for a game that has them: chance's outcomes drawn with
the match's own generator and told as each seat may see them (`Moved.text_for`), and
simultaneous turns whose movers are asked at once and told only once all are in.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import trio

from hub.core.model.clock import Clocks, TimeControl
from hub.core.model.referee import IllegalMove, Outcome, Termination
from hub.core.model.values import JSON
from hub.core.play.record import NO_VIEW, History, RecordMaker
from hub.core.play.vocabulary import (
    NO_LIMIT,
    Adjudicate,
    Fault,
    MatchResult,
    Moved,
    Seat,
    SeatFailure,
    Spectator,
    Start,
    Turn,
    new_game_id,
)

if TYPE_CHECKING:
    # hub.core.model.events is imported where an event or a record is made, not here: a game that
    # nobody watches or records builds none of its classes (clubhub's start-up).
    import random

    from hub.core.model.bus import EventBus
    from hub.core.model.events import GameStarted
    from hub.core.play.chance import Chance, Simultaneous
    from hub.core.play.game import Game
S = TypeVar("S")
M = TypeVar("M")

END_TIMEOUT = 5.0
"""Seconds each seat's ``end`` hook may take (telling a peer the result)."""


class _Stopped(Exception):
    pass


class Match(Generic[S, M]):
    """One game of ``game`` (a declaration with its settings applied) between ``seats``,
    from ``state``; run it with `run`.

    The game's `Game.forfeit` turns a fault into an outcome (default `forfeit_outcome`;
    Kalah keeps the stores as scores). ``events`` receives the game's events (nothing is
    published without one). ``settings`` are the game's options, for records;
    ``record_settings`` more of them that only the finished record shows (what reproduces
    the game and must stay secret while it runs: a deal, the seeds). ``history``
    (a `History`) plays on a game begun by another match, from ``state``, which must be
    ``history.state``: its moves come first in the record and are published again after
    `GameStarted`; the clocks start afresh (a console's games have none).

    ``adjudicate`` (an `Adjudicate`), when given, is asked after every move of a game that
    goes on, once its seats have observed it, with the move and the number of moves made so
    far: an outcome it returns ends the game there, as `agree_draw` does (nobody at fault;
    the outcome's termination and ``detail`` say how, ``adjudicated: ...``).
    """

    _chance: Chance[Any, Any] | None = None
    _joint: Simultaneous[Any] | None = None
    _special = False
    chance_rng: random.Random | None = None
    """The game's generator of chance (`hub.core.play.chance`), made when chance first acts,
    seeded from ``os.urandom``; a test may set a seeded one before `run`."""

    def __init__(
        self,
        game: Game[S, M],
        state: S,
        seats: Sequence[Seat[S, M]],
        *,
        events: EventBus | None = None,
        time_control: TimeControl | Sequence[TimeControl] = NO_LIMIT,
        settings: Mapping[str, JSON] | None = None,
        record_settings: Mapping[str, JSON] | None = None,
        game_id: str | None = None,
        spectators: Sequence[Spectator[S, M]] = (),
        history: History[S, M] | None = None,
        adjudicate: Adjudicate[S, M] | None = None,
    ) -> None:
        count = game.seats(state)
        if len(seats) != count:
            raise ValueError(f"{len(seats)} seats for a {count}-seat game")
        self.game = game
        # the game's methods the loop calls, bound once (the loop is hot)
        self._to_move = game.to_move
        self._move_text = game.move_text
        view = game.view
        self._spectator_view: Callable[[S], JSON] = lambda state: view(state, None)
        self.state = state
        self.initial = state
        self.seats = list(seats)
        self.events = events
        self.clocks = Clocks.of(time_control, count)
        self._timed = any(control.limited for control in self.clocks.controls)
        self._no_clocks: tuple[float | None, ...] = (None,) * count
        self.settings = dict(settings or {})
        self._record_settings = dict(record_settings or {})
        self.game_id = game_id or new_game_id()
        self.spectators = list(spectators)
        self.moves: list[tuple[int, M]] = []
        self._recorded: list[tuple[int, str, float, S, JSON]] = []
        """(seat, text, elapsed, state after, its view or `NO_VIEW`) per move; the record's
        views are made from these when the record is first used."""
        self._first_view: JSON = NO_VIEW
        self._started: GameStarted | None = None
        self._history = history
        self._adjudicate = adjudicate
        if history is not None:
            self.initial = history.initial
            self._first_view = history.first_view
            self.moves = list(history.moves)
            self._recorded = list(history.recorded)
        self._scope: trio.CancelScope | None = None
        self._watch: _Watch | None = None
        self._stop: Fault | None = None
        self._agreed: Outcome | None = None
        self._rest = trio.Event()
        self._done = trio.Event()
        self._finished_callbacks: list[Callable[[], None]] = []
        self.result: MatchResult[S, M] | None = None
        self.started_at = 0.0
        self.mover: int | None = None
        """The seat whose move the loop awaits (None between turns and after the end)."""

    # -- for hosts and seats ------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    def stop(
        self, seat: int | None, termination: Termination = Termination.ABORTED, detail: str = ""
    ) -> None:
        """End the game from outside: ``seat`` resigned or left (it loses), or with
        ``seat=None`` an abort. Takes effect at once if the loop is waiting; the result is
        sent to every seat as usual. Later calls, and calls after `agree_draw`, are
        ignored."""
        if self._stop is not None or self._agreed is not None or self.finished:
            return
        if seat is None:
            termination = Termination.ABORTED
        self._stop = Fault(seat, termination, detail)
        if self._scope is not None:
            self._scope.cancel()

    def agree_draw(self, outcome: Outcome) -> None:
        """End the game now with ``outcome``, a draw its players agreed (a person's offer in
        the browser, accepted): neither the rules nor a fault ended it, so nobody is at fault
        and the termination is the outcome's own. Takes effect like `stop`; a call after
        the game ended, or was stopped, is ignored."""
        if self._stop is not None or self._agreed is not None or self.finished:
            return
        self._agreed = outcome
        if self._scope is not None:
            self._scope.cancel()

    async def settle(self) -> None:
        """Wait until the loop rests: it awaits a seat that ``waits_for_input`` or is over.
        Returns at once, without a checkpoint, if it rests already: hosts call this around
        every move they hand in (a UQChess client's ``move`` three times), and each
        checkpoint is a pass through trio's scheduler."""
        rest = self._rest
        if not rest.is_set():
            await rest.wait()

    async def wait_finished(self) -> None:
        await self._done.wait()

    def on_finished(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` once the game has finished (at once if it has): however it
        ends, cancellation and a seat's error included. It runs in the loop's task and must
        not block. A seat whose host waits for either its move or the end registers here
        once, instead of a task per wait watching `wait_finished`."""
        if self.finished:
            callback()
        else:
            self._finished_callbacks.append(callback)

    def _set_finished(self) -> None:
        self._done.set()
        callbacks, self._finished_callbacks = self._finished_callbacks, []
        for callback in callbacks:
            callback()

    def history(self, plies: int | None = None) -> History[S, M]:
        """The game's first ``plies`` moves (all by default), this match's earlier history
        included: for a new `Match` that plays the game on from there."""
        plies = len(self.moves) if plies is None else plies
        if not 0 <= plies <= len(self.moves):
            raise ValueError(f"the game has {len(self.moves)} moves, not {plies}")
        started = self.started_at if self._history is None else self._history.started_at
        return History(
            self.initial,
            self._first_view,
            started or time.time(),
            self.moves[:plies],
            self._recorded[:plies],
        )

    def started_event(self) -> GameStarted:
        """The game's `GameStarted` event (published when the game starts if the bus has a
        subscriber), made on first use."""
        if self._started is None:
            from hub.core.model.events import GameStarted

            self._started = GameStarted(
                game_id=self.game_id,
                game=self.game.name,
                settings=self.settings,
                players=[seat.player for seat in self.seats],
                time_controls=[control.describe() for control in self.clocks.controls],
                state=self._initial_view(),
                to_move=self._first_to_move(),
                at=self.started_at,
            )
        return self._started

    # -- the loop -------------------------------------------------------------------------

    @trio.lowlevel.enable_ki_protection
    async def run(self) -> MatchResult[S, M]:
        """Play to the end; returns the result (and has published ``GameEnded``).

        A seat raising anything but `SeatFailure` (a bug, an engine that died) and
        cancellation end the game as ``ABORTED`` (published) and propagate.

        However it ends, the game ends finished (`wait_finished` returns, `on_finished`
        callbacks run): a host may wait for that under a shield (a UQChess client that
        leaves). A Ctrl-C lands in whatever task's code runs at that instant, so the loop's
        own bookkeeping here is protected from it (trio delivers it to the main task at its
        next checkpoint instead); the turns (`_play`, the seats' code) are not, so that a
        search that never checkpoints can still be interrupted, and an interrupt there ends
        the game as ``ABORTED``.
        """
        history = self._history
        self._special = self._take_facets()
        self.started_at = time.time() if history is None else history.started_at
        if self.events is not None and self.events.subscribers:
            self.events.publish(self.started_event())
            if history is not None and self.events.wants_moves:
                self._publish_history(self.events, len(history.recorded))
        for spectator in self.spectators:
            spectator.started(self.state)
        fault: Fault | None = None
        try:
            with trio.CancelScope() as self._scope:
                if self._stop is None and self._agreed is None:
                    fault = await self._play()
        except BaseException as exc:
            self._abort(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            raise
        finally:
            self._scope = None
        if self._stop is not None and fault is None:
            fault = self._stop
        result = self._finish(fault)
        try:
            with trio.CancelScope(shield=True):
                for seat in self.seats:
                    with trio.move_on_after(END_TIMEOUT):
                        with contextlib.suppress(
                            SeatFailure, trio.BrokenResourceError, trio.ClosedResourceError
                        ):
                            await seat.end(result)
        finally:  # a seat's error, or a Ctrl-C delivered at its checkpoint
            try:
                self._publish_end(result)
            finally:
                self._set_finished()
        return result

    @trio.lowlevel.disable_ki_protection
    async def _play(self) -> Fault | None:
        if not (self._timed and any(seat.late_grace > 0 for seat in self.seats)):
            return await self._turns()
        # One task for the whole game tells everyone when a graced seat's deadline passes
        # while it thinks on (instead of a task per move: `_Watch`).
        try:
            async with trio.open_nursery() as nursery:
                self._watch = _Watch(self)
                nursery.start_soon(self._watch.run)
                fault = await self._turns()
                nursery.cancel_scope.cancel()
                return fault
        except BaseExceptionGroup as group:  # the game's own error, not a group of one
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        finally:
            self._watch = None

    async def _turns(self) -> Fault | None:
        for index, seat in enumerate(self.seats):
            control = self.clocks[index].control
            try:
                await seat.begin(Start(index, self.state, control, self))
            except SeatFailure as exc:
                return Fault(index, exc.termination, exc.detail, error=exc)
        count = len(self.seats)
        # who observes a move, in order: the mover first (computed once, not per move)
        orders = [
            [(i, self.seats[i]) for i in (mover, *(i for i in range(count) if i != mover))]
            for mover in range(count)
        ]
        # who hears a move before the referee checks it (`Foresight`), per mover: usually nobody
        foresight = [
            [hook for i, seat in enumerate(self.seats) if i != mover and (hook := _foresee(seat))]
            for mover in range(count)
        ]
        # the hot path reads these once: one clock reading at each end of a move
        to_move, apply, clocks = self._to_move, self.game.apply, self.clocks.seats
        now = trio.lowlevel.current_clock().current_time
        inf = math.inf
        mover = to_move(self.state)
        special = self._special  # chance or simultaneous moves: `_between`
        adjudicate = self._adjudicate
        if special:
            between = await self._between(mover, orders)
            if isinstance(between, Fault):
                return between
            mover = between
        while mover is not None:
            seat = self.seats[mover]
            clock = clocks[mover]
            deadline = clock.start(now())
            turn = Turn(mover, self.state, deadline, clock, len(self.moves) + 1)
            rested = False
            while True:
                self.mover = mover
                if seat.waits_for_input:
                    self._rest.set()
                    rested = True
                if deadline == inf:  # the common case inline: no scope, no grace
                    try:
                        move = await seat.choose(turn)
                    except SeatFailure as exc:
                        return Fault(mover, exc.termination, exc.detail, error=exc)
                else:
                    if seat.late_grace > 0:
                        got = await self._ask_with_grace(mover, seat, turn)
                    else:
                        got = await self._ask(mover, seat, turn)
                    if isinstance(got, Fault):
                        return got
                    move = got[0]
                stopped = now()  # the move is in: the referee's checking is not the mover's
                for foresee in foresight[mover]:
                    await foresee(turn, move, stopped)
                try:
                    after = apply(self.state, move)
                except IllegalMove as exc:
                    if await seat.rejected(turn, move, exc):
                        continue
                    return Fault(mover, Termination.ILLEGAL_MOVE, str(exc), move, exc)
                break
            self.mover = None
            if rested:
                self._rest = trio.Event()
            moved = self._record(mover, move, after, clock.stop(stopped), stopped)
            observers, mover = orders[mover], moved.to_move
            for index, observer in observers:
                try:
                    await observer.observe(moved)
                except SeatFailure as exc:
                    if exc.termination is Termination.TIMEOUT:
                        await self._time_up(index)  # its acknowledgement's deadline passed
                    return Fault(index, exc.termination, exc.detail, error=exc)
            if adjudicate is not None and mover is not None:
                verdict = adjudicate(moved, len(self.moves))
                if verdict is not None:
                    self._agreed = verdict
                    return None
            if special:
                between = await self._between(mover, orders)
                if isinstance(between, Fault):
                    return between
                mover = between
        return None

    async def _ask(self, mover: int, seat: Seat[S, M], turn: Turn[S]) -> tuple[M] | Fault:
        """The move (in a 1-tuple) of a seat without a late grace, or the fault of not giving
        one by the (finite) deadline. (An unlimited turn is asked in `_turns` itself.)"""
        with trio.move_on_at(turn.deadline) as scope:
            turn.scope = scope  # `Turn.told` moves the deadline with the clock
            try:
                return (await seat.choose(turn),)
            except SeatFailure as exc:
                return Fault(mover, exc.termination, exc.detail, error=exc)
        await self._time_up(mover)
        return Fault(mover, Termination.TIMEOUT, "no move in time")

    async def _ask_with_grace(
        self, mover: int, seat: Seat[S, M], turn: Turn[S]
    ) -> tuple[M] | Fault:
        """The move of a seat that keeps thinking after its deadline (``late_grace``): it is
        asked in this task; at the deadline the game's `_Watch` tells everyone ``time_up``
        while it thinks on, and a move within the grace is kept as the late move."""
        watch = self._watch
        assert watch is not None
        deadline = turn.deadline
        watch.arm(mover, deadline)
        got: tuple[M] | SeatFailure | None = None
        with trio.move_on_at(deadline + seat.late_grace):
            try:
                got = (await seat.choose(turn),)
            except SeatFailure as exc:
                got = exc
        late = trio.current_time() >= deadline
        if late:
            await watch.announced()  # everyone hears time_up before any late move
        else:
            watch.disarm()
        if got is None:
            return Fault(mover, Termination.TIMEOUT, "no move in time")
        if isinstance(got, SeatFailure):
            return Fault(mover, got.termination, got.detail, error=got)
        if late:
            text = self._move_text(turn.state, got[0])
            return Fault(mover, Termination.TIMEOUT, f"{text} came too late", got[0])
        return got

    async def _time_up(self, mover: int) -> None:
        """Tell every seat, the others first, that ``mover``'s time is up."""
        count = len(self.seats)
        for offset in range(1, count + 1):
            index = (mover + offset) % count
            with contextlib.suppress(SeatFailure):  # ``mover`` has lost anyway
                await self.seats[index].time_up(mover)

    # -- chance and simultaneous moves (hub.core.play.chance)
    # ----------------------------------------

    def _take_facets(self) -> bool:
        """Read the game's chance and simultaneous facets, once per game; True if it has one
        (only then does the loop call `_between` after each move)."""
        self._chance, self._joint = self.game.chance, self.game.simultaneous
        return self._chance is not None or self._joint is not None

    def _first_to_move(self) -> int | None:
        """Who moves first: `GameStarted.to_move` (`hub.core.play.chance.CHANCE` for chance)."""
        to_move = self._to_move(self.initial)
        chance = self.game.chance
        if to_move is None and chance is not None:  # over before it began, or a deal first
            from hub.core.play.chance import CHANCE

            if chance.outcomes(self.initial) is not None:
                return CHANCE
        return to_move

    def _chance_next(self, state: S) -> int | None:
        """`hub.core.play.chance.CHANCE` if chance acts at ``state`` (nobody's turn), else None."""
        from hub.core.play.chance import CHANCE

        chance = self._chance
        return CHANCE if chance is not None and chance.outcomes(state) is not None else None

    async def _between(
        self, mover: int | None, orders: list[list[tuple[int, Seat[S, M]]]]
    ) -> int | Fault | None:
        """Play what comes before the next ordinary turn: chance's outcomes and simultaneous
        turns, in any number. Returns the seat of the next ordinary turn (None: the game is
        over) or the fault that ended a simultaneous turn."""
        from hub.core.play.chance import CHANCE

        while True:
            if mover is None or mover == CHANCE:
                chance = self._chance
                outcomes = chance.outcomes(self.state) if chance is not None else None
                if chance is None or outcomes is None:
                    return None
                fault = await self._chance_event(chance, outcomes)
            else:
                joint = self._joint
                movers = tuple(joint.movers(self.state)) if joint is not None else ()
                if joint is None or len(movers) < 2:
                    return mover
                fault = await self._joint_turn(joint, movers, orders)
            if fault is not None:
                return fault
            mover = self._to_move(self.state)

    async def _chance_event(
        self, chance: Chance[S, M], outcomes: Sequence[tuple[M, float]]
    ) -> Fault | None:
        """Draw one of ``outcomes`` with the game's generator, apply and record it (seat
        `hub.core.play.chance.CHANCE`) and tell every seat as its view allows."""
        from hub.core.play.chance import CHANCE, draw, new_rng, told_texts

        if self.chance_rng is None:
            self.chance_rng = new_rng()
        outcome = draw(self.chance_rng, outcomes)
        before = self.state
        after = self.game.apply(before, outcome)  # an IllegalMove here is the game's bug
        text = self._move_text(before, outcome)
        told = told_texts(chance, before, outcome, text, len(self.seats))
        now = trio.lowlevel.current_clock().current_time()
        moved = self._record(CHANCE, outcome, after, 0.0, now, told)
        return await self._tell(moved, list(enumerate(self.seats)))

    async def _tell(
        self, moved: Moved[S, M], observers: list[tuple[int, Seat[S, M]]]
    ) -> Fault | None:
        for index, observer in observers:
            try:
                await observer.observe(moved)
            except SeatFailure as exc:
                if exc.termination is Termination.TIMEOUT:
                    await self._time_up(index)
                return Fault(index, exc.termination, exc.detail, error=exc)
        return None

    async def _joint_turn(
        self,
        joint: Simultaneous[S],
        movers: tuple[int, ...],
        orders: list[list[tuple[int, Seat[S, M]]]],
    ) -> Fault | None:
        """A simultaneous turn: every mover asked at once, each on its own clock, with its
        own state (``joint.for_seat``); once all are in, the moves are applied in the order
        of ``movers`` and only then recorded and told."""
        now = trio.lowlevel.current_clock().current_time
        clocks = self.clocks.seats
        first = len(self.moves) + 1
        turns = []
        for number, mover in enumerate(movers):
            clock = clocks[mover]
            state = joint.for_seat(self.state, mover)
            turns.append(Turn(mover, state, clock.start(now()), clock, first + number))
        chosen: dict[int, tuple[M, float]] = {}
        faults: list[Fault] = []
        waiting = any(self.seats[mover].waits_for_input for mover in movers)
        self.mover = movers[0]
        if waiting:
            self._rest.set()
        async with trio.open_nursery() as nursery:
            for turn in turns:
                nursery.start_soon(self._joint_ask, turn, chosen, faults, nursery.cancel_scope)
        self.mover = None
        if waiting:
            self._rest = trio.Event()
        if faults:
            return faults[0]
        for mover in movers:
            move, elapsed = chosen[mover]
            try:
                after = self.game.apply(self.state, move)
            except IllegalMove as exc:  # the game's for_seat let through what apply refuses
                return Fault(mover, Termination.ILLEGAL_MOVE, str(exc), move, exc)
            moved = self._record(mover, move, after, elapsed, now())
            fault = await self._tell(moved, orders[mover])
            if fault is not None:
                return fault
        return None

    async def _joint_ask(
        self,
        turn: Turn[S],
        chosen: dict[int, tuple[M, float]],
        faults: list[Fault],
        scope: trio.CancelScope,
    ) -> None:
        """One mover's part of a simultaneous turn: its move, checked against its own state
        (asked again if its seat says so), or its fault, which ends the turn for all."""
        mover, seat = turn.seat, self.seats[turn.seat]
        while True:
            got: tuple[M] | SeatFailure | None = None
            with trio.move_on_at(turn.deadline + seat.late_grace):
                try:
                    got = (await seat.choose(turn),)
                except SeatFailure as exc:
                    got = exc
            if isinstance(got, SeatFailure):
                fault = Fault(mover, got.termination, got.detail, error=got)
            elif got is None or trio.current_time() >= turn.deadline:
                late = None if got is None else got[0]
                detail = "no move in time"
                if late is not None:
                    detail = f"{self._move_text(turn.state, late)} came too late"
                fault = Fault(mover, Termination.TIMEOUT, detail, late)
                faults.append(fault)
                scope.cancel()
                with trio.CancelScope(shield=True):
                    await self._time_up(mover)
                return
            else:
                try:
                    self.game.apply(turn.state, got[0])
                except IllegalMove as exc:
                    if await seat.rejected(turn, got[0], exc):
                        continue
                    fault = Fault(mover, Termination.ILLEGAL_MOVE, str(exc), got[0], exc)
                else:
                    chosen[mover] = (got[0], turn.clock.stop(trio.current_time()))
                    return
            faults.append(fault)
            scope.cancel()
            return

    # -- records ----------------------------------------------------------------------------

    def _record(
        self,
        mover: int,
        move: M,
        after: S,
        elapsed: float,
        now: float,
        told: tuple[str, ...] | None = None,
    ) -> Moved[S, M]:
        """Note the move; publish `MoveMade` (with the state view) only if someone takes
        moves (`EventBus.wants_moves`).
        ``told``: a chance outcome's texts as each seat and a spectator are told it (the
        event has the spectator's; the record keeps the whole text)."""
        before = self.state
        text = self._move_text(before, move)
        to_move = self._to_move(after)
        if to_move is None and self._chance is not None:
            to_move = self._chance_next(after)
        clocks = self.clocks.left(now) if self._timed else self._no_clocks
        self.moves.append((mover, move))
        self.state = after
        events, event, view = self.events, None, NO_VIEW
        if events is not None and events.wants_moves:  # not only starts and ends
            from hub.core.model.events import MoveMade

            view = self._spectator_view(after)
            ply = len(self.moves)
            shown = text if told is None else told[-1]
            event = MoveMade(
                self.game_id, ply, mover, shown, view, to_move, elapsed, clocks, time.time()
            )
        self._recorded.append((mover, text, elapsed, after, view))
        moved = Moved(mover, move, text, before, after, to_move, clocks, event, told)
        for spectator in self.spectators:
            spectator.moved(moved)
        if event is not None and events is not None:
            events.publish(event)
        return moved

    def _publish_history(self, events: EventBus, plies: int) -> None:
        """Publish a `History`'s moves again, as `MoveMade` events numbered from 1 (their
        clocks unknown: None), so that a subscriber sees the game from its first state."""
        from hub.core.model.events import MoveMade

        for index in range(plies):
            seat, text, elapsed, after, view = self._recorded[index]
            if view is NO_VIEW:
                view = self._spectator_view(after)
                self._recorded[index] = (seat, text, elapsed, after, view)
            to_move = self._to_move(after)
            events.publish(
                MoveMade(
                    self.game_id,
                    index + 1,
                    seat,
                    text,
                    view,
                    to_move,
                    elapsed,
                    self._no_clocks,
                    time.time(),
                )
            )

    def _finish(self, fault: Fault | None) -> MatchResult[S, M]:
        outcome = None if fault is not None else self._agreed or self.game.outcome(self.state)
        if outcome is None:
            if fault is None:  # pragma: no cover - a rules bug: over without an outcome
                fault = Fault(None, Termination.ABORTED, "the rules gave no outcome")
            outcome = self.game.forfeit(self.state, fault)
        info = None
        if fault is not None and fault.seat is not None:
            move = None
            if fault.move is not None:
                move = self._move_text(self.state, cast(M, fault.move))
            info = (fault.seat, fault.termination, fault.detail, move)
        # Everything the record needs, taken now; the maker holds no reference to the Match
        # (which holds the result): no reference cycle keeps a finished game's states alive.
        maker = RecordMaker(
            {
                "game_id": self.game_id,
                "game": self.game.name,
                "settings": {**self.settings, **self._record_settings},
                "players": [seat.player for seat in self.seats],
                "time_controls": [control.describe() for control in self.clocks.controls],
                "scores": outcome.scores,
                "winners": sorted(outcome.winners),
                "termination": outcome.termination,
                "started_at": self.started_at,
                "ended_at": time.time(),
                "thinking": self._thinking(),
                "detail": outcome.detail
                or (fault.detail if fault is not None and fault.seat is None else ""),
            },
            info,
            (self.initial, self._first_view),
            self._recorded,
            self._spectator_view,
        )
        hidden = self.game.hidden
        if hidden is not None:
            # the events showed the spectator's view of a live game (hands hidden); the
            # record, made now the game is over, shows everything (`Hidden.record_view`)
            maker.reveal(hidden.record_view)
        result = MatchResult(self.state, self.moves, outcome, fault, maker)
        self.result = result
        self._rest.set()
        return result

    def _thinking(self) -> list[float]:
        """Seconds each seat spent choosing its moves (a `History`'s moves included)."""
        used = [clock.used for clock in self.clocks.seats]
        if self._history is not None:
            earlier = self._history.thinking(len(used))
            used = [mine + before for mine, before in zip(used, earlier, strict=True)]
        return used

    def _initial_view(self) -> JSON:
        """The first state's view, computed once (a FEN or a table is not free)."""
        if self._first_view is NO_VIEW:
            self._first_view = self._spectator_view(self.initial)
        return self._first_view

    def _abort(self, detail: str) -> None:
        """Publish the end of a game stopped by cancellation or a seat's error."""
        if self.finished:
            return
        fault = Fault(None, Termination.ABORTED, detail)
        self._publish_end(self._finish(fault))
        self._set_finished()

    def _publish_end(self, result: MatchResult[S, M]) -> None:
        """Tell the spectators, and publish `GameEnded` if anyone listens (its record is
        the one thing that makes every move's state view)."""
        for spectator in self.spectators:
            spectator.ended(result)
        if self.events is not None and self.events.subscribers:
            from hub.core.model.events import GameEnded

            self.events.publish(GameEnded(self.game_id, result.record, time.time()))


def _foresee(seat: object) -> Callable[[Turn[Any], Any, float], Awaitable[None]] | None:
    """A seat's `Foresight.foresee` hook, if it has one."""
    hook = getattr(seat, "foresee", None)
    return hook if callable(hook) else None


class _Watch:
    """The deadline of a graced seat's turn, watched by one task for the whole game.

    The turn's deadline is the deadline of the task's cancel scope, so arming and disarming
    a turn costs no switch between tasks: the task wakes only when a deadline passes, and
    then tells every seat ``time_up`` (the others first) while the mover thinks on. The
    loop's task takes the announcement over if it finds the deadline passed first (a move
    that came just at the deadline), so it is made exactly once and always before a late
    move is shown."""

    def __init__(self, match: Match[Any, Any]) -> None:
        self._match = match
        self._mover = -1
        self._deadline = math.inf
        self._scope: trio.CancelScope | None = None
        self._started = False  # the announcement for the armed turn has begun
        self._done = trio.Event()

    def arm(self, mover: int, deadline: float) -> None:
        self._mover, self._deadline = mover, deadline
        self._started, self._done = False, trio.Event()
        if self._scope is not None:
            self._scope.deadline = deadline

    def disarm(self) -> None:
        self._deadline = math.inf
        if self._scope is not None:
            self._scope.deadline = math.inf

    async def announced(self) -> None:
        """Return once everyone has been told ``time_up`` for the armed turn (telling
        them now unless the watching task already is)."""
        if not self._started:
            self._started = True
            self.disarm()
            await self._match._time_up(self._mover)
            self._done.set()
        await self._done.wait()

    async def run(self) -> None:
        while True:
            with trio.CancelScope(deadline=self._deadline) as scope:
                self._scope = scope
                await trio.sleep_forever()
            self._scope = None
            if self._started or trio.current_time() < self._deadline:
                continue  # disarmed, re-armed for a later turn, or taken over
            self._started = True
            self._deadline = math.inf
            await self._match._time_up(self._mover)
            self._done.set()
