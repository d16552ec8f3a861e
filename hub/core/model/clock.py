"""Time controls and per-seat clocks, in seconds of trio's clock (so tests run on a virtual one).

A `TimeControl` is a frozen value: a per-move limit (Kalah's ``--time-ms``), a game clock
of ``base`` seconds plus ``increment`` after every move (chess's "5+0.1"), both, or no
limit at all. A `SeatClock` applies one to one seat; `Clocks` holds one per seat and is
started and stopped only by the match loop. Nothing here sleeps or reads a clock itself:
every method takes ``now``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import attrs


def _positive_or_none(
    _instance: object, attribute: attrs.Attribute[float | None], value: float | None
) -> None:
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{attribute.name} must be a positive number of seconds, not {value!r}")


def _not_negative(_instance: object, _attribute: attrs.Attribute[float], value: float) -> None:
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"increment must be zero or more seconds, not {value!r}")


@attrs.frozen
class TimeControl:
    """How long a seat may think: ``per_move`` seconds for each move, and/or a game clock of
    ``base`` seconds to which ``increment`` is added after each move. All None: no limit."""

    per_move: float | None = attrs.field(default=None, validator=_positive_or_none)
    base: float | None = attrs.field(default=None, validator=_positive_or_none)
    increment: float = attrs.field(default=0.0, validator=_not_negative)

    @classmethod
    def per_move_ms(cls, milliseconds: int) -> TimeControl:
        """A limit for each move in whole milliseconds; 0 means no limit (Kalah's rule)."""
        if milliseconds < 0:
            raise ValueError("a time limit cannot be negative")
        return cls(per_move=milliseconds / 1000) if milliseconds else cls()

    @classmethod
    def fischer(cls, base: float, increment: float = 0.0) -> TimeControl:
        return cls(base=base, increment=increment)

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``none``; ``200ms`` (per move); ``5s`` (per move); ``300+2`` / ``60`` (a game clock
        of base seconds plus increment). Raises `ValueError` with a readable message."""
        spec = text.strip().lower()
        if spec in ("", "none", "0", "inf", "unlimited"):
            return cls()
        if match := re.fullmatch(r"(\d{1,9})ms", spec):
            return cls.per_move_ms(int(match[1]))
        if match := re.fullmatch(r"(\d{1,6}(?:\.\d{1,3})?)s", spec):
            return cls(per_move=float(match[1]))
        if match := re.fullmatch(r"(\d{1,6}(?:\.\d{1,3})?)(?:\+(\d{1,6}(?:\.\d{1,3})?))?", spec):
            return cls(base=float(match[1]), increment=float(match[2] or 0))
        raise ValueError(
            f"bad time control {text!r}: use none, 200ms or 2s per move, or BASE+INC seconds"
        )

    @property
    def limited(self) -> bool:
        return self.per_move is not None or self.base is not None

    def describe(self) -> str:
        """The inverse of `parse` (for records, progress lines and the web view)."""
        parts = []
        if self.base is not None:
            parts.append(f"{_number(self.base)}+{_number(self.increment)}")
        if self.per_move is not None:
            ms = self.per_move * 1000
            parts.append(f"{round(ms)}ms" if ms == round(ms) else f"{_number(self.per_move)}s")
        return " and ".join(parts) or "none"


def _number(value: float) -> str:
    return f"{value:g}"


# SeatClock and Clocks are the loop's machinery, plain classes with __slots__: an attrs
# class costs about 0.3 ms to build at import, and every program that plays a game
# imports these (see hub/core/play/match.py).


class SeatClock:
    """One seat's clock under ``control``. ``remaining`` is the game clock (None without
    one); ``used`` the seconds this seat has thought in the whole game; ``deadline`` when the
    running turn's time is up (inf: never, or not running)."""

    __slots__ = ("control", "deadline", "remaining", "started_at", "used")

    def __init__(self, control: TimeControl, remaining: float | None = None) -> None:
        self.control = control
        self.remaining = control.base if remaining is None else remaining
        self.started_at: float | None = None
        self.used = 0.0
        self.deadline = math.inf

    def __repr__(self) -> str:
        return f"SeatClock({self.control!r}, remaining={self.remaining!r}, used={self.used!r})"

    @property
    def running(self) -> bool:
        return self.started_at is not None

    def start(self, now: float) -> float:
        """Start the turn at ``now``; returns its deadline (``math.inf`` for no limit)."""
        self.started_at = now
        deadline = math.inf
        if self.control.per_move is not None:
            deadline = now + self.control.per_move
        if self.remaining is not None:
            deadline = min(deadline, now + self.remaining)
        self.deadline = deadline
        return deadline

    def restart(self, now: float) -> float:
        """Start the running turn again at ``now`` if that is later (the player was told of
        it only then: `hub.core.play.vocabulary.Turn.told`): the time left is unchanged, the
        deadline moves as far. Returns the deadline."""
        if self.started_at is not None and now > self.started_at:
            shift = now - self.started_at
            self.started_at = now
            self.deadline += shift
        return self.deadline

    def began(self, at: float) -> float:
        """The running turn began at ``at``, before the loop started it (a player that was
        told of its turn early: `hub.core.play.vocabulary.Turn.began`): the time left is
        unchanged, the deadline moves back as far. Returns the deadline."""
        if self.started_at is not None and at < self.started_at:
            shift = self.started_at - at
            self.started_at = at
            self.deadline -= shift
        return self.deadline

    def after(self, now: float) -> float | None:
        """The game clock the running turn would leave if it stopped at ``now`` (the
        increment added), without stopping it; None without a game clock."""
        if self.remaining is None:
            return None
        started = self.started_at if self.started_at is not None else now
        return max(0.0, self.remaining - max(0.0, now - started)) + self.control.increment

    def stop(self, now: float) -> float:
        """Stop the turn at ``now``: the seconds it took (the increment is added after it)."""
        if self.started_at is None:
            return 0.0
        elapsed = max(0.0, now - self.started_at)
        self.remaining = self.after(now)  # (None stays None)
        self.started_at = None
        self.deadline = math.inf
        self.used += elapsed
        return elapsed

    def left(self, now: float) -> float | None:
        """Seconds left for the running turn (or the game clock when stopped); None: no limit."""
        if self.started_at is not None and self.deadline != math.inf:
            return max(0.0, self.deadline - now)
        if self.remaining is not None:
            return self.remaining
        return self.control.per_move


