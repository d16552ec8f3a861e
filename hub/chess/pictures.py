"""Pictures of the chess view ``{"fen", "lastmove", "check", "turn"}`` (pure): the text board
of ``hub games show``, the web board (python-chess's SVG, made clickable) and the console's
status line under it. Drawn from the view alone, as every game's pictures are
(docs/architecture.md, "State views")."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import chess
import chess.svg

from hub.core.values import JSON

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
    return svg.replace("<use ", '<use pointer-events="none" ')


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
