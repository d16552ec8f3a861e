"""Results in words on the pages, with the game's own seat names."""

from __future__ import annotations

from hub.core.model.events import FaultInfo, GameRecord
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.web.views import result_words


def record(game: str, scores: list[float], winners: list[int], **fields: object) -> GameRecord:
    values: dict[str, object] = {
        "game_id": "g",
        "game": game,
        "settings": {},
        "players": [PlayerInfo("a"), PlayerInfo("b")],
        "time_controls": ["none", "none"],
        "initial_state": None,
        "moves": [],
        "final_state": fields.pop("final_state", None),
        "scores": scores,
        "winners": winners,
        "termination": Termination.NORMAL,
        "fault": None,
        "started_at": 0.0,
        "ended_at": 1.0,
        "thinking": [0.0, 0.0],
    }
    values.update(fields)
    return GameRecord(**values)  # type: ignore[arg-type]


def test_results_are_said_with_the_games_seat_names() -> None:
    kalah = {"holes": 6, "board": [0] * 14, "to_move": None, "swapped": False}
    assert result_words(record("kalah", [37, 11], [0], final_state=kalah)) == "South wins 37-11"
    timeout = FaultInfo(0, Termination.TIMEOUT, "no move in time")
    assert (
        result_words(record("chess", [0, 1], [1], termination=Termination.TIMEOUT, fault=timeout))
        == "Black wins on time"
    )
    assert (
        result_words(record("chess", [1, 0], [0], detail="checkmate")) == "White wins (checkmate)"
    )
    assert result_words(record("connect4", [2, 0], [0])) == "Red wins"
    assert result_words(record("connect4", [1, 1], [0, 1], detail="the grid is full")) == (
        "a draw (the grid is full)"
    )
    assert result_words(record("tictactoe", [0, 2], [1])) == "Seat 2 wins"
    assert (
        result_words(record("connect4", [0, 0], [], termination=Termination.ABORTED, detail="undo"))
        == "stopped (undo)"
    )


def test_chess_moves_are_listed_in_san_from_the_position_before_them() -> None:
    from hub.web.views import move_words

    start = {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}
    assert move_words("chess", start, "g1f3") == "Nf3"
    assert move_words("chess", start, "e2e4") == "e4"
    assert move_words("chess", None, "e2e4") == "e2e4"  # the position before it is unknown
    promotion = {"fen": "8/4P3/8/8/8/8/k7/7K w - - 0 1"}
    assert move_words("chess", promotion, "e7e8q") == "e8=Q"
    assert move_words("connect4", {"grid": []}, "4") == "4"


def test_a_move_that_does_not_fit_the_position_before_it_is_shown_as_it_is() -> None:
    from hub.web.views import move_words

    after = {"fen": "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"}
    assert move_words("chess", after, "g1f3") == "g1f3"  # (a lost event: the wrong position)
    assert move_words("chess", {"nofen": 1}, "g1f3") == "g1f3"


def test_chess_moves_carry_their_move_numbers_and_other_games_their_plies() -> None:
    from hub.web.app import _moves
    from hub.web.views import move_number

    white = {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}
    black = {"fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}
    later = {"fen": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"}
    assert move_number("chess", white) == "1."
    assert move_number("chess", black) == "1..."
    assert move_number("chess", later) == "3."
    assert move_number("chess", None) is None  # the position before it is unknown
    assert move_number("chess", {"nofen": 1}) is None
    assert move_number("connect4", {"grid": []}) is None  # listed by ply
    game: dict[str, object] = {
        "moves": [
            {"ply": 1, "side": "White", "move": "e2e4", "words": "e4", "number": "1."},
            {"ply": 2, "side": "Red", "move": "4"},
        ]
    }
    html = _moves(game)  # type: ignore[arg-type]
    assert '<li data-ply="1" class="numbered"><span class="side">1.</span> e4</li>' in html
    assert '<li data-ply="2"><span class="side">Red</span> 4</li>' in html
