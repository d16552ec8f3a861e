"""One refereed Kalah game between two seats, each a remote client or a local player.

`run_game` owns the conversation after the handshake: it sends ``BEGIN``, then for every
turn times the mover, validates the move with the referee and sends the protocol lines in
the order of kalah.md. A remote seat is a `LineStream` (a socket, or a memory stream in the
tests); a local seat is a `Player` (the server's AI, a script, a person). Every remote seat
sees the game as if the server were its opponent:

* its own move: ``OK`` (the opponent's clock starts), or ``TIME``/``ILLEGAL`` then ``LOSER``;
* the opponent's move: the move line, then it answers ``OK`` and its own clock starts when
  that ``OK`` arrives; a move that ends the game is followed by the result at once;
* an opponent that is too slow: ``TIME`` at the deadline, the move if it still comes (a
  local player), then ``WINNER``; an illegal one: the move (if well-formed), ``ILLEGAL``,
  ``WINNER``; one that disconnects or quits: ``WINNER``.

Timing uses trio's clock, so tests run on a virtual one. Nothing here prints.
"""

from __future__ import annotations

import contextlib
import enum
import math
from collections.abc import Sequence
from typing import Protocol

import attrs
import trio

from hub.core.lines import LineStream, LineTooLong, PeerClosed, TransportFailed
from hub.core.referee import IllegalMove, Outcome, Termination
from hub.games.kalah.players import Player, PlayerQuit
from hub.games.kalah.protocol import (
    BEGIN,
    ILLEGAL,
    LOSER,
    OK,
    TIE,
    TIME,
    WINNER,
    BadLine,
    format_move,
    is_word,
    parse_move,
    safe_text,
)
from hub.games.kalah.rules import KalahState, Move, outcome, play

LATE_GRACE = 5.0
"""Seconds a late local player still gets to produce the move sent after ``TIME``."""


@attrs.define(eq=False)
class RemoteSeat:
    """A client over a line stream (sends should not raise: ``ignore_send_errors``)."""

    lines: LineStream
    name: str
    max_line: int


@attrs.define(eq=False)
class LocalSeat:
    player: Player

    @property
    def name(self) -> str:
        return self.player.name


Seat = RemoteSeat | LocalSeat


class Fault(enum.Enum):
    LATE = "too slow"
    MALFORMED = "not a well-formed move"
    ILLEGAL = "illegal move"
    GONE = "disconnected"
    QUIT = "quit"


@attrs.frozen
class GameRecord:
    """What happened: the moves by seat, the final state, the outcome and who was at fault."""

    moves: tuple[tuple[int, Move], ...]
    state: KalahState
    outcome: Outcome
    fault: Fault | None = None
    fault_seat: int | None = None
    detail: str = ""

    def result_word(self, seat: int) -> str:
        if len(self.outcome.winners) == 2:
            return TIE
        return WINNER if seat in self.outcome.winners else LOSER


class Observer(Protocol):
    """Told about each move and the end (a terminal drawing, a log)."""

    def moved(self, seat: int, move: Move, before: KalahState, after: KalahState) -> None: ...

    def ended(self, record: GameRecord) -> None: ...


async def _send(seat: Seat, *lines: str) -> None:
    if isinstance(seat, RemoteSeat) and lines:
        for line in lines:
            seat.lines.queue_line(line)
        with contextlib.suppress(TransportFailed):  # the next read reports the loss
            await seat.lines.flush()


async def _receive(seat: RemoteSeat, deadline: float) -> str | Fault:
    with trio.move_on_at(deadline):
        try:
            return await seat.lines.receive_line(seat.max_line)
        except LineTooLong:
            return Fault.MALFORMED
        except (PeerClosed, TransportFailed):
            return Fault.GONE
    return Fault.LATE


def _deadline(start: float, limit_ms: int) -> float:
    return start + limit_ms / 1000 if limit_ms > 0 else math.inf


