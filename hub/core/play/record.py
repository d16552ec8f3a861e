"""A game's record as the match loop keeps it: the first moves of a game played on by another
match (`History`, from `hub.core.play.match.Match.history`) and the lazily made `GameRecord` of a
finished game (`RecordMaker`: the state views are made, and hub.core.model.events imported, only
when someone asks for the record).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from hub.core.model.referee import Termination
from hub.core.model.values import JSON

if TYPE_CHECKING:
    from hub.core.model.events import GameRecord

S = TypeVar("S")
M = TypeVar("M")

# Plain classes with __slots__, like the loop's vocabulary (hub.core.play.vocabulary): no attrs
# class to build at import.

NO_VIEW: Any = object()
"""In the moves noted for the record: no state view made yet (nobody listened to that move)."""


class History(Generic[S, M]):
    """A game's first moves, for a `Match` that plays the game on (``Match(..., history=)``):
    its first state (and that state's view, or `NO_VIEW`), when it began (Unix time), and
    per move the seat and move, and what the record keeps (seat, text, seconds, state after,
    its view or `NO_VIEW`). Take one with `Match.history`; ``state`` is where play resumes."""

    __slots__ = ("first_view", "initial", "moves", "recorded", "started_at")

    def __init__(
        self,
        initial: S,
        first_view: JSON,
        started_at: float,
        moves: Sequence[tuple[int, M]],
        recorded: Sequence[tuple[int, str, float, S, JSON]],
    ) -> None:
        self.initial = initial
        self.first_view = first_view
        self.started_at = started_at
        self.moves = list(moves)
        self.recorded = list(recorded)

    @property
    def state(self) -> S:
        """The state after the last move (the first state if there is none)."""
        return self.recorded[-1][3] if self.recorded else self.initial

    def thinking(self, seats: int) -> list[float]:
        """Seconds each seat spent on these moves."""
        used = [0.0] * seats
        for seat, _text, elapsed, _after, _view in self.recorded:
            used[seat] += elapsed
        return used


class RecordMaker:
    """What a finished game's `GameRecord` is made of, and the making, done when the record
    is first asked for: each state view (unless an event made it already) and the record's
    classes (hub.core.model.events, imported only then)."""

    __slots__ = ("fault", "fields", "initial", "recorded", "state_view")

    def __init__(
        self,
        fields: dict[str, Any],
        fault: tuple[int, Termination, str, str | None] | None,
        initial: tuple[Any, JSON],
        recorded: list[tuple[int, str, float, Any, JSON]],
        state_view: Callable[[Any], JSON],
    ) -> None:
        self.fields = fields
        self.fault = fault
        self.initial = initial
        self.recorded = recorded
        self.state_view = state_view

    def reveal(self, record_view: Callable[[Any], JSON]) -> None:
        """Make every view of the record with ``record_view``, none kept from the events."""
        self.state_view = record_view
        self.initial = (self.initial[0], NO_VIEW)
        self.recorded = [
            (seat, text, elapsed, after, NO_VIEW) for seat, text, elapsed, after, _ in self.recorded
        ]

    def __call__(self) -> GameRecord:
        from hub.core.model.events import FaultInfo, GameRecord, RecordedMove

        state_view = self.state_view
        moves = [
            RecordedMove(seat, text, elapsed, state_view(after) if view is NO_VIEW else view)
            for seat, text, elapsed, after, view in self.recorded
        ]
        state, first = self.initial
        if first is NO_VIEW:
            first = state_view(state)
        return GameRecord(
            **self.fields,
            initial_state=first,
            moves=moves,
            final_state=moves[-1].state if moves else first,
            fault=None if self.fault is None else FaultInfo(*self.fault),
        )
