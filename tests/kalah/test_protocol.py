"""The Kalah wire protocol: liberal parsing, strict formatting, one declared error."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.games.kalah.protocol import (
    BadLine,
    Info,
    ServerLine,
    format_info,
    format_move,
    is_word,
    max_line,
    parse_info,
    parse_move,
    parse_server_line,
    safe_text,
)
from hub.games.kalah.rules import PIE, turn


def test_moves_parse_liberally_and_format_strictly() -> None:
    assert parse_move("4 3", 4) == turn(4, 3)
    assert parse_move("  4   3 ", 4) == turn(4, 3)
    assert parse_move("4\t3\r", 4) == turn(4, 3)
    assert parse_move("04", 4) == turn(4)
    assert parse_move(" P ", 4) == PIE
    assert format_move(turn(4, 3)) == "4 3"
    assert format_move(PIE) == "P"


@pytest.mark.parametrize(
    "line", ["", "   ", "5", "0", "4.3", "4,3", "p", "P P", "P 1", "-1", "+1", "1x", "4\x003", "é"]
)
def test_malformed_moves(line: str) -> None:
    with pytest.raises(BadLine):
        parse_move(line, 4)


def test_info_round_trip_and_examples() -> None:
    info = parse_info("INFO 6 6 1000 S R 6 4 7 6 5 8")
    assert info == Info(6, 6, 1000, False, (6, 4, 7, 6, 5, 8))
    assert format_info(info) == "INFO 6 6 1000 S R 6 4 7 6 5 8"
    assert format_info(Info(4, 1, 5000, True)) == "INFO 4 1 5000 F S"
    assert parse_info("  INFO  4 1  5000 F S ") == Info(4, 1, 5000, True)


@pytest.mark.parametrize(
    "line",
    [
        "INFO 4 1 5000 F",
        "INFO 4 1 5000 X S",
        "INFO 4 1 5000 F Q",
        "INFO 4 1 5000 F S 1",
        "INFO 4 1 -5 F S",
        "INFO 0 1 5000 F S",
        "INFO 4 1 5000 F R 1 1 1",
        "INFO 4 1 5000 F R 1 1 1 2",
        "INFO 99 1 5000 F S",
        "INF 4 1 5000 F S",
    ],
)
def test_malformed_info(line: str) -> None:
    with pytest.raises(BadLine):
        parse_info(line)


def test_server_lines() -> None:
    assert parse_server_line("OK", 4) == ServerLine(word="OK")
    assert parse_server_line(" LOSER ", 4) == ServerLine(word="LOSER")
    assert parse_server_line("2", 4) == ServerLine(move=turn(2))
    assert parse_server_line("INFO 4 1 0 S S", None).info == Info(4, 1, 0, False)
    with pytest.raises(BadLine):
        parse_server_line("2", None)
    assert is_word(" READY\r", "READY")
    assert not is_word("READY\x01", "READY")


def test_safe_text_escapes_and_caps() -> None:
    assert safe_text("ok") == "ok"
    assert safe_text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert safe_text("x" * 200, 10) == "x" * 10 + "..."


def test_line_cap_fits_the_longest_turn() -> None:
    assert max_line(20, 20) > 2 * 20 * 20 * 3


@given(st.text(max_size=40), st.integers(1, 20))
def test_parse_move_raises_only_bad_line(line: str, holes: int) -> None:
    try:
        move = parse_move(line, holes)
    except BadLine:
        return
    assert parse_move(format_move(move), holes) == move


@given(st.text(max_size=60))
def test_parse_server_line_raises_only_bad_line(line: str) -> None:
    with contextlib.suppress(BadLine):
        parse_server_line(line, 6)


@given(
    st.integers(1, 20).flatmap(
        lambda holes: st.tuples(
            st.just(holes),
            st.integers(1, 20),
            st.integers(0, 10**9 - 1),
            st.booleans(),
            st.booleans(),
        )
    )
)
def test_info_round_trips(values: tuple[int, int, int, bool, bool]) -> None:
    holes, seeds, time_ms, first, layout = values
    counts = (holes * seeds, *([0] * (holes - 1))) if layout else None
    info = Info(holes, seeds, time_ms, first, counts)
    assert parse_info(format_info(info)) == info
