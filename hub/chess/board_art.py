"""Stockfish 15.1's ``d`` output, byte for byte, as pure functions of a python-chess board.

``d`` prints a blank line, 17 lines of board art (borders and ranks, black at the top),
the file letters, a blank line, then ``Fen:``, ``Key:`` and ``Checkers:`` lines. Every
board line is indented by one space; the ``Checkers:`` line ends with a space (each checker
square is followed by one). `board_lines` gives the part UQChess sends to clients (the
first blank line through the blank line after the file letters); `d_lines` the whole output.

The FEN is Stockfish's, which differs from python-chess's default in two details: the en
passant square is shown whenever a pawn of the side to move attacks it (even if the capture
would be illegal), and a full-move number below 1 reads as 1. The ``Key:`` is the Polyglot
Zobrist hash: Stockfish's own keys differ, and the spec allows that line to differ.

For a person at a terminal (and only there: never in output a specification fixes), boards
may be drawn with Unicode pieces and coloured squares: `BoardStyle`, chosen by `detect_style`
from whether the output is a terminal, ``TERM``, ``NO_COLOR`` and ``HUB_BOARD``;
`styled_board` draws the chess console's board, `styled_d_line` restyles one rank line of
the art above (the UQChess client's board). docs/chess.md, "Unicode pieces and colour".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs
import chess
import chess.polyglot

BORDER = " +---+---+---+---+---+---+---+---+"
FILES = "   a   b   c   d   e   f   g   h"


def board_lines(board: chess.BaseBoard) -> list[str]:
    """The 20 lines from the first blank line through the blank line after the files."""
    lines = ["", BORDER]
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece is not None else " ")
        lines.append("".join(f" | {cell}" for cell in cells) + f" | {rank + 1}")
        lines.append(BORDER)
    lines.append(FILES)
    lines.append("")
    return lines


def stockfish_ep_square(board: chess.Board) -> chess.Square | None:
    """The en passant square as Stockfish keeps it: set only if a pawn of ours attacks it."""
    if board.ep_square is None:
        return None
    attackers = chess.BB_PAWN_ATTACKS[not board.turn][board.ep_square] & board.pieces_mask(
        chess.PAWN, board.turn
    )
    return board.ep_square if attackers else None


def stockfish_fen(board: chess.Board) -> str:
    """The FEN as Stockfish 15.1 prints it after ``Fen:``."""
    ep = stockfish_ep_square(board)
    fields = board.fen(en_passant="fen").split(" ")
    fields[3] = chess.square_name(ep) if ep is not None else "-"
    fields[5] = str(max(board.fullmove_number, 1))
    return " ".join(fields)


def checkers_line(board: chess.Board) -> str:
    """``Checkers:`` then each checking square followed by a space (a1 .. h8 order)."""
    return "Checkers: " + "".join(
        f"{chess.square_name(square)} " for square in chess.scan_forward(board.checkers_mask())
    )


def key_line(board: chess.Board) -> str:
    return f"Key: {chess.polyglot.zobrist_hash(board):016X}"


def d_lines(board: chess.Board) -> list[str]:
    """Everything Stockfish 15.1 prints for ``d`` (23 lines)."""
    return [
        *board_lines(board),
        f"Fen: {stockfish_fen(board)}",
        key_line(board),
        checkers_line(board),
    ]


# -- on a terminal: Unicode pieces and colour ------------------------------------------------

STYLE_ENV = "HUB_BOARD"
"""``auto`` (the default), ``plain``, or any of ``unicode`` and ``colour`` (``color``)
joined by ``,`` or ``+``: how boards are drawn on a terminal (never anywhere else)."""
RESET = "\x1b[0m"


@attrs.frozen
class BoardStyle:
    """How a board is drawn for a person: the spec's letters, Unicode pieces, coloured
    squares (in the 256-colour palette or the basic 16 colours)."""

    unicode: bool = False
    colour: bool = False
    palette: int = attrs.field(default=16, validator=attrs.validators.in_((16, 256)))

    @property
    def plain(self) -> bool:
        return not (self.unicode or self.colour)


PLAIN = BoardStyle()
"""The letters of the specifications, no escape sequences."""


def detect_style(isatty: bool, env: Mapping[str, str]) -> BoardStyle:
    """The style for an output: `PLAIN` unless it is a terminal. On a terminal,
    ``HUB_BOARD`` decides if it names a style (``plain``, ``unicode``, ``colour``,
    ``unicode,colour``); otherwise (``auto``, unset, anything else) Unicode pieces when
    ``TERM`` is set and not ``dumb``, coloured squares too unless ``NO_COLOR`` is set
    (https://no-color.org: a setting the user asks for, like ``HUB_BOARD=colour``,
    overrides it)."""
    if not isatty:
        return PLAIN
    term = env.get("TERM", "")
    palette = 256 if "256" in term or env.get("COLORTERM") else 16
    words = set(re.split(r"[,+\s]+", env.get(STYLE_ENV, "").strip().lower())) - {""}
    colour_words = {"colour", "color"}
    if words == {"plain"}:
        return PLAIN
    if words and words <= {"unicode", *colour_words}:
        return BoardStyle("unicode" in words, bool(words & colour_words), palette)
    if term in ("", "dumb"):
        return PLAIN
    return BoardStyle(unicode=True, colour=not env.get("NO_COLOR"), palette=palette)


_SQUARES = {
    # (light, dark, last move on light, last move on dark, check) backgrounds; black glyphs
    256: ("48;5;223", "48;5;173", "48;5;229", "48;5;185", "48;5;203", "38;5;16"),
    16: ("47", "43", "46", "46", "41", "30"),
}


def _cell(
    piece: chess.Piece | None,
    light: bool,
    style: BoardStyle,
    mark: str | None = None,
    dark_empty: str = "\u00b7",
) -> str:
    """One square, three characters wide (escape sequences aside); without colour an
    empty dark square shows ``dark_empty``."""
    if piece is None:
        glyph = " " if light or style.colour else dark_empty
    else:
        glyph = piece.unicode_symbol() if style.unicode else piece.symbol()
    text = f" {glyph} "
    if not style.colour:
        return text
    light_bg, dark_bg, moved_light, moved_dark, check_bg, ink = _SQUARES[style.palette]
    if mark == "check":
        background = check_bg
    elif mark == "moved":
        background = moved_light if light else moved_dark
    else:
        background = light_bg if light else dark_bg
    return f"\x1b[{background};{ink}m{text}"


def styled_board(
    board: chess.BaseBoard,
    style: BoardStyle,
    *,
    lastmove: chess.Move | None = None,
    check: chess.Square | None = None,
) -> list[str]:
    """The console's board for a terminal: rank digit, a space, 8 squares of three
    characters (white pieces as outlined glyphs, black ones filled, as in printed
    diagrams; with colour, the last move's squares and a king in check highlighted); a
    blank line; the file letters under the squares."""
    moved = set() if lastmove is None else {lastmove.from_square, lastmove.to_square}
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            square = chess.square(file, rank)
            mark = "check" if square == check else "moved" if square in moved else None
            cells.append(_cell(board.piece_at(square), (file + rank) % 2 == 1, style, mark))
        lines.append(f"{rank + 1} {''.join(cells)}{RESET if style.colour else ''}".rstrip())
    return [*lines, "", "  " + "".join(f" {name} " for name in chess.FILE_NAMES).rstrip()]


_ART_RANK = re.compile(r"((?: \| [ PNBRQKpnbrqk]){8}) \| ([1-8])")


def styled_d_line(line: str, style: BoardStyle) -> str:
    """A line of `board_lines` art restyled for a terminal: the squares of a rank line
    get Unicode pieces and colour; any other line (borders, files, blank, or anything
    that is not a rank line) is returned unchanged."""
    found = _ART_RANK.fullmatch(line)
    if style.plain or found is None:
        return line
    rank = int(found[2]) - 1
    cells = []
    for file in range(8):
        symbol = line[3 + 4 * file]
        piece = None if symbol == " " else chess.Piece.from_symbol(symbol)
        cell = _cell(piece, (file + rank) % 2 == 1, style, dark_empty=" ")
        cells.append(cell + RESET if style.colour else cell)
    return " |" + "|".join(cells) + f"| {found[2]}"
