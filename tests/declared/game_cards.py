"""High Cards: hidden hands and a draw pile (cards 1-9, two dealt each); draw a card or play
one face up; it ends when the mover has played three or cannot move; the higher total wins.
Every card dealt or drawn is chance's, told only to its hand (``a card`` to the others)."""

from __future__ import annotations

import random
from typing import Any

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Game, Hidden


@attrs.frozen
class Table:
    pile: frozenset[int] = frozenset(range(1, 10))
    hands: tuple[tuple[int, ...], ...] = ((), ())
    played: tuple[tuple[int, ...], ...] = ((), ())
    mover: int = 0
    owed: tuple[int, ...] = (0, 1, 0, 1)  # who gets the next cards from the pile (chance)


class Pile:  # the chance facet: a card from the pile whenever one is owed
    def outcomes(self, state: Table) -> list[tuple[str, float]] | None:
        cards = sorted(state.pile) if state.owed else None
        return None if cards is None else [(f"card {card}", 1 / len(cards)) for card in cards]

    def told(self, state: Table, outcome: str, seat: int | None) -> str | None:
        return None if seat == state.owed[0] else "a card"


class HighCards(Game[Table, str]):
    name = "highcards"
    summary = "High Cards: draw unseen or play face up"
    hidden = Hidden(lambda s: {**HighCards().view(s), "hands": [list(h) for h in s.hands]})
    chance = Pile()

    def start(self, rng: random.Random) -> Table:
        return Table()

    def to_move(self, state: Table) -> int | None:
        return None if state.owed or not self.legal_moves(state) else state.mover

    def legal_moves(self, state: Table) -> list[str]:
        if state.owed or len(state.played[state.mover]) >= 3:
            return []
        return ["draw"] * bool(state.pile) + [f"play {c}" for c in state.hands[state.mover]]

    def apply(self, state: Table, move: str) -> Table:
        hands, played, seat = list(state.hands), list(state.played), state.mover
        if state.owed and move.startswith("card ") and int(move[5:]) in state.pile:
            card, to = int(move[5:]), state.owed[0]
            hands[to] = (*hands[to], card)
            return attrs.evolve(
                state, pile=state.pile - {card}, hands=(*hands,), owed=state.owed[1:]
            )
        if move not in self.legal_moves(state):
            raise IllegalMove(f"{move!r} is not allowed")
        if move == "draw":
            return attrs.evolve(state, mover=1 - seat, owed=(seat,))
        card = int(move[5:])
        hands[seat] = tuple(c for c in hands[seat] if c != card)
        played[seat] = (*played[seat], card)
        return attrs.evolve(state, hands=(*hands,), played=(*played,), mover=1 - seat)

    def outcome(self, state: Table) -> Outcome | None:
        if self.to_move(state) is not None or state.owed:
            return None
        totals = [sum(cards) for cards in state.played]
        return Outcome(totals, [s for s in (0, 1) if totals[s] == max(totals)])

    def view(self, state: Table, seat: int | None = None) -> dict[str, Any]:
        hands = [list(h) if s == seat else len(h) for s, h in enumerate(state.hands)]
        return {"pile": len(state.pile), "hands": hands, "played": [list(p) for p in state.played]}