async def run_game(
    state: KalahState,
    seats: Sequence[Seat],
    limits: Sequence[int],
    *,
    observer: Observer | None = None,
    late_grace: float = LATE_GRACE,
) -> GameRecord:
    """Play ``state`` to the end; ``seats[0]`` moves first; ``limits`` in ms per seat."""
    moves: list[tuple[int, Move]] = []
    for seat in seats:
        await _send(seat, BEGIN)
    turn_start = [trio.current_time()] * 2

    def finish(fault: Fault | None = None, at: int | None = None, detail: str = "") -> GameRecord:
        final = outcome(state)
        if final is None:
            assert at is not None
            termination = {
                Fault.LATE: Termination.TIMEOUT,
                Fault.MALFORMED: Termination.ILLEGAL_MOVE,
                Fault.ILLEGAL: Termination.ILLEGAL_MOVE,
                Fault.GONE: Termination.DISCONNECT,
                Fault.QUIT: Termination.RESIGNATION,
            }[fault or Fault.GONE]
            final = Outcome((state.store(0), state.store(1)), [1 - at], termination)
        record = GameRecord(tuple(moves), state, final, fault, at, detail)
        if observer is not None:
            observer.ended(record)
        return record

    async def forfeit(
        at: int, fault: Fault, move: Move | None = None, detail: str = ""
    ) -> GameRecord:
        """Tell both seats that seat ``at`` lost by ``fault``; the record of that ending."""
        loser, winner = seats[at], seats[1 - at]
        word = {Fault.LATE: TIME, Fault.MALFORMED: ILLEGAL, Fault.ILLEGAL: ILLEGAL}.get(fault)
        if word is not None:
            await _send(loser, word, LOSER)
        shown = [format_move(move)] if move is not None else []
        if fault == Fault.LATE:
            await _send(winner, TIME, *shown, WINNER)
        elif fault in (Fault.MALFORMED, Fault.ILLEGAL):
            await _send(winner, *shown, ILLEGAL, WINNER)
        else:
            await _send(winner, WINNER)
        return finish(fault, at, detail)

    while state.mover is not None:
        mover = state.mover
        other = 1 - mover
        seat = seats[mover]
        deadline = _deadline(turn_start[mover], limits[mover])
        if isinstance(seat, RemoteSeat):
            got = await _receive(seat, deadline)
            if isinstance(got, Fault):
                return await forfeit(mover, got)
            try:
                move = parse_move(got, state.holes)
            except BadLine as exc:
                return await forfeit(mover, Fault.MALFORMED, detail=f"{safe_text(got)!r}: {exc}")
        else:
            got_local = await _local_turn(
                seat.player, state, limits[mover], deadline, seats[other], late_grace
            )
            if got_local is None:
                await _send(seats[other], WINNER)  # TIME went at the deadline
                return finish(Fault.LATE, mover, "no move")
            if isinstance(got_local, PlayerQuit):
                return await forfeit(mover, Fault.QUIT, detail=str(got_local))
            move, late = got_local
            if late:
                await _send(seats[other], format_move(move), WINNER)
                return finish(Fault.LATE, mover, f"{move} came too late")
        try:
            after = play(state, move)
        except IllegalMove as exc:
            return await forfeit(mover, Fault.ILLEGAL, move, detail=f"{move}: {exc}")
        await _send(seat, OK)  # a local seat is sent nothing
        turn_start[other] = trio.current_time()
        moves.append((mover, move))
        if observer is not None:
            observer.moved(mover, move, state, after)
        state = after
        receiver = seats[other]
        if isinstance(receiver, RemoteSeat):
            await _send(receiver, format_move(move))
            if state.over:
                break
            got = await _receive(receiver, _deadline(trio.current_time(), limits[other]))
            if isinstance(got, str) and not is_word(got, OK):
                return await forfeit(
                    other, Fault.MALFORMED, detail=f"{safe_text(got)!r} instead of OK"
                )
            if isinstance(got, Fault):
                return await forfeit(other, got, detail="waiting for OK")
            turn_start[other] = trio.current_time()
    record = finish()
    for index, seat in enumerate(seats):
        await _send(seat, record.result_word(index))
    return record


async def _local_turn(
    player: Player,
    state: KalahState,
    limit_ms: int,
    deadline: float,
    opponent: Seat,
    late_grace: float,
) -> tuple[Move, bool] | PlayerQuit | None:
    """The local player's move and whether it was late, its `PlayerQuit`, or None (no move).

    At the deadline the opponent is sent ``TIME`` at once; the player then has
    ``late_grace`` seconds to produce the move that is still sent.
    """
    box: list[Move | PlayerQuit] = []
    done = trio.Event()

    async def work() -> None:
        try:
            box.append(await player.choose(state, limit_ms))
        except PlayerQuit as exc:
            box.append(exc)
        done.set()

    late = False
    async with trio.open_nursery() as nursery:
        nursery.start_soon(work)
        with trio.move_on_at(deadline):
            await done.wait()
        if not done.is_set():
            late = True
            await _send(opponent, TIME)
            with trio.move_on_after(late_grace):
                await done.wait()
        nursery.cancel_scope.cancel()
    if not box:
        return None
    result = box[0]
    if isinstance(result, PlayerQuit):
        return result
    return result, late
