"""The vocabulary of a game's rules: `IllegalMove`, `Outcome` and `Termination`.

The rules themselves are the required core of a game's declaration (`hub.core.play.game.Game`):
pure functions that map a state and a move to a new state (or raise `IllegalMove`), say
whose turn it is and, at the end, the outcome. They read no clock, socket or global random
generator, so that rules are testable exhaustively and replayable from a transcript. States
must be immutable values (``attrs.frozen`` or tuples) with ``==`` comparing content.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import attrs


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


ADJUDICATED = "adjudicated: "
"""How an `Outcome.detail` begins when an arbiter, not the rules, decided the game (a ply
cap, an engine's resign or draw score): ``adjudicated: 300 plies``. `adjudicated` reads it."""


def adjudicated(detail: str) -> bool:
    """Whether a game's detail says it was adjudicated (`ADJUDICATED`)."""
    return detail.startswith(ADJUDICATED)


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
