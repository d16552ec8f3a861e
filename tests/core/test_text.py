from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.core.io.text import is_printable_ascii, parse_whole_number, result_words


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0), ("7", 7), ("007", 7), ("123456789", 123456789), ("9" * 18, int("9" * 18))],
)
def test_whole_numbers(text: str, value: int) -> None:
    assert parse_whole_number(text) == value


@pytest.mark.parametrize(
    "text", ["", " ", "3biscuit", "3 ", " 3", "+3", "-3", "3.0", "1e3", "٣", "²", "9" * 19, "0x1"]
)
def test_not_numbers(text: str) -> None:
    assert parse_whole_number(text) is None


@given(st.text())
def test_never_raises_and_agrees_with_int(text: str) -> None:
    value = parse_whole_number(text)
    if value is not None:
        assert text.isascii() and text.isdigit() and int(text) == value


@given(st.integers(min_value=0, max_value=10**18 - 1))
def test_round_trip(number: int) -> None:
    assert parse_whole_number(str(number)) == number


def test_printable_ascii() -> None:
    assert is_printable_ascii("hello world ~")
    assert is_printable_ascii("")
    for bad in ("tab\t", "nul\0", "é", "\x7f", "line\n"):
        assert not is_printable_ascii(bad)


def test_result_words_say_the_winners_score_first() -> None:
    def who(seat: int) -> str:
        return "ABCD"[seat]

    assert result_words(who, 2, [1], [7, 41]) == "B wins 41-7"  # not the loser's store first
    assert result_words(who, 2, [0], [41, 7]) == "A wins 41-7"
    assert result_words(who, 4, [2], [12, 20, 3, 9]) == "C wins 3-12-20-9"
    assert result_words(who, 4, [3, 1], [12, 5, 30, 5]) == "B and D win 5-5-12-30"
    assert result_words(who, 2, [1], [0, 1]) == "B wins"  # a win's points are not a score
    assert result_words(who, 2, [0, 1], [24, 24]) == "a draw"
    assert result_words(who, 2, [1], [3, 9], fault="on time") == "B wins 9-3 on time"
