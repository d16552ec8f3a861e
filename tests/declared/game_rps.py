"""Rock-Paper-Scissors, both seats choosing at once (the simultaneous facet): the rules take
the choices one after the other, the first kept pending and hidden from every view."""

from __future__ import annotations

import random
from typing import Any

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Ai, Game, Option

BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}


@attrs.frozen
class Rounds:
    scores: tuple[int, int] = (0, 0)
    played: int = 0
    pending: tuple[str | None, str | None] = (None, None)
    mover: int = 0
    last: tuple[str, str] | None = None  # the last round's choices


class Together:  # the simultaneous facet: both choose at the start of every round
    def movers(self, state: Rounds) -> tuple[int, ...]:
        return (0, 1) if state.pending == (None, None) else ()

    def for_seat(self, state: Rounds, seat: int) -> Rounds:
        return attrs.evolve(state, mover=seat)


def cheat(state: Rounds) -> str:
    """The AI: beats the other's pending choice if the state it is given shows one."""
    other = state.pending[1 - state.mover]
    return next((m for m, b in BEATS.items() if b == other), "rock")


class RockPaperScissors(Game[Rounds, str]):
    name = "rps"
    summary = "Rock-Paper-Scissors, both at once"
    options = (Option("rounds", 3, "rounds to play", low=1, high=99),)
    ai = Ai(range(1, 2), lambda game, state, level, seconds, stop: cheat(state))
    simultaneous = Together()

    def start(self, rng: random.Random) -> Rounds:
        return Rounds()

    def to_move(self, state: Rounds) -> int | None:
        return None if state.played >= self.settings["rounds"] else state.mover

    def legal_moves(self, state: Rounds) -> list[str]:
        return [] if self.to_move(state) is None else list(BEATS)

    def apply(self, state: Rounds, move: str) -> Rounds:
        if move not in self.legal_moves(state):
            raise IllegalMove(f"{move!r} is not rock, paper or scissors")
        pending = list(state.pending)
        pending[state.mover] = move
        first, second = pending
        if first is None or second is None:
            return attrs.evolve(state, pending=(first, second), mover=pending.index(None))
        a, b = state.scores
        scores = (a + (BEATS[first] == second), b + (BEATS[second] == first))
        return Rounds(scores, state.played + 1, (None, None), 0, (first, second))

    def outcome(self, state: Rounds) -> Outcome | None:
        if self.to_move(state) is not None:
            return None
        return Outcome(state.scores, [s for s in (0, 1) if state.scores[s] == max(state.scores)])

    def view(self, state: Rounds, seat: int | None = None) -> dict[str, Any]:
        mine = None if seat is None else state.pending[seat]
        return {"scores": list(state.scores), "last": state.last, "mine": mine}
