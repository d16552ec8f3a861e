"""The `Referee` interface every game's rules implement.

A referee is pure: it maps a state and a move to a new state (or raises `IllegalMove`),
says whose turn it is and, at the end, the outcome. It reads no clock, socket or global
random generator, so that rules are testable exhaustively and replayable from a transcript.
States must be immutable values (``attrs.frozen`` or tuples) with ``==`` comparing content.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import attrs

S = TypeVar("S")
M = TypeVar("M")


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow in this state."""


class Termination(enum.Enum):
    """How a game ended: the one vocabulary of results and faults for every game.

    Everything but ``NORMAL`` and ``ABORTED`` names a fault of one seat, which loses.
    """

    NORMAL = "normal"
    """The rules ended the game (scores reached, board full, checkmate, ...)."""
    ILLEGAL_MOVE = "illegal move"
    """A well-formed move the rules do not allow."""
    MALFORMED = "malformed"
    """Garbage: a line that is not a move at all, or an over-long one."""
    TIMEOUT = "timeout"
    """No move before the seat's clock ran out."""
    RESIGNATION = "resignation"
    """The seat gave up (a person typed quit or resign)."""
    DISCONNECT = "disconnect"
    """The seat's peer went away: EOF, a reset connection, a program that exited."""
    ABORTED = "aborted"
    """The host stopped the game (Ctrl-C, the server closing, undo): nobody is at fault."""

    @property
    def is_fault(self) -> bool:
        return self not in (Termination.NORMAL, Termination.ABORTED)


def _tuple_of_ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


def _frozen_ints(value: Iterable[int]) -> frozenset[int]:
    return frozenset(value)


@attrs.frozen
class Outcome:
    """The result of a finished game.

    ``scores`` holds one number per seat (points, seeds, 1/0.5/0 ...); ``winners`` the seats
    that won (several on a tie, none for a game that no seat won).
    """

    scores: tuple[int, ...] = attrs.field(converter=_tuple_of_ints)
    winners: frozenset[int] = attrs.field(converter=_frozen_ints)
    termination: Termination = Termination.NORMAL
    detail: str = ""
    """How the game ended, in words, when the termination alone does not say (``checkmate``,
    ``threefold repetition``, ``adjudicated: 300 plies``); recorded as `GameRecord.detail`."""

    @winners.validator
    def _check_winners(self, _attribute: object, value: frozenset[int]) -> None:
        if any(not 0 <= seat < len(self.scores) for seat in value):
            raise ValueError(f"winners {sorted(value)} outside seats 0..{len(self.scores) - 1}")


class Referee(Protocol[S, M]):
    """The rules of one game, as pure functions over immutable states.

    ``seats`` is fixed for a game; seats are numbered from 0. A finished state has an
    outcome and no seat to move; an unfinished one has a seat to move and at least one legal
    move. Games whose turns involve chance take it from a ``random.Random`` given when the
    initial state is built, never from a global generator.
    """

    def seats(self, state: S) -> int:
        """How many seats (players) the game has."""
        ...

    def to_move(self, state: S) -> int | None:
        """The seat whose move it is, or None once the game is over."""
        ...

    def legal_moves(self, state: S) -> Sequence[M]:
        """Every legal move in ``state``, in a deterministic order (empty once over)."""
        ...

    def candidate_moves(self, state: S) -> Iterable[M]:
        """Well-formed moves, legal or not: a superset of `legal_moves` used to test rejection."""
        ...

    def apply(self, state: S, move: M) -> S:
        """The state after ``move``; raises `IllegalMove` and leaves ``state`` untouched."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The outcome of a finished game, None while it goes on."""
        ...
