"""hub.testing.check_game accepts a correct referee and catches each kind of broken one."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs
import pytest

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Game
from hub.testing import GameConformanceError, check_game
from tests.core.toys import Nim, NimState, make_nim


def test_correct_referee_passes() -> None:
    outcomes = check_game(make_nim, playouts=30)
    assert len(outcomes) == 30
    assert all(len(outcome.winners) == 1 for outcome in outcomes)


class AcceptsTooMuch(Nim):
    def apply(self, state: NimState, move: int) -> NimState:
        if move < 1 or move > state.pile:
            raise IllegalMove("no")
        return NimState(state.pile - move, 1 - state.mover, state.mover)


class NeverEnds(Nim):
    def apply(self, state: NimState, move: int) -> NimState:
        after = super().apply(state, move)
        return attrs.evolve(after, pile=max(after.pile, 1))


class Random(Nim):
    def legal_moves(self, state: NimState) -> Sequence[int]:
        moves = list(super().legal_moves(state))
        random.shuffle(moves)
        return moves


@attrs.define
class MutableState:
    pile: int
    mover: int = 0
    last: int | None = None


class Mutates(Game[MutableState, int]):
    def view(self, state: MutableState, seat: int | None = None) -> dict[str, int]:
        return {"pile": state.pile}

    def seats(self, state: MutableState) -> int:
        return 2

    def to_move(self, state: MutableState) -> int | None:
        return None if state.pile == 0 else state.mover

    def legal_moves(self, state: MutableState) -> Sequence[int]:
        return [take for take in (1, 2, 3) if take <= state.pile]

    def candidate_moves(self, state: MutableState) -> Sequence[int]:
        return [1, 2, 3, 4]

    def apply(self, state: MutableState, move: int) -> MutableState:
        if move not in self.legal_moves(state):
            raise IllegalMove("no")
        state.pile -= move  # the bug: changes the state it was given
        state.last, state.mover = state.mover, 1 - state.mover
        return state

    def outcome(self, state: MutableState) -> Outcome | None:
        return None if state.pile else Outcome([0, 0], [state.last or 0])


class WrongOutcome(Nim):
    def outcome(self, state: NimState) -> Outcome | None:
        return None if state.pile else Outcome([1, 0, 0], [0])


class OutcomeTooEarly(Nim):
    def outcome(self, state: NimState) -> Outcome | None:
        return Outcome([0, 0], [])


@pytest.mark.parametrize(
    ("referee", "message"),
    [
        (AcceptsTooMuch(), "was accepted"),
        (NeverEnds(), "no outcome after"),
        (Random(), "not deterministic"),
        (Mutates(), "changed the state"),
        (WrongOutcome(), "scores for 2 seats"),
        (OutcomeTooEarly(), "an outcome while a seat is still to move"),
    ],
)
def test_broken_referees_are_caught(referee: object, message: str) -> None:
    def make(rng: random.Random) -> tuple[object, object]:
        pile = rng.randint(5, 30)
        state = MutableState(pile) if isinstance(referee, Mutates) else NimState(pile)
        return referee, state

    with pytest.raises(GameConformanceError, match=message):
        check_game(make, playouts=10, max_plies=200)  # type: ignore[arg-type]
