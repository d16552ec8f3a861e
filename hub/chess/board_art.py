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
"""

from __future__ import annotations

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
