"""Chess declared (`hub.chess.game.ChessGame`, issue 17): the rules, notation and view of the
chess library behind the `Game` interface, its pictures, levels, console score and export."""

from __future__ import annotations

import math
import random
import re

import chess
import pytest

from hub.chess.game import ChessGame
from hub.chess.notation import state_view
from hub.chess.rules import ChessState, Draws
from hub.core.commands.plugin import discover, pictures
from hub.core.model.referee import IllegalMove
from hub.core.play.game import BadMove, SettingsError, legal_texts
from hub.core.play.threads import StopFlag
from hub.testing import check_game
from hub.web.render import Position, render_position, status_lines

MATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1"


def played(game: ChessGame, *moves: str) -> ChessState:
    state = game.start(random.Random(0))
    for move in moves:
        state = game.apply(state, game.parse_move(state, move))
    return state


def test_the_declaration_passes_the_referee_conformance_suite() -> None:
    game = ChessGame()
    outcomes = check_game(lambda rng: (game, game.start(rng)), playouts=3)
    assert all(outcome.detail for outcome in outcomes)  # every game ends, saying how


def test_the_plugin_is_the_declared_game_with_the_seats_white_and_black() -> None:
    plugin = discover()["chess"]
    assert plugin.game is not None and issubclass(plugin.game, ChessGame)  # (the match hooks added)
    game = pictures("chess")
    assert isinstance(game, ChessGame)
    assert [game.seat_name(0), game.seat_name(1)] == ["White", "Black"]
    assert game.ai is not None and list(game.ai.levels) == [1, 2, 3, 4]


def test_the_view_and_move_texts_are_the_chess_notation_s() -> None:
    game = ChessGame()
    state = played(game, "e2e4", "e7e5", "d1h5", "b8c6", "h5f7")
    assert game.view(state) == state_view(state) == game.view(state, 1)
    assert game.view(state) == {
        "fen": "r1bqkbnr/pppp1Qpp/2n5/4p3/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 0 3",
        "lastmove": "h5f7",
        "check": True,
        "turn": "black",
    }
    assert game.name == "chess"
    promoting = ChessGame({"fen": "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"})
    first = promoting.start(random.Random(0))
    assert promoting.parse_move(first, " e7e8Q ") == "e7e8q"
    assert promoting.move_text(first, "e7e8Q") == "e7e8q"
    assert "e7e8n" in legal_texts(promoting, first)


@pytest.mark.parametrize("text", ["", "e2", "e2e4e6", "Nf3", "E2E4", "0000", "e2-e4"])
def test_text_that_is_not_uci_is_a_bad_move(text: str) -> None:
    game = ChessGame()
    with pytest.raises(BadMove):
        game.parse_move(game.start(random.Random(0)), text)


def test_a_well_formed_illegal_move_reaches_the_rules() -> None:
    game = ChessGame()
    state = game.start(random.Random(0))
    with pytest.raises(IllegalMove):
        game.apply(state, game.parse_move(state, "e2e5"))


def test_the_start_position_is_a_setting_checked_up_front() -> None:
    game = ChessGame({"fen": MATE_FEN})
    state = game.start(random.Random(0))
    assert state.start_fen == MATE_FEN
    assert game.to_move(state) == 0
    with pytest.raises(SettingsError, match="fen"):
        ChessGame({"fen": "not a fen"})
    with pytest.raises(SettingsError, match="legal position"):
        ChessGame({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"})  # no kings


def test_fide_automatic_draws_end_every_game() -> None:
    game = ChessGame({"fen": "8/8/8/4k3/8/8/8/4K3 w - - 0 1"})
    outcome = game.outcome(game.start(random.Random(0)))
    assert outcome is not None and outcome.detail == "insufficient material"
    assert game.draws is Draws.FIDE and game.max_plies == 0


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_every_level_plays_a_legal_move_and_levels_1_to_3_replay(level: int) -> None:
    game = ChessGame()
    state = played(game, "e2e4", "d7d5")
    stop = StopFlag()
    if level == 4:
        stop.set()  # the search stops at once with its best move so far
    assert game.ai is not None
    move = game.ai.move(game, state, level, math.inf, stop)
    assert move in legal_texts(game, state)
    if level < 4:
        assert all(game.ai.move(game, state, level, 1.0, StopFlag()) == move for _ in range(3))


def test_level_3_takes_the_hanging_queen() -> None:
    game = ChessGame({"fen": "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1"})
    assert game.ai is not None
    assert game.ai.move(game, game.start(random.Random(0)), 3, math.inf, StopFlag()) == "e4d5"


def test_the_text_picture_is_the_records_board() -> None:
    game = ChessGame()
    view = {"fen": "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1", "lastmove": "e1e2", "check": True}
    lines = game.pictures.text(view).splitlines()
    assert lines[0] == "8 . . . . k . . ."
    assert lines[-2:] == ["  a b c d e f g h", "  Black to move, check"]
    mate = {"fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "check": False}
    assert game.pictures.text(mate).splitlines()[-1] == "  Black to move"
    fools = game.view(played(game, "f2f3", "e7e5", "g2g4", "d8h4"))
    assert game.pictures.text(fools).splitlines()[-1] == "  White to move, checkmate"


def test_the_web_board_has_a_data_part_on_every_square_and_the_last_move() -> None:
    game = ChessGame()
    view = game.view(played(game, "e2e4", "f7f6", "d1h5"))
    html = game.pictures.html(view)
    parts = re.findall(r'<rect [^>]*class="square [^"]*" data-part="([a-h][1-8])"', html)
    assert sorted(parts) == sorted(chess.SQUARE_NAMES)
    assert re.search(r'class="square [a-z]+ lastmove d1" data-part="d1"', html)
    assert re.search(r'class="square [a-z]+ lastmove h5" data-part="h5"', html)
    assert 'class="check"' in html
    pieces = re.findall(r"<use [^>]*>", html)
    assert len(pieces) == 32 and all('pointer-events="none"' in use for use in pieces)
    # the web view draws it through the declaration, with the status line under it
    page = render_position(Position("chess", (), view))
    assert 'data-part="e2"' in page and "lastmove h5" in page
    assert status_lines(Position("chess", (), view)) == ["Black is in check."]


def test_status_lines_and_the_console_score() -> None:
    game = ChessGame()
    mate = game.view(played(game, "f2f3", "e7e5", "g2g4", "d8h4"))
    assert game.pictures.status(mate) == ["Checkmate! Black wins!"]
    view = game.view(played(game, "e2e4"))
    assert game.pictures.status(view, termination="resignation", winners=[0]) == ["White wins!"]
    series = game.series
    assert series is not None and series.page == "console"
    assert series.score({"rules": "console", "score": {"white": 1, "black": 0.5}}) == [1.0, 0.5]
    assert series.score({"tc": "10+0.1"}) == []  # the console's rules, no score given
    assert series.score({"rules": "uqchess"}) is None
