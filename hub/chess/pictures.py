"""Pictures of the chess view ``{"fen", "lastmove", "check", "turn"}`` (pure): the text board
of ``hub games show``, the web board (python-chess's SVG, made clickable), the console's
status line under it, and what a page shows knowing where the game began (the opening
position and its moves, the captured pieces). Drawn from views alone, as every game's
pictures are (docs/architecture.md, "State views")."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import chess
import chess.svg

from hub.core.model.values import JSON

COLOURS = ("White", "Black")
_SQUARE = re.compile(r'class="square ([a-z ]*?)([a-h][1-8])"')


def text_lines(view: Mapping[str, Any]) -> list[str]:
    """The board from the FEN, black at the top, with ranks and files, then whose turn it is
    (and ``check`` or ``checkmate``)."""
    board = chess.Board(view["fen"])
    rows = str(board).splitlines()
    lines = [f"{8 - rank} {row}" for rank, row in enumerate(rows)]
    lines.append("  a b c d e f g h")
    turn = COLOURS[0] if board.turn == chess.WHITE else COLOURS[1]
    state = "checkmate" if board.is_checkmate() else "check" if view.get("check") else ""
    lines.append(f"  {turn} to move" + (f", {state}" if state else ""))
    return lines


def board_svg(view: Mapping[str, Any]) -> str:
    """python-chess's SVG board with the last move and a king in check highlighted, white at
    the bottom. Every square carries ``data-part="e2"`` (a browser seat builds a move by
    clicking its squares: e2 then e4 is ``e2e4``; a promotion adds ``q``, ``r``, ``b`` or
    ``n``) and the pieces let clicks through to their squares."""
    board = chess.Board(view["fen"])
    lastmove = chess.Move.from_uci(view["lastmove"]) if view.get("lastmove") else None
    check = board.king(board.turn) if board.is_check() else None
    svg = chess.svg.board(board, lastmove=lastmove, check=check, size=None)
    svg = _SQUARE.sub(r'class="square \1\2" data-part="\2"', svg)
    svg = svg.replace("<use ", '<use pointer-events="none" ')
    # the check highlight lies over the king's square: it must not take the click
    svg = svg.replace('class="check"', 'class="check" pointer-events="none"')
    return svg + promotion_choosers(board)


PROMOTIONS = (
    (chess.QUEEN, "queen"),
    (chess.ROOK, "rook"),
    (chess.BISHOP, "bishop"),
    (chess.KNIGHT, "knight"),
)


def promotion_choosers(board: chess.Board) -> str:
    """The piece chooser of each promotion the side to move may make: an empty
    ``data-stage`` place under the board, and per promotion a ``<template
    data-after="e7e8">`` whose buttons (the pieces' glyphs, ``data-move="e7e8q"``) a page
    shows there once the person has clicked e7 and e8 (docs/web.md, "Clicking a move")."""
    squares = sorted(
        {(move.from_square, move.to_square) for move in board.legal_moves if move.promotion}
    )
    templates = []
    for start, end in squares:
        prefix = chess.square_name(start) + chess.square_name(end)
        buttons = "".join(
            f'<button type="button" class="promote" data-move="{prefix}{chess.piece_symbol(kind)}"'
            f' title="promote to a {name}">'
            f"{chess.Piece(kind, board.turn).unicode_symbol()}</button>"
            for kind, name in PROMOTIONS
        )
        templates.append(
            f'<template data-after="{prefix}"><div class="chooser" data-stage>'
            f"<span>Promote to</span> {buttons}</div></template>"
        )
    if not templates:
        return ""
    return '<div class="chooser" data-stage></div>' + "".join(templates)


def status_lines(
    view: JSON, *, termination: str | None = None, winners: Sequence[int] | None = None
) -> list[str]:
    """The chess console's status line for a position (shared/specs/chess-console.md):
    ``White is in check.``, ``Checkmate! Black wins!``, ``Stalemate!``, and after a
    resignation ``White wins!``. Derived from the FEN alone, except the resignation."""
    try:
        board = chess.Board(view["fen"])
    except (KeyError, TypeError, ValueError):
        return []
    if not any(board.generate_legal_moves()):
        if board.is_check():
            winner = COLOURS[1 if board.turn == chess.WHITE else 0]
            return [f"Checkmate! {winner} wins!"]
        return ["Stalemate!"]
    if termination == "resignation" and winners is not None and len(winners) == 1:
        return [f"{COLOURS[winners[0]]} wins!"]
    if board.is_check():
        return [f"{COLOURS[0 if board.turn == chess.WHITE else 1]} is in check."]
    return []


VALUES = {chess.QUEEN: 9, chess.ROOK: 5, chess.BISHOP: 3, chess.KNIGHT: 3, chess.PAWN: 1}
"""The usual piece values: the material balance beside the captured pieces."""
START_BOARD_PX = 176


def _board(fen: object) -> chess.Board | None:
    try:
        return chess.Board(fen) if isinstance(fen, str) else None
    except ValueError:
        return None


def since_start_html(view: JSON, start: JSON, settings: Mapping[str, Any]) -> str:
    """Under the board: the position the game started from when it is not the usual one
    (a small board, "Started from" the opening's name, its moves in SAN and the FEN), and
    the pieces each side has captured since the opening's first position (Unicode glyphs,
    with the material balance). ``start`` is the game's first view; ``settings`` its
    recorded settings, where ``hub match`` puts its ``opening`` ({"name", "fen", "moves"})."""
    board = _board(view.get("fen") if isinstance(view, Mapping) else None)
    first = _board(start.get("fen") if isinstance(start, Mapping) else None)
    if board is None or first is None:
        return ""
    opening = settings.get("opening")
    opening = opening if isinstance(opening, Mapping) else {}
    root = _board(opening.get("fen", chess.STARTING_FEN)) if opening else first
    listed = opening.get("moves")
    moves: list[object] = list(listed) if isinstance(listed, list) else []
    parts = []
    if opening or first.fen() != chess.STARTING_FEN:
        parts.append(started_from_html(first, opening, root, moves))
    parts.append(captured_html(root or first, board))
    return f'<div class="since-start">{"".join(parts)}</div>'


def opening_words(root: chess.Board, moves: Sequence[object]) -> str:
    """An opening's moves in SAN with move numbers (``1. e4 e5 2. Nf3``); the UCI text of
    the first move that does not fit the position, and nothing after it."""
    board = root.copy(stack=False)
    words: list[str] = []
    for move in moves:
        number = board.fullmove_number
        try:
            parsed = chess.Move.from_uci(str(move))
            san = board.san(parsed)
        except ValueError:
            words.append(str(move))
            break
        if board.turn == chess.WHITE:
            words.append(f"{number}. {san}")
        elif not words:
            words.append(f"{number}... {san}")
        else:
            words.append(san)
        board.push(parsed)
    return " ".join(words)


def started_from_html(
    first: chess.Board,
    opening: Mapping[str, Any],
    root: chess.Board | None,
    moves: Sequence[object],
) -> str:
    name = opening.get("name")
    shown = str(name) if isinstance(name, str) and name != first.fen() else ""
    line = opening_words(root, moves) if root is not None and moves else ""
    words = ", ".join(part for part in (shown, line) if part) or "this position"
    svg = chess.svg.board(first, size=START_BOARD_PX, coordinates=False)
    return (
        '<figure class="start-position">'
        f'<div class="start-board" title="the position the game started from">{svg}</div>'
        f'<figcaption>Started from <span class="opening">{escape(words)}</span>'
        f'<br><code class="fen">{escape(first.fen())}</code></figcaption></figure>'
    )


def captured(root: chess.Board, board: chess.Board, colour: chess.Color) -> list[chess.Piece]:
    """The pieces of ``colour`` taken since ``root`` (most valuable first); a piece beyond
    its number at ``root`` was a promoted pawn, which is then not counted as taken."""

    def count(on: chess.Board, kind: chess.PieceType) -> int:
        return len(on.pieces(kind, colour))

    promoted = sum(
        max(0, count(board, kind) - count(root, kind))
        for kind in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
    )
    taken: list[chess.Piece] = []
    for kind in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
        missing = count(root, kind) - count(board, kind)
        if kind == chess.PAWN:
            missing -= promoted
        taken.extend([chess.Piece(kind, colour)] * max(0, missing))
    return taken


def captured_html(root: chess.Board, board: chess.Board) -> str:
    """Each side's captures: the glyphs of the other side's pieces it has taken, and by how
    much material it leads."""
    by_white = captured(root, board, chess.BLACK)
    by_black = captured(root, board, chess.WHITE)
    worth = [sum(VALUES[piece.piece_type] for piece in pieces) for pieces in (by_white, by_black)]
    rows = []
    for side, pieces, mine, theirs in (
        ("White", by_white, worth[0], worth[1]),
        ("Black", by_black, worth[1], worth[0]),
    ):
        glyphs = "".join(piece.unicode_symbol() for piece in pieces)
        shown = f'<span class="pieces">{glyphs}</span>' if glyphs else "nothing"
        lead = f' <span class="lead">+{mine - theirs}</span>' if mine > theirs else ""
        rows.append(
            f'<li class="captured-by-{side.lower()}"><span class="side">{side} has taken</span> '
            f"{shown}{lead}</li>"
        )
    return f'<ul class="captured">{"".join(rows)}</ul>'
