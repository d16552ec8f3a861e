"""Legal moves in Stockfish 15.1's order, and ``go perft N`` output byte for byte (pure).

UQChess's ``hint all`` lists moves "in the engine's perft order", so a built-in engine that
stands in for Stockfish must list them in the same order. Stockfish's order is that of its
move generator (``movegen.cpp``), which python-chess does not share:

* not in check (``NON_EVASIONS``): pawn single pushes, double pushes, promotions (captures
  towards the king's side of the board first for white, then the other diagonal, then pushes;
  each as queen, rook, bishop, knight), pawn captures (the two diagonals in turn), en passant;
  then knights, bishops, rooks, queens (each piece from a1 to h8, each target from a1 to h8);
  then the king's steps and castling (king side first);
* in single check (``EVASIONS``): the same, restricted to blocking the check or capturing the
  checker; the king's steps to any square not holding a piece of ours; no castling;
* in double check: the king's steps only.

Each list is pseudo-legal; Stockfish then removes the illegal moves by overwriting each with
the list's last move (``generate<LEGAL>``), which reorders what follows. `stockfish_moves`
reproduces the list and that removal, with python-chess deciding legality. Moves are plain
python-chess moves (castling as the king's two-square move, ``e1g1``).
"""

from __future__ import annotations

from collections.abc import Callable

import chess

_NOT_A = ~chess.BB_FILE_A & chess.BB_ALL
_NOT_H = ~chess.BB_FILE_H & chess.BB_ALL
_PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
_MAX_PERFT_DEPTH = 32


def _shift(bb: int, delta: int) -> int:
    """Shift a bitboard by ``delta`` squares (positive: towards h8), dropping what falls off."""
    if delta > 0:
        return (bb << delta) & chess.BB_ALL
    return bb >> -delta


def _pawn_moves(
    board: chess.Board, us: chess.Color, evasions: bool, target: int, checkers: int
) -> list[chess.Move]:
    up = 8 if us == chess.WHITE else -8
    # Stockfish's UpRight/UpLeft: NORTH_EAST/NORTH_WEST for white, SOUTH_WEST/SOUTH_EAST for black.
    up_right, right_mask = (9, _NOT_H) if us == chess.WHITE else (-9, _NOT_A)
    up_left, left_mask = (7, _NOT_A) if us == chess.WHITE else (-7, _NOT_H)
    rank7 = chess.BB_RANK_7 if us == chess.WHITE else chess.BB_RANK_2
    rank3 = chess.BB_RANK_3 if us == chess.WHITE else chess.BB_RANK_6
    empty = ~board.occupied & chess.BB_ALL
    enemies = checkers if evasions else board.occupied_co[not us]
    pawns = board.pieces_mask(chess.PAWN, us)
    on7, not7 = pawns & rank7, pawns & ~rank7
    moves: list[chess.Move] = []

    single = _shift(not7, up) & empty
    double = _shift(single & rank3, up) & empty
    if evasions:
        single &= target
        double &= target
    moves += [chess.Move(to - up, to) for to in chess.scan_forward(single)]
    moves += [chess.Move(to - 2 * up, to) for to in chess.scan_forward(double)]

    if on7:
        right = _shift(on7 & right_mask, up_right) & enemies
        left = _shift(on7 & left_mask, up_left) & enemies
        push = _shift(on7, up) & empty
        if evasions:
            push &= target
        for bb, delta in ((right, up_right), (left, up_left), (push, up)):
            for to in chess.scan_forward(bb):
                moves += [chess.Move(to - delta, to, promotion=p) for p in _PROMOTIONS]

    right = _shift(not7 & right_mask, up_right) & enemies
    left = _shift(not7 & left_mask, up_left) & enemies
    moves += [chess.Move(to - up_right, to) for to in chess.scan_forward(right)]
    moves += [chess.Move(to - up_left, to) for to in chess.scan_forward(left)]

    ep = board.ep_square
    if ep is not None and not (evasions and target & chess.BB_SQUARES[ep + up]):
        # "An en passant capture cannot resolve a discovered check" (the double-pushed pawn
        # came from a square on the line of the check).
        attackers = not7 & chess.BB_PAWN_ATTACKS[not us][ep]
        moves += [chess.Move(origin, ep) for origin in chess.scan_forward(attackers)]
    return moves


