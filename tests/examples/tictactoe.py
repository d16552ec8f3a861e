"""Tic-tac-toe from the documented pieces only (docs/architecture.md, "Adding a game").

The game is a declaration's required core (`hub.core.play.game.Game`: pure rules, the moves'
text, the view), the wire protocol a sans-IO `SeatCodec`, and the same `LineSeat` talks to
a TCP client or a child process; `Match` plays the game.
Protocol: the hub sends ``you X`` (or ``O``), ``go BOARD`` on each turn (BOARD is nine
characters of ``X``, ``O`` and ``.``), ``moved X 4`` after every move, and at the end
``result win|loss|draw``; a player answers ``go`` with a cell number 0-8.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from hub.core.io.lines import LineStream
from hub.core.model.referee import IllegalMove, Outcome
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.game import Game
from hub.core.play.match import Match
from hub.core.play.seats import BadMoveLine, LineSeat
from hub.core.play.vocabulary import MatchResult, Moved, Start, Turn

MARKS = "XO"
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@attrs.frozen
class Board:
    cells: str = "." * 9

    @property
    def mover(self) -> int:
        return self.cells.count("X") - self.cells.count("O")

    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.cells[a] != "." and self.cells[a] == self.cells[b] == self.cells[c]:
                return MARKS.index(self.cells[a])
        return None


class TicTacToe(Game[Board, int]):
    """The pure rules: a move is a cell number; the view is the board's nine characters."""

    name = "tictactoe"

    def start(self, rng: random.Random) -> Board:
        return Board()

    def to_move(self, state: Board) -> int | None:
        done = state.winner() is not None or "." not in state.cells
        return None if done else state.mover

    def legal_moves(self, state: Board) -> Sequence[int]:
        if self.to_move(state) is None:
            return []
        return [cell for cell in range(9) if state.cells[cell] == "."]

    def candidate_moves(self, state: Board) -> Sequence[int]:
        return range(-1, 10)

    def apply(self, state: Board, move: int) -> Board:
        if move not in self.legal_moves(state):
            raise IllegalMove(f"cell {move} is not free")
        cells = state.cells[:move] + MARKS[state.mover] + state.cells[move + 1 :]
        return Board(cells)

    def outcome(self, state: Board) -> Outcome | None:
        if self.to_move(state) is not None:
            return None
        winner = state.winner()
        if winner is None:
            return Outcome([1, 1], [0, 1])
        return Outcome([2 if seat == winner else 0 for seat in (0, 1)], [winner])

    def view(self, state: Board, seat: int | None = None) -> JSON:
        return state.cells


class Codec:
    """What the hub says to one seat, and how it reads a move: pure."""

    max_line = 16

    def begin_lines(self, seat: int, start: Start[Board]) -> Sequence[str]:
        return [f"you {MARKS[seat]}"]

    def turn_lines(self, seat: int, turn: Turn[Board]) -> Sequence[str]:
        return [f"go {turn.state.cells}"]

    def parse_move(self, seat: int, line: str, state: Board) -> int:
        if len(line) != 1 or not line.isdigit():
            raise BadMoveLine(f"{line[:20]!r} is not a cell number")
        return int(line)

    def moved_lines(self, seat: int, moved: Moved[Board, int]) -> Sequence[str]:
        return [f"moved {MARKS[moved.seat]} {moved.move}"]

    def expects_ack(self, seat: int, moved: Moved[Board, int]) -> bool:
        return False

    def check_ack(self, seat: int, line: str) -> bool:
        return True

    def time_up_lines(self, seat: int, late: int) -> Sequence[str]:
        return []

    def end_lines(self, seat: int, result: MatchResult[Board, int]) -> Sequence[str]:
        winners = result.outcome.winners
        word = "draw" if len(winners) != 1 else "win" if seat in winners else "loss"
        return [f"result {word}"]


async def play(
    streams: Sequence[LineStream], names: Sequence[str], **options: object
) -> MatchResult[Board, int]:
    """One game between two line peers (sockets or pipes alike)."""
    seats = [
        LineSeat(stream, Codec(), PlayerInfo(name, "remote"))
        for stream, name in zip(streams, names, strict=True)
    ]
    match = Match(TicTacToe(), Board(), seats, **options)  # type: ignore[arg-type]
    return await match.run()


PLAYER = """
import sys
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "go":
        print(rest.index("."), flush=True)
    elif word == "result":
        break
"""
"""A player program: always takes the first free cell."""
