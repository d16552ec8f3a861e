"""How Kalah's clients hear the core match loop: its `SeatCodec`, and the state view.

Pure functions over states, moves and lines, no I/O. `KalahCodec` is the server's side of
the kalah.md conversation with one client (a TCP peer or a program over pipes alike, in a
`hub.core.play.seats.LineSeat`); the spec's order of messages maps onto the loop's hooks:

* ``begin``: ``BEGIN`` (the handshake before it is `hub.games.kalah.seats.greet`);
* ``observe``: the mover hears first, so it gets its ``OK`` before the move reaches the
  opponent, which must answer ``OK`` (`expects_ack`) within its own limit; its clock starts
  when that ``OK`` arrives (the loop starts the next clock only after every seat observed);
  nobody acknowledges a move that ends the game;
* ``time_up``: ``TIME`` to both sides at the deadline (the others first), before a late
  local move; a missing ``OK`` is announced the same way;
* ``end``: the result from this side's point of view, after what the fault requires: the
  loser of an illegal or malformed move gets ``ILLEGAL``; the winner sees the offending
  (or late) move first if there is one.

`state_view` shows a state as the view of docs/architecture.md ("State views") (the
declaration's, `hub.games.kalah.game.KalahGame.view`); `state_from_view` rebuilds a state
from it for the game's own terminal printers. The rules, a move's text (the protocol's:
``4 3``, ``P``) and the forfeit rule (the stores are the scores) are the declaration's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import attrs

from hub.core.model.referee import Outcome, Termination
from hub.core.model.values import JSON
from hub.core.play.seats import BadMoveLine
from hub.core.play.vocabulary import Fault, MatchResult, Moved, Start, Turn
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
from hub.games.kalah.rules import KalahState, Move

GAME = "kalah"

FAULT_WORDS = {
    Termination.TIMEOUT: "too slow",
    Termination.MALFORMED: "not a well-formed move",
    Termination.ILLEGAL_MOVE: "illegal move",
    Termination.DISCONNECT: "disconnected",
    Termination.RESIGNATION: "quit",
    Termination.ABORTED: "aborted",
}
"""How the server's log and the terminal say why a game ended early."""

_FOULS = (Termination.ILLEGAL_MOVE, Termination.MALFORMED)


def result_word(winners: Collection[int], seat: int) -> str:
    """``WINNER``, ``LOSER`` or ``TIE`` for ``seat`` (both seats winning is a tie)."""
    if len(winners) == 2:
        return TIE
    return WINNER if seat in winners else LOSER


def end_lines(seat: int, outcome: Outcome, fault: Fault | None) -> list[str]:
    """What ``seat`` is told when the game ends (``TIME`` has already gone at the deadline)."""
    if fault is None:
        return [result_word(outcome.winners, seat)]
    if fault.seat is None:
        return []  # aborted: there is no result to tell
    foul = fault.termination in _FOULS
    if fault.seat == seat:
        if foul:
            return [ILLEGAL, LOSER]
        return [LOSER] if fault.termination is Termination.TIMEOUT else []
    shown = [format_move(fault.move)] if isinstance(fault.move, Move) else []
    return [*shown, *([ILLEGAL] if foul else []), WINNER]


@attrs.define
class KalahCodec:
    """`hub.core.play.seats.SeatCodec` for Kalah: the server's side of one client's conversation."""

    max_line: int

    def begin_lines(self, seat: int, start: Start[KalahState]) -> Sequence[str]:
        return [BEGIN]

    def turn_lines(self, seat: int, turn: Turn[KalahState]) -> Sequence[str]:
        return ()  # the client knows it is its turn: it acknowledged the move before

    def parse_move(self, seat: int, line: str, state: KalahState) -> Move:
        try:
            return parse_move(line, state.holes)
        except BadLine as exc:
            raise BadMoveLine(f"{safe_text(line)!r}: {exc}") from None

    def moved_lines(self, seat: int, moved: Moved[KalahState, Move]) -> Sequence[str]:
        return [OK] if moved.seat == seat else [moved.text]  # the notation is the line

    def expects_ack(self, seat: int, moved: Moved[KalahState, Move]) -> bool:
        return moved.seat != seat and not moved.over

    def check_ack(self, seat: int, line: str) -> bool:
        return is_word(line, OK)

    def time_up_lines(self, seat: int, late: int) -> Sequence[str]:
        return [TIME]

    def end_lines(self, seat: int, result: MatchResult[KalahState, Move]) -> Sequence[str]:
        return end_lines(seat, result.outcome, result.fault)


def state_view(state: KalahState) -> JSON:
    """The Kalah view of docs/architecture.md: the board by seat (holes 1..h, store, each)."""
    return {
        "holes": state.holes,
        "board": list(state.board),
        "to_move": state.mover,
        "swapped": state.swapped,
    }


def state_from_view(view: JSON) -> KalahState:
    """A state showing ``view`` (for drawing: the turn count and the pie setting are lost)."""
    return KalahState(
        holes=view["holes"], board=view["board"], mover=view["to_move"], swapped=view["swapped"]
    )