def _pseudo_legal(board: chess.Board) -> list[chess.Move]:
    us = board.turn
    king = board.king(us)
    if king is None:  # not a playable position: no order to reproduce
        return list(board.generate_legal_moves())
    checkers = board.checkers_mask()
    evasions = bool(checkers)
    moves: list[chess.Move] = []
    if chess.popcount(checkers) <= 1:
        if evasions:
            checker = chess.lsb(checkers)
            target = chess.between(king, checker) | chess.BB_SQUARES[checker]
        else:
            target = ~board.occupied_co[us] & chess.BB_ALL
        moves += _pawn_moves(board, us, evasions, target, checkers)
        for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            for origin in chess.scan_forward(board.pieces_mask(piece_type, us)):
                attacks = board.attacks_mask(origin) & target
                moves += [chess.Move(origin, to) for to in chess.scan_forward(attacks)]
    own = board.occupied_co[us]
    steps = chess.BB_KING_ATTACKS[king] & ~own
    moves += [chess.Move(king, to) for to in chess.scan_forward(steps)]
    if not evasions:
        moves += _castling(board, us, king)
    return moves


def _castling(board: chess.Board, us: chess.Color, king: chess.Square) -> list[chess.Move]:
    moves = []
    back_rank = 0 if us == chess.WHITE else 56
    for rook_file, king_to, rook_to in ((7, 6, 5), (0, 2, 3)):
        rook = back_rank + rook_file
        if not board.clean_castling_rights() & chess.BB_SQUARES[rook]:
            continue
        path = (
            chess.between(king, back_rank + king_to)
            | chess.BB_SQUARES[back_rank + king_to]
            | chess.between(rook, back_rank + rook_to)
            | chess.BB_SQUARES[back_rank + rook_to]
        ) & ~(chess.BB_SQUARES[king] | chess.BB_SQUARES[rook])
        if not path & board.occupied:
            moves.append(chess.Move(king, back_rank + king_to))
    return moves


def stockfish_moves(board: chess.Board) -> list[chess.Move]:
    """The legal moves of ``board`` in the order Stockfish 15.1's ``go perft 1`` lists them."""
    moves = _pseudo_legal(board)
    end = len(moves)
    index = 0
    while index < end:
        if board.is_legal(moves[index]):
            index += 1
        else:
            end -= 1
            moves[index] = moves[end]
    result = moves[:end]
    if len(result) != board.legal_moves.count():  # a position outside Stockfish's model
        return list(board.generate_legal_moves())
    return result


class PerftStopped(Exception):
    """``should_stop`` asked a perft count to give up."""


def count_leaves(
    board: chess.Board, depth: int, should_stop: Callable[[], bool] | None = None
) -> int:
    """Leaf nodes of the legal-move tree ``depth`` plies deep (``depth`` >= 1)."""
    if depth <= 1:
        return board.legal_moves.count()
    if should_stop is not None and should_stop():
        raise PerftStopped
    total = 0
    for move in board.generate_legal_moves():
        board.push(move)
        try:
            total += count_leaves(board, depth - 1, should_stop)
        finally:
            board.pop()
    return total


def perft_lines(
    board: chess.Board, depth: int = 1, should_stop: Callable[[], bool] | None = None
) -> list[str]:
    """What Stockfish prints for ``go perft depth``: ``move: count`` lines, blank, total, blank.

    With no legal move (checkmate, stalemate) that is a blank line, ``Nodes searched: 0``
    and a blank line. ``depth`` is clamped to 1 .. 32 (deeper trees never finish anyway);
    ``should_stop``, polled now and then, makes a long count raise `PerftStopped`.
    """
    depth = min(max(depth, 1), _MAX_PERFT_DEPTH)
    lines: list[str] = []
    total = 0
    work = board.copy()
    for move in stockfish_moves(board):
        if depth == 1:
            count = 1
        else:
            work.push(move)
            try:
                count = count_leaves(work, depth - 1, should_stop)
            finally:
                work.pop()
        total += count
        lines.append(f"{move.uci()}: {count}")
    return [*lines, "", f"Nodes searched: {total}", ""]
