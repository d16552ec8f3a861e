"""The terminal text of records: compact positions from the state views, JSON otherwise."""

from __future__ import annotations

import attrs

from hub.core.model.events import FaultInfo
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.records.render import (
    header_lines,
    position_lines,
    replay_lines,
    seconds,
    setting_text,
    short_name,
    table,
)
from tests.records.helpers import clubs_record

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


CLUBBER = "/home/someone/projects/hub/.venv/bin/clubber"


def test_clubs_speaks_the_game_s_language() -> None:
    """Issue 20, item 7: rounds from 1 and seats A, B, C as clubs.md says them; the winner's
    seat; program paths shortened to their names in the moves and the table, in full in the
    header."""
    players = [PlayerInfo(CLUBBER, spec=CLUBBER), PlayerInfo("p2"), PlayerInfo("./bots/p3")]
    record = attrs.evolve(clubs_record(), players=players, winners=[2])
    header = header_lines(record)
    assert header[1:4] == [
        f"  player A: {CLUBBER} (program)",
        "  player B: p2 (program)",
        "  player C: ./bots/p3 (program)",
    ]
    assert header[-1] == "  result: C wins 10-0-3"
    steps = replay_lines(record)
    assert steps[1] == [
        "1. player A clubber: 2C (0.001 s)",
        "    Round 1, first to 10",
        "     L A clubber    0  AS",
        "      >B p2         3  3C KD",
        "       C p3        10  4C 10H",
        "      trick: 2C",
    ]
    assert steps[-1] == ["result: C wins 10-0-3"]
    tie = attrs.evolve(record, winners=[0, 2])
    assert header_lines(tie)[-1] == "  result: A and C win 0-10-3"


def test_a_fault_names_the_seat_and_the_short_name() -> None:
    record = attrs.evolve(
        clubs_record(),
        players=[PlayerInfo(CLUBBER), PlayerInfo("p2"), PlayerInfo("p3")],
        termination=Termination.TIMEOUT,
        winners=[1, 2],
        fault=FaultInfo(0, Termination.TIMEOUT, "no card in 5 s"),
    )
    assert header_lines(record)[-1] == (
        "  result: B and C win 3-10-0 on time (A (clubber): no card in 5 s)"
    )


def test_short_names() -> None:
    assert short_name(CLUBBER) == "clubber"
    assert short_name("ai:4") == "ai:4"
    assert short_name("alice") == "alice"
    assert short_name("bots/") == "bots/"
    assert short_name("127.0.0.1:5000") == "127.0.0.1:5000"
