"""A tiny game for testing the core: Nim with one pile, take 1-3, taking the last wins.

Its declaration is the required core of `hub.core.play.game.Game` alone (no facets), with no
state view (None), as small as a game can be."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.model.values import JSON
from hub.core.play.game import Game


@attrs.frozen
class NimState:
    pile: int
    mover: int = 0
    last: int | None = None


class Nim(Game[NimState, int]):
    name = "nim"

    def start(self, rng: random.Random) -> NimState:
        return NimState(rng.randint(1, 30))

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

    def view(self, state: NimState, seat: int | None = None) -> JSON:
        return None


def make_nim(rng: random.Random) -> tuple[Nim, NimState]:
    return Nim(), NimState(rng.randint(1, 30))
