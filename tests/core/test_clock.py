"""TimeControl values and per-seat clocks: exact arithmetic, parse/describe round trips."""

from __future__ import annotations

import contextlib
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.core.model.clock import Clocks, SeatClock, TimeControl


def test_per_move_limit_sets_a_deadline_from_the_start() -> None:
    clock = SeatClock(TimeControl.per_move_ms(5000))
    assert clock.start(10.0) == 15.0
    assert clock.left(12.5) == 2.5
    assert clock.stop(12.5) == 2.5
    assert clock.start(20.0) == 25.0  # every move gets the whole limit again
    assert clock.used == 2.5


def test_zero_milliseconds_is_no_limit() -> None:
    control = TimeControl.per_move_ms(0)
    assert not control.limited
    clock = SeatClock(control)
    assert clock.start(3.0) == math.inf
    assert clock.left(100.0) is None


def test_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError):
        TimeControl.per_move_ms(-1)
    with pytest.raises(ValueError):
        TimeControl(base=0)
    with pytest.raises(ValueError):
        TimeControl(base=10, increment=-1)


def test_game_clock_spends_and_adds_the_increment_after_each_move() -> None:
    clock = SeatClock(TimeControl.fischer(60, 2))
    assert clock.start(0.0) == 60.0
    assert clock.stop(10.0) == 10.0
    assert clock.remaining == 52.0  # 60 - 10 + 2
    assert clock.start(100.0) == 152.0
    assert clock.stop(160.0) == 60.0
    assert clock.remaining == 2.0  # never below zero before the increment


def test_both_limits_take_the_earlier_deadline() -> None:
    clock = SeatClock(TimeControl(per_move=5, base=3))
    assert clock.start(0.0) == 3.0
    clock.stop(1.0)
    assert clock.start(1.0) == 3.0  # 2 s of game clock left, less than the 5 s per move


def test_restart_moves_the_start_and_the_deadline_never_the_time_left() -> None:
    clock = SeatClock(TimeControl(per_move=5, base=3))
    assert clock.start(10.0) == 13.0
    assert clock.restart(10.5) == 13.5  # told at 10.5: the same 3 s from then
    assert clock.restart(10.2) == 13.5  # never earlier
    assert clock.left(11.5) == 2.0
    assert clock.stop(11.5) == 1.0  # what it took since it was told
    assert clock.remaining == 2.0
    assert clock.restart(20.0) == math.inf  # no turn running: nothing moves


def test_began_moves_the_start_back_and_the_deadline_with_it() -> None:
    clock = SeatClock(TimeControl(base=3))
    assert clock.start(10.0) == 13.0
    assert clock.began(9.5) == 12.5  # told at 9.5, before the loop started it
    assert clock.began(9.8) == 12.5  # never later
    assert clock.stop(11.5) == 2.0  # what it took since it was told
    assert clock.remaining == 1.0
    assert clock.began(5.0) == math.inf  # no turn running: nothing moves


def test_after_is_the_game_clock_a_stop_would_leave_without_stopping() -> None:
    clock = SeatClock(TimeControl(base=3, increment=0.5))
    clock.start(10.0)
    assert clock.after(11.25) == 2.25  # 3 - 1.25 + 0.5
    assert clock.running and clock.remaining == 3.0
    assert clock.after(20.0) == 0.5  # flagged: nothing left but the increment
    assert clock.stop(11.25) == 1.25 and clock.remaining == 2.25  # the same as `after` said
    assert SeatClock(TimeControl(per_move=2)).after(1.0) is None  # no game clock


def test_clocks_per_seat() -> None:
    clocks = Clocks.of([TimeControl.per_move_ms(100), TimeControl()], 2)
    assert clocks.start(0, 1.0) == pytest.approx(1.1)
    assert clocks.start(1, 1.0) == math.inf
    assert clocks.left(1.05) == (pytest.approx(0.05), None)
    with pytest.raises(ValueError, match="1 time controls for 2 seats"):
        Clocks.of([TimeControl()], 2)


@pytest.mark.parametrize(
    ("text", "control", "described"),
    [
        ("none", TimeControl(), "none"),
        ("200ms", TimeControl(per_move=0.2), "200ms"),
        ("0ms", TimeControl(), "none"),
        ("2s", TimeControl(per_move=2.0), "2000ms"),
        ("300+2", TimeControl(base=300, increment=2), "300+2"),
        ("60", TimeControl(base=60), "60+0"),
        ("0.5+0.01", TimeControl(base=0.5, increment=0.01), "0.5+0.01"),
    ],
)
def test_parse_and_describe(text: str, control: TimeControl, described: str) -> None:
    assert TimeControl.parse(text) == control
    assert control.describe() == described
    assert TimeControl.parse(control.describe()) == control


@pytest.mark.parametrize("text", ["fast", "-1", "1+", "+1", "1ms2", "10+-1", "1e9"])
def test_parse_refuses_nonsense_with_a_hint(text: str) -> None:
    with pytest.raises(ValueError, match="BASE\\+INC"):
        TimeControl.parse(text)


@given(st.text(max_size=30))
def test_parse_raises_only_value_error(text: str) -> None:
    with contextlib.suppress(ValueError):  # anything else fails the test
        TimeControl.parse(text)
