"""Setting up a position by hand (the chess console's setup mode, specs/chess-console.md):
whether a placement may start a game, and the FEN it starts from. Pure, python-chess's public
API only."""

from __future__ import annotations

import chess

SIDES = ((chess.WHITE, "white"), (chess.BLACK, "black"))
CASTLING = (("K", "e1", "h1"), ("Q", "e1", "a1"), ("k", "e8", "h8"), ("q", "e8", "a8"))
"""Each castling right, with where its king and rook stand unmoved."""


def setup_problems(board: chess.BaseBoard) -> list[str]:
    """Why the placement may not start a game (empty when the position is fine)."""
    problems = []
    for colour, name in SIDES:
        if chess.popcount(board.pieces_mask(chess.KING, colour)) != 1:
            problems.append(f"There must be exactly one {name} king.")
    if board.pawns & chess.BB_BACKRANKS:
        problems.append("No pawn may stand on rank 1 or 8.")
    if not problems:
        # Not "White is in check.": that is a game's status line (specs/chess-console.md,
        # "Display"), and setup output must not read like play.
        for colour, name in SIDES:
            king = board.king(colour)
            if king is not None and board.is_attacked_by(not colour, king):
                problems.append(f"The {name} king must not be in check.")
    return problems


def setup_fen(board: chess.BaseBoard, turn: chess.Color) -> str:
    """The FEN of a set-up position: castling rights wherever king and rook stand unmoved."""
    rights = ""
    for symbol, king, rook in CASTLING:
        colour = symbol.isupper()
        king_piece = board.piece_at(chess.parse_square(king))
        rook_piece = board.piece_at(chess.parse_square(rook))
        if king_piece == chess.Piece(chess.KING, colour) and rook_piece == chess.Piece(
            chess.ROOK, colour
        ):
            rights += symbol
    side = "w" if turn == chess.WHITE else "b"
    return f"{board.board_fen()} {side} {rights or '-'} - 0 1"
