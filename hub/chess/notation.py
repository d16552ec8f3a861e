"""How chess games (UQChess, the console, matches and the declared game alike) write their
moves and show their states (docs/architecture.md, "State views"): pure functions that the
declaration, `hub.chess.game.ChessGame`, gives the match loop.

A move is written in UCI long algebraic notation (``e2e4``, ``e1g1``, ``e7e8q``); a state is
shown as ``{"fen": FEN, "lastmove": UCI or null, "check": bool, "turn": "white"|"black"}``.
"""

from __future__ import annotations

import chess

from hub.chess.rules import ChessState, normalise
from hub.core.model.values import JSON


def move_text(state: ChessState, move: str) -> str:
    """``move`` as UCI text (a promotion letter in lower case, as the rules read it)."""
    return normalise(move)


def state_view(state: ChessState) -> JSON:
    """``state`` as the chess view."""
    board = state.board
    return {
        "fen": board.fen(),
        "lastmove": state.moves[-1] if state.moves else None,
        "check": board.is_check(),
        "turn": "white" if board.turn == chess.WHITE else "black",
    }
