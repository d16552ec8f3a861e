"""The terminal text of records: compact positions from the state views, JSON otherwise."""

from __future__ import annotations

from hub.core.values import PlayerInfo
from hub.records.render import position_lines, seconds, setting_text, table

PLAYERS = [PlayerInfo("ann"), PlayerInfo("bob")]


def test_kalah_board_with_wide_numbers() -> None:
    view = {"holes": 2, "board": [1, 120, 7, 3, 0, 45], "to_move": None, "swapped": False}
    assert position_lines("kalah", view, PLAYERS) == [
        "           0   3    seat 1 bob (holes 2..1)",
        "     45             7",
        "           1 120    seat 0 ann (holes 1..2)",
        "         over",
    ]


def test_chess_check_and_black_to_move() -> None:
    view = {"fen": "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1", "lastmove": "e1e2", "check": True}
    lines = position_lines("chess", view, PLAYERS)
    assert lines[0] == "    8 . . . . k . . ."
    assert lines[-1] == "      Black to move, check"


def test_views_that_break_their_shape_or_unknown_games_are_json() -> None:
    assert position_lines("kalah", {"holes": 6, "board": [1, 2]}, PLAYERS) == [
        '    {"holes":6,"board":[1,2]}'
    ]
    assert position_lines("chess", {"fen": "not a fen"}, PLAYERS) == ['    {"fen":"not a fen"}']
    assert position_lines("clubs", [1, 2], PLAYERS) == ["    [1,2]"]
    assert position_lines("go", {"stones": "é"}, PLAYERS) == ['    {"stones":"é"}']
    assert position_lines("go", None, PLAYERS) == ["    null"]


def test_small_formats() -> None:
    assert [seconds(x) for x in (0.0004, 12.34, 65, 3725)] == [
        "0.000 s",
        "12.3 s",
        "1 min 05 s",
        "1 h 02 min",
    ]
    assert setting_text("console") == "console"
    assert setting_text({"white": 1.0}) == '{"white":1.0}'
    assert setting_text(list(range(30))) == "[30 items]"
    assert setting_text({str(n): n for n in range(20)}) == "{20 keys}"
    assert setting_text("x" * 50) == "x" * 37 + "..."
    assert table(("a", "n"), [("xy", 1), ("z", 100)], "n") == ["a     n", "xy    1", "z   100"]
