"""Chance and simultaneous moves: two optional facets of a game, and what the loop needs.

A game gives them as attributes of its declaration (`hub.core.play.game.Game.chance` and
`Game.simultaneous`, None by default); the match loop reads them once per game, so a game
without them does no extra work per move.

**Chance** (`Chance`), like OpenSpiel's chance nodes: a state where ``chance.outcomes(state)``
is not None is a *chance point* (its `to_move` is None, its `outcome` None too). Its
outcomes are moves, each with a probability; the match loop draws one with the game's own
generator (`new_rng`: seeded from ``os.urandom``, never shown while the game runs), applies
it with the game's ``apply`` and records it as a move of its own, by the seat `CHANCE`
(-1). Every seat and spectator is told the outcome as ``chance.told(state, outcome, seat)``
says (``seat`` None: a spectator): a die is told to all, a card drawn into a hand only to
its owner (``a card`` to the others). The record, made when the game is over, keeps every
outcome's full text, so a replay (`hub.core.play.game.replay_moves`) is exact without the seed.

**Simultaneous moves** (`Simultaneous`): where ``simultaneous.movers(state)`` names two or
more seats, they choose at once, each on its own clock, each asked with
``simultaneous.for_seat(state, seat)``: the state as that seat's own turn (its `to_move` is
that seat), which holds nothing of the others' choices. The loop checks each move against
that state, and once every mover's move is in, applies them to the real state in the
order of ``movers`` (the game's ``apply`` keeps the earlier ones pending, hidden from
every view) and only then announces them, one `MoveMade` each. So every seat kind (a bot,
a person at the terminal or in a browser, the built-in players) plays a simultaneous turn
as an ordinary one, and none learns another's choice before its own is in.

This module imports only the standard library: the loop imports it once per game that
has a facet.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

S = TypeVar("S")
M = TypeVar("M")
S_contra = TypeVar("S_contra", contravariant=True)

CHANCE = -1
"""The seat of a chance outcome in `hub.core.play.vocabulary.Moved`,
`hub.core.model.events.MoveMade` and `hub.core.model.events.RecordedMove` (OpenSpiel's
``kChancePlayerId``)."""


class Chance(Protocol[S_contra, M]):
    """A game's chance facet: where chance acts, and what each seat is told of it."""

    def outcomes(self, state: S_contra) -> Sequence[tuple[M, float]] | None:
        """None: ``state`` is not a chance point; else its outcomes with their probabilities
        (positive; the loop normalises them)."""
        ...

    def told(self, state: S_contra, outcome: M, seat: int | None) -> str | None:
        """What ``seat`` (None: a spectator, the web view) is told of ``outcome`` drawn at
        ``state``: its text, other words (``a card``), or None for the outcome's own text
        (public: a die roll)."""
        ...


class Simultaneous(Protocol[S_contra]):
    """A game's simultaneous-move facet."""

    def movers(self, state: S_contra) -> Sequence[int]:
        """The seats that choose at once at ``state`` (fewer than two: an ordinary turn)."""
        ...

    def for_seat(self, state: S_contra, seat: int) -> Any:
        """``state`` as ``seat``'s own turn: `to_move` is ``seat``, `legal_moves` are its
        moves, and nothing of the other movers' choices is in it."""
        ...


def new_rng() -> random.Random:
    """A game's generator of chance, seeded secretly (128 bits from ``os.urandom``)."""
    return random.Random(os.urandom(16))


def draw(rng: random.Random, outcomes: Sequence[tuple[M, float]]) -> M:
    """One outcome, drawn with ``rng`` by the probabilities given."""
    if not outcomes:
        raise ValueError("a chance point without outcomes")
    moves = [move for move, _ in outcomes]
    weights = [weight for _, weight in outcomes]
    return rng.choices(moves, weights)[0]


def told_texts(
    chance: Chance[S, M], state: S, outcome: M, text: str, seats: int
) -> tuple[str, ...] | None:
    """What each seat and then a spectator are told of ``outcome`` (its text ``text``), or
    None when all are told ``text``."""
    told = [chance.told(state, outcome, seat) for seat in (*range(seats), None)]
    if all(words is None or words == text for words in told):
        return None
    return tuple(text if words is None else words for words in told)
