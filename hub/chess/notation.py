"""How chess games (UQChess and console alike) write their moves and show their states to the
event stream (docs/architecture.md, "State views"), which `hub.chess.game.ChessGame` gives.

A move is written in UCI long algebraic notation (``e2e4``, ``e1g1``, ``e7e8q``); a state is
shown as ``{"fen": FEN, "lastmove": UCI or null, "check": bool, "turn": "white"|"black"}``.
"""

from __future__ import annotations

import attrs
import chess

from hub.chess.rules import ChessState, normalise
from hub.core.values import JSON

GAME = "chess"


@attrs.frozen
class ChessNotation:
    """UCI move text and the chess state view (`ChessGame.move_text` and `ChessGame.view`)."""

    game: str = GAME

    def move_text(self, state: ChessState, move: str) -> str:
        """``move`` as UCI text (a promotion letter in lower case, as the rules read it)."""
        return normalise(move)

    def state_view(self, state: ChessState) -> JSON:
        board = state.board
        return {
            "fen": board.fen(),
            "lastmove": state.moves[-1] if state.moves else None,
            "check": board.is_check(),
            "turn": "white" if board.turn == chess.WHITE else "black",
        }