class Clocks:
    """One `SeatClock` per seat; only the match loop starts and stops them."""

    __slots__ = ("seats",)

    def __init__(self, seats: list[SeatClock]) -> None:
        self.seats = seats

    @classmethod
    def of(cls, controls: TimeControl | Sequence[TimeControl], seats: int) -> Clocks:
        if isinstance(controls, TimeControl):
            controls = [controls] * seats
        if len(controls) != seats:
            raise ValueError(f"{len(controls)} time controls for {seats} seats")
        return cls([SeatClock(control) for control in controls])

    def __getitem__(self, seat: int) -> SeatClock:
        return self.seats[seat]

    def start(self, seat: int, now: float) -> float:
        return self.seats[seat].start(now)

    def stop(self, seat: int, now: float) -> float:
        return self.seats[seat].stop(now)

    def left(self, now: float) -> tuple[float | None, ...]:
        """Each seat's time left at ``now`` (None: no limit), for events and displays."""
        return tuple([clock.left(now) for clock in self.seats])  # (a list: no generator)

    @property
    def controls(self) -> tuple[TimeControl, ...]:
        return tuple(clock.control for clock in self.seats)


# -- how long a built-in player thinks ------------------------------------------------------

THINK_SHARE = 0.5
"""`think_budget`: the share of the time to the deadline a built-in player plans to spend."""
THINK_MARGIN = 0.010
"""`think_budget`: seconds kept back from every budget (the hand-over to the loop)."""
MOVES_TO_GO = 30
"""`think_budget`: with a game clock and no better estimate, the moves its time is shared over."""
INCREMENT_SHARE = 0.75
"""`think_budget`: the share of the increment a move may spend besides its share of the clock."""
HARD_SHARE, HARD_MIN, HARD_MAX = 0.3, 0.003, 0.100
"""`hard_margin`: a seat's hard stop comes this share of the time left before the deadline,
at least `HARD_MIN` and at most `HARD_MAX` seconds."""


def think_budget(
    left: float,
    game_left: float | None = None,
    increment: float = 0.0,
    *,
    moves_to_go: int = MOVES_TO_GO,
    share: float = THINK_SHARE,
    margin: float = THINK_MARGIN,
) -> float | None:
    """Seconds a built-in player plans to think (pure; None: no limit at all), with ``left``
    seconds to the turn's deadline (``inf``: none), ``game_left`` on its game clock (None: a
    limit per move only), ``increment`` added after the move, and ``moves_to_go`` moves to
    share the game clock over (the game's estimate, or `MOVES_TO_GO`).

    A per-move limit: ``share`` of what is left. A game clock: its share for this move
    (``game_left / moves_to_go`` plus `INCREMENT_SHARE` of the increment), never more than
    ``share`` of what is left. Less ``margin``, never below zero. The rest of the time is the
    margin for a machine busy with other work; `hard_margin` is the stop behind it."""
    if not math.isfinite(left):
        return None
    budget = left * share
    if game_left is not None:
        budget = min(budget, game_left / max(1, moves_to_go) + increment * INCREMENT_SHARE)
    return max(0.0, budget - margin)


def hard_margin(left: float) -> float:
    """Seconds before a turn's deadline at which a built-in player's seat answers without
    its search if the search has not answered (30% of the ``left`` seconds, between
    `HARD_MIN` and `HARD_MAX`): what a worker thread's own look at the clock cannot promise
    on a busy machine, where the thread may not get to run."""
    return min(HARD_MAX, max(HARD_MIN, left * HARD_SHARE))
