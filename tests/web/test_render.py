"""The renderers: boards from the documented state views only, everything escaped."""

from __future__ import annotations

import re

import chess
import pytest

from hub.chess.pictures import status_lines as chess_status
from hub.core.model.values import PlayerInfo
from hub.web.render import (
    Position,
    clock_text,
    points_text,
    render_position,
)
from tests.web.helpers import chess_view, clubs_view, kalah_view

EVIL = '<script>alert("x")</script>&'


def players(*names: str) -> tuple[PlayerInfo, ...]:
    return tuple(PlayerInfo(name, "program") for name in names)


def after(*moves: str, fen: str | None = None) -> dict[str, object]:
    board = chess.Board() if fen is None else chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return chess_view(board)


def test_player_names_and_unknown_views_are_escaped() -> None:
    html = render_position(Position("mystery", players(EVIL, "b"), {"x": EVIL}))
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in html
    assert html.count("&lt;script&gt;") == 2  # the name and the view's JSON


def test_chess_board_highlights_the_last_move_and_check() -> None:
    html = render_position(Position("chess", players("w", "b"), after("e2e4", "f7f6", "d1h5")))
    assert "lastmove d1" in html and "lastmove h5" in html
    assert 'class="check"' in html
    quiet = render_position(Position("chess", players("w", "b"), after("e2e4")))
    assert "lastmove e2" in quiet and 'class="check"' not in quiet


@pytest.mark.parametrize(
    ("view", "lines"),
    [
        (after(), []),
        (after("e2e4", "f7f6", "d1h5"), ["Black is in check."]),
        (after("f2f3", "e7e5", "g2g4", "d8h4"), ["Checkmate! Black wins!"]),
        (after("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"), ["Checkmate! White wins!"]),
        (after(fen="7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), ["Stalemate!"]),
        (after(fen="8/8/8/4k3/8/8/8/4K3 w - - 0 1"), []),  # no automatic draws here
    ],
)
def test_chess_status_lines_use_the_console_wording(
    view: dict[str, object], lines: list[str]
) -> None:
    assert chess_status(view) == lines


def test_chess_status_after_a_resignation_and_for_bad_views() -> None:
    view = after("e2e4")
    assert chess_status(view, termination="resignation", winners=[1]) == ["Black wins!"]
    assert chess_status(view, termination="resignation", winners=[0]) == ["White wins!"]
    assert chess_status({"fen": "nonsense"}) == []
    assert chess_status(None) == []


def test_white_in_check_and_sides_in_the_player_list() -> None:
    view = after("e2e4", "e7e5", "f2f4", "d8h4")
    assert chess_status(view) == ["White is in check."]
    html = render_position(Position("chess", players("alice", "bob"), view, to_move=0))
    assert re.search(
        r'class="player to-move"><span class="side">White</span> '
        r'<span class="name">alice</span>',
        html,
    )


def test_the_winner_is_marked_and_a_draw_marks_no_one() -> None:
    view = after("e2e4")
    won = render_position(Position("chess", players("w", "b"), view, winners=(1,)))
    assert won.count('<span class="mark">wins</span>') == 1
    assert '<li class="player winner"><span class="side">Black' in won
    drawn = render_position(Position("chess", players("w", "b"), view, winners=(0, 1)))
    assert "wins</span>" not in drawn and "winner" not in drawn


def test_kalah_board_south_left_to_right_and_north_right_to_left() -> None:
    # seat 0: holes 1..3 = 1,2,3, store 10; seat 1: holes 1..3 = 4,5,6, store 20
    view = kalah_view([1, 2, 3, 10, 4, 5, 6, 20], to_move=1)
    html = render_position(Position("kalah", players("s", "n"), view, to_move=1))
    counts = re.findall(r'<div class="hole"><b>(\d+)</b><i>(\d)</i>', html)
    assert counts == [("6", "3"), ("5", "2"), ("4", "1"), ("1", "1"), ("2", "2"), ("3", "3")]
    assert re.findall(r'class="store (\w+)"[^>]*><b>(\d+)', html) == [
        ("north", "20"),
        ("south", "10"),
    ]
    assert 'class="row north to-move"' in html
    assert '<span class="side">South</span> <span class="name">s</span>' in html


def test_kalah_board_after_the_pie_swap_puts_seat_1_south() -> None:
    view = kalah_view([1, 2, 3, 10, 4, 5, 6, 20], to_move=0, swapped=True)
    html = render_position(Position("kalah", players("a", "b"), view))
    board = re.sub("<template.*?</template>", "", html)  # (the boards after a sowing)
    assert re.findall(r'class="store (\w+)"[^>]*><b>(\d+)', board) == [
        ("north", "10"),
        ("south", "20"),
    ]
    assert '<span class="side">North</span> <span class="name">a</span>' in html
    assert "sides swapped" in html


def test_clocks_tick_only_for_the_mover_of_a_live_game() -> None:
    view = kalah_view([4, 4, 4, 0, 4, 4, 4, 0], to_move=1)
    live = Position("kalah", players("a", "b"), view, to_move=1, clocks=(61.25, 4.0), live=True)
    html = render_position(live)
    assert '<span class="clock" data-left="61.250">1:01.2</span>' in html
    assert '<span class="clock running" data-left="4.000">0:04.0</span>' in html
    none = render_position(Position("kalah", players("a", "b"), view, clocks=(None, None)))
    assert "clock" not in none


def test_clubs_hands_are_hidden_while_the_game_runs() -> None:
    view = clubs_view([["AS", "10H"], ["2C"], ["KD", "3S"]], ["QH", "JD"], 2, 1, [3, 0, 7])
    table = players("ann", "bo", EVIL)
    live = render_position(Position("clubs", table, view, to_move=1, reveal=False))
    assert "2 cards" in live and "1 cards" in live and "AS" not in live
    assert re.findall(r'class="card (\w+)">([^<]+)</span> <span class="by">([^<]+)', live) == [
        ("red", "Q\u2665", "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;"),
        ("red", "J\u2666", "ann"),
    ]
    assert "<script>" not in live
    done = render_position(Position("clubs", table, view, reveal=True))
    assert 'class="card black">A\u2660' in done and 'class="card red">10\u2665' in done


def test_a_malformed_view_of_a_known_game_falls_back_to_its_json() -> None:
    html = render_position(Position("kalah", players("a", "b"), {"holes": 3, "board": [1]}))
    assert '<pre class="view">' in html


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00.0"),
        (4.04, "0:04.0"),
        (59.96, "1:00.0"),
        (61.25, "1:01.2"),
        (-3, "0:00.0"),
        (None, ""),
        (float("inf"), ""),
    ],
)
def test_clock_text(seconds: float | None, text: str) -> None:
    assert clock_text(seconds) == text


def test_points_are_printed_as_the_console_does() -> None:
    assert [points_text(p) for p in (0, 1, 1.5, 2.0, 0.5)] == ["0", "1", "1.5", "2", "0.5"]
