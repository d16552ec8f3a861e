"""What the console prints: the spec's board (`board_display`) and score (`format_points`),
and `Terminal`, what a person at a
terminal sees besides the spec's output (Unicode pieces and colour, "... is thinking..." on
standard error, ``=`` saying who moves first)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping

import attrs
import chess

from hub.chess.board_art import PLAIN, BoardStyle, detect_style, styled_board
from hub.chess.rules import ChessState
from hub.core.io.output import write_all

COLOURS = ("White", "Black")


def board_display(board: chess.BaseBoard) -> list[str]:
    """The board as the spec shows it: rank digit, a space, 8 squares; blank; file letters."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            if piece is not None:
                cells.append(piece.symbol())
            else:
                cells.append("_" if (file + rank) % 2 == 0 else " ")
        lines.append(f"{rank + 1} {''.join(cells)}")
    return [*lines, "", "  abcdefgh"]


def format_points(half_points: int) -> str:
    """2 -> ``1``, 3 -> ``1.5``, 1 -> ``0.5``: whole numbers without a decimal point."""
    whole, half = divmod(half_points, 2)
    return f"{whole}.5" if half else str(whole)


def score_lines(half_points: tuple[int, int]) -> list[str]:
    """The final score as the spec prints it."""
    white, black = half_points
    return ["Final Score:", f"White: {format_points(white)}", f"Black: {format_points(black)}"]


class StatusLine:
    """A transient line on a terminal (the console's standard error): shown while the
    computer thinks, then erased (carriage return and erase-line, or spaces where the
    terminal knows no escape sequences), so that nothing of it stays on the screen."""

    def __init__(self, write: Callable[[str], object], *, ansi: bool = True) -> None:
        self._write = write
        self._ansi = ansi
        self._width = 0

    @classmethod
    def on_fd(cls, fd: int, *, ansi: bool) -> StatusLine:
        return cls(lambda text: write_all(fd, text.encode("utf-8", "replace")), ansi=ansi)

    def show(self, text: str) -> None:
        self.clear()
        self._write(text)
        self._width = len(text)

    def clear(self) -> None:
        if self._width:
            self._write("\r\x1b[K" if self._ansi else "\r" + " " * self._width + "\r")
            self._width = 0


@attrs.frozen
class Terminal:
    """What the console adds for a person watching at a terminal; the default (nothing)
    is for output that is not a terminal, so that transcripts stay the spec's byte for
    byte. ``--classic`` uses the default too."""

    interactive: bool = False
    """Standard output is a terminal: ``= white|black`` in setup mode says who moves first
    (the spec's setup prints nothing there)."""
    style: BoardStyle = PLAIN
    """Boards with Unicode pieces and colour (`hub.chess.board_art.detect_style`)."""
    status: StatusLine | None = None
    """Where "... is thinking..." shows while a computer level or ``hint`` searches
    (standard error, when it is a terminal)."""

    @classmethod
    def detect(cls, env: Mapping[str, str] | None = None) -> Terminal:
        """From the process's standard output and error and its environment."""
        env = os.environ if env is None else env
        stdout_tty, stderr_tty = os.isatty(1), os.isatty(2)
        ansi = env.get("TERM", "") not in ("", "dumb")
        return cls(
            interactive=stdout_tty,
            style=detect_style(stdout_tty, env),
            status=StatusLine.on_fd(2, ansi=ansi) if stderr_tty else None,
        )

    def draw(self, board: chess.BaseBoard, state: ChessState | None = None) -> list[str]:
        """A board: the spec's display, or on a terminal that supports it Unicode pieces and
        colour (with the last move of ``state`` and a king in check highlighted)."""
        style = self.style
        if style.plain:
            return board_display(board)
        lastmove = check = None
        if state is not None:
            if state.moves:
                lastmove = chess.Move.from_uci(state.moves[-1])
            if state.board.is_check():
                check = state.board.king(state.board.turn)
        return styled_board(board, style, lastmove=lastmove, check=check)

    @contextlib.contextmanager
    def thinking(self, text: str) -> Iterator[None]:
        """Show ``text`` on the status line while the block runs, then erase it."""
        status = self.status
        if status is None:
            yield
            return
        status.show(text)
        try:
            yield
        finally:
            status.clear()


def first_line(turn: chess.Color) -> str:
    """Who moves first from a set-up position."""
    return f"{COLOURS[turn == chess.BLACK]} moves first."


def repetition_line(count: int) -> str:
    return f"Threefold repetition: this position has occurred {count} times (the game goes on)."
