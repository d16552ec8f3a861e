"""A tiny game for testing the core: Nim with one pile, take 1-3, taking the last wins."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from hub.core.referee import IllegalMove, Outcome


@attrs.frozen
class NimState:
    pile: int
    mover: int = 0
    last: int | None = None


class Nim:
    def seats(self, state: NimState) -> int:
        return 2

    def to_move(self, state: NimState) -> int | None:
        return None if state.pile == 0 else state.mover

    def legal_moves(self, state: NimState) -> Sequence[int]:
        return [take for take in (1, 2, 3) if take <= state.pile]

    def candidate_moves(self, state: NimState) -> Sequence[int]:
        return [-1, 0, 1, 2, 3, 4, 5]

    def apply(self, state: NimState, move: int) -> NimState:
        if move not in self.legal_moves(state):
            raise IllegalMove(f"cannot take {move} from {state.pile}")
        return NimState(state.pile - move, 1 - state.mover, state.mover)

    def outcome(self, state: NimState) -> Outcome | None:
        if state.pile:
            return None
        assert state.last is not None
        scores = [0, 0]
        scores[state.last] = 1
        return Outcome(scores, [state.last])


def make_nim(rng: random.Random) -> tuple[Nim, NimState]:
    return Nim(), NimState(rng.randint(1, 30))
