"""The chess notation: UCI move text and the state view of docs/architecture.md."""

from __future__ import annotations

import json

import chess

from hub.chess.game import ChessGame
from hub.chess.notation import move_text, state_view
from hub.chess.rules import initial


def test_start_view_and_move_text() -> None:
    state = initial()
    assert ChessGame().name == "chess"
    assert state_view(state) == {
        "fen": chess.STARTING_FEN,
        "lastmove": None,
        "check": False,
        "turn": "white",
    }
    assert move_text(state, "e2e4") == "e2e4"


def test_view_after_a_check_and_a_promotion_letter_in_lower_case() -> None:
    referee = ChessGame()
    state = initial("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert move_text(state, "a7a8Q") == "a7a8q"
    after = referee.apply(state, "a7a8Q")
    view = state_view(after)
    assert view == {
        "fen": "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1",
        "lastmove": "a7a8q",
        "check": True,
        "turn": "black",
    }
    assert json.loads(json.dumps(view)) == view
