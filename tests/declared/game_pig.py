"""Pig, a dice game with rolls during play: roll as often as you like, a 1 loses the turn's
points, hold to bank them; the first to the target wins. The die is the hub's (the chance
facet): a roll is drawn by the match loop and told to everyone once it is rolled."""

from __future__ import annotations

import random
from typing import Any

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Game, Option, Pictures


@attrs.frozen
class Pigs:
    scores: tuple[int, int] = (0, 0)
    total: int = 0  # the turn's points so far
    mover: int = 0
    rolling: bool = False  # the die is in the air: chance acts
    last: int | None = None  # the last face rolled


class Die:
    """The chance facet: a fair die whenever someone rolled."""

    def outcomes(self, state: Pigs) -> list[tuple[str, float]] | None:
        return [(str(face), 1 / 6) for face in range(1, 7)] if state.rolling else None

    def told(self, state: Pigs, outcome: str, seat: int | None) -> str | None:
        return None  # a die is seen by all


class PigPictures(Pictures):
    def text(self, view: Any, names: Any = ()) -> str:
        return f"scores {view['scores']}, this turn {view['turn_total']}, rolled {view['last']}"


class Pig(Game[Pigs, str]):
    name = "pig"
    summary = "Pig: roll or hold, a 1 loses the turn"
    options = (Option("target", 30, "points to win", low=2, high=1000),)
    chance = Die()
    pictures = PigPictures()

    def start(self, rng: random.Random) -> Pigs:
        return Pigs()

    def won(self, state: Pigs) -> bool:
        return max(state.scores) >= int(self.settings["target"])

    def to_move(self, state: Pigs) -> int | None:
        return None if state.rolling or self.won(state) else state.mover

    def legal_moves(self, state: Pigs) -> list[str]:
        return [] if self.to_move(state) is None else ["roll", "hold"]

    def apply(self, state: Pigs, move: str) -> Pigs:
        if state.rolling and move in {"1", "2", "3", "4", "5", "6"}:
            face = int(move)
            if face == 1:
                return attrs.evolve(state, total=0, mover=1 - state.mover, rolling=False, last=1)
            return attrs.evolve(state, total=state.total + face, rolling=False, last=face)
        if move not in self.legal_moves(state):
            raise IllegalMove(f"{move!r} is not roll or hold here")
        if move == "roll":
            return attrs.evolve(state, rolling=True)
        scores = list(state.scores)
        scores[state.mover] += state.total
        return Pigs((scores[0], scores[1]), 0, 1 - state.mover)

    def outcome(self, state: Pigs) -> Outcome | None:
        if not self.won(state):
            return None
        return Outcome(state.scores, [state.scores.index(max(state.scores))])

    def view(self, state: Pigs, seat: int | None = None) -> dict[str, Any]:
        return {"scores": list(state.scores), "turn_total": state.total, "last": state.last}
