"""Seats of every kind behind the one `hub.core.play.vocabulary.Seat` interface.

* `LineSeat`: a peer that speaks a line protocol over a `LineStream`: a child process over
  pipes or a TCP client alike. What to say and how to read a move is a game's sans-IO
  `SeatCodec`; this class only does the I/O and maps transport trouble to faults.

The seats whose player lives in this process are in their own modules: `hub.core.play.threads`
(`ThreadSeat`, `PromptedSeat`: an AI in a worker thread; `ClockedSeat`/`TurnTime`: a turn's
time from the clocks), `hub.core.play.fed` (`ScriptedSeat`, `FedSeat`: moves given or handed in
by a host) and `hub.core.play.person` (`PersonSeat`: a person at the terminal).

A UCI engine seat lives in the chess library (`hub.chess`); a person at the terminal is a
`PersonSeat`, a `FedSeat` fed by the program's command reader, or a small `BaseSeat` of the
game's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

import trio

from hub.core.io.lines import LineError, LineStream, LineTooLong, TransportFailed
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.vocabulary import BaseSeat, MatchResult, Moved, SeatFailure, Start, Turn

__all__ = [
    "BadMoveLine",
    "LineSeat",
    "SeatCodec",
]

S = TypeVar("S")
M = TypeVar("M")


class BadMoveLine(ValueError):
    """A `SeatCodec` could not read a move from a line (the seat loses: malformed)."""


class SeatCodec(Protocol[S, M]):
    """A game's side of a line conversation with one seat: pure functions over lines.

    ``seat`` is the index of the seat spoken to. Every method returns the lines to send
    (possibly none). `expects_ack` and `check_ack` express a protocol in which a seat must
    acknowledge a move before its own clock starts (Kalah's ``OK``).
    """

    max_line: int

    def begin_lines(self, seat: int, start: Start[S]) -> Sequence[str]: ...

    def turn_lines(self, seat: int, turn: Turn[S]) -> Sequence[str]: ...

    def parse_move(self, seat: int, line: str, state: S) -> M:
        """The move on ``line``; raises `BadMoveLine` if it is not one."""
        ...

    def moved_lines(self, seat: int, moved: Moved[S, M]) -> Sequence[str]: ...

    def expects_ack(self, seat: int, moved: Moved[S, M]) -> bool: ...

    def check_ack(self, seat: int, line: str) -> bool: ...

    def time_up_lines(self, seat: int, late: int) -> Sequence[str]: ...

    def end_lines(self, seat: int, result: MatchResult[S, M]) -> Sequence[str]: ...


class LineSeat(BaseSeat[S, M], Generic[S, M]):
    """A seat over a line stream (pipes or a socket), speaking ``codec``.

    Sends never raise (a peer that is gone is found out by the next read, which is what
    decides whose fault it is). EOF or a broken transport is ``DISCONNECT``; an over-long
    line or one the codec cannot read is ``MALFORMED``; an acknowledgement that is not one
    is ``MALFORMED`` and none in time is ``TIMEOUT``. (A plain class, not attrs: see
    hub/core/play/match.py.)
    """

    def __init__(
        self, lines: LineStream, codec: SeatCodec[S, M], player: PlayerInfo | None = None
    ) -> None:
        self.lines = lines
        self.codec = codec
        self.player = player if player is not None else PlayerInfo("program")
        self.seat = -1
        self.control_per_move: float | None = None

    async def _send(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        self.lines.queue_lines(lines)
        try:  # noqa: SIM105 (contextlib.suppress costs a context manager per line sent)
            await self.lines.flush()
        except (TransportFailed, trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the next read reports the loss

    async def _read(self, what: str) -> str:
        try:
            return await self.lines.receive_line(self.codec.max_line)
        except LineTooLong as exc:
            raise SeatFailure(Termination.MALFORMED, f"{what}: {exc}") from exc
        except LineError as exc:
            raise SeatFailure(Termination.DISCONNECT, f"{what}: {exc}") from exc

    async def begin(self, start: Start[S]) -> None:
        self.seat = start.seat
        self.control_per_move = start.control.per_move
        await self._send(self.codec.begin_lines(self.seat, start))

    async def choose(self, turn: Turn[S]) -> M:
        # `_send` and `_read` inlined, as in `observe`: this runs for every move
        lines = self.codec.turn_lines(self.seat, turn)
        if lines:
            self.lines.queue_lines(lines)
        try:  # noqa: SIM105 (see _send); also what `observe` left queued for this turn
            await self.lines.flush()
        except (TransportFailed, trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the read below reports the loss
        try:
            line = await self.lines.receive_line(self.codec.max_line)
        except LineTooLong as exc:
            raise SeatFailure(Termination.MALFORMED, f"waiting for a move: {exc}") from exc
        except LineError as exc:
            raise SeatFailure(Termination.DISCONNECT, f"waiting for a move: {exc}") from exc
        try:
            return self.codec.parse_move(self.seat, line, turn.state)
        except BadMoveLine as exc:
            raise SeatFailure(Termination.MALFORMED, str(exc)) from exc

    async def observe(self, moved: Moved[S, M]) -> None:
        # `_send` inlined: this runs for every seat and move, and each frame in the chain of
        # awaits is paid again at every suspension below it
        lines = self.codec.moved_lines(self.seat, moved)
        ack = self.codec.expects_ack(self.seat, moved)
        if lines:
            self.lines.queue_lines(lines)
            # The seat to move next is asked at once (`choose`, or `end`/`time_up`, each of
            # which flushes): its move is written with its turn, one write instead of two.
            if ack or moved.to_move != self.seat:
                try:  # noqa: SIM105 (see _send)
                    await self.lines.flush()
                except (TransportFailed, trio.BrokenResourceError, trio.ClosedResourceError):
                    pass  # the next read reports the loss
        if not ack:
            return
        limit = self.control_per_move
        with trio.move_on_after(limit if limit is not None else float("inf")):
            line = await self._read("waiting for an acknowledgement")
            if not self.codec.check_ack(self.seat, line):
                raise SeatFailure(
                    Termination.MALFORMED, f"{line[:80]!r} instead of an acknowledgement"
                )
            return
        raise SeatFailure(Termination.TIMEOUT, "no acknowledgement in time")

    async def time_up(self, seat: int) -> None:
        await self._send(self.codec.time_up_lines(self.seat, seat))

    async def end(self, result: MatchResult[S, M]) -> None:
        await self._send(self.codec.end_lines(self.seat, result))
