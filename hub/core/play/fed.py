"""Seats given their moves, behind the one `hub.core.play.vocabulary.Seat` interface.

* `ScriptedSeat`: given moves in order (after optional delays), then another seat (tests,
  ``hub serve kalah --script``). `ask` asks any seat for a move outside a match.
* `FedSeat`: moves that arrive from elsewhere (a UQChess client's ``move`` command, a
  person's typed command): the host `submit`s them and learns whether they were accepted
  (`Verdict`).
"""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs
import trio

from hub.core.model.clock import TimeControl
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.vocabulary import (
    BaseSeat,
    MatchResult,
    MatchView,
    Moved,
    Seat,
    SeatFailure,
    Start,
    Turn,
)

S = TypeVar("S")
M = TypeVar("M")
T = TypeVar("T")
S_contra = TypeVar("S_contra", contravariant=True)


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
    from hub.core.model.clock import SeatClock

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
