"""A clubs state consistent with one seat's view: the general player's sampler.

`sample_state(game, view, seat, rng)` is the `hub.core.mcts.Search` facet's ``sample`` for
clubs: the seat's own hand, the trick, the scores, the leader and the round as the view shows
them; every other hand dealt at random, its size as the view counts it, from the cards the
seat cannot see (the deck less its own hand and the trick: the cards of earlier tricks are not
in the view, so they are among the unseen); a player who did not follow the led suit in the
trick on the table holds no card of that suit. Later rounds deal from a deck shuffled by
``rng``. Nothing here reads a state: the view is all it has.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from hub.games.clubs.cards import DECK_SIZE, TWO_OF_DIAMONDS, Card, parse_card, suit_of
from hub.games.clubs.rules import ClubsState

TRIES = 8
"""Random deals tried before the voids are given up (never with a consistent view)."""


def _cards(texts: Sequence[str]) -> list[Card]:
    cards = [parse_card(text) for text in texts]
    return [card for card in cards if card is not None]


def voids(trick: Sequence[Card], leader: int, players: int) -> dict[int, int]:
    """The seats that showed void in the trick's led suit: {seat: suit}."""
    if not trick:
        return {}
    led = suit_of(trick[0])
    return {
        (leader + index) % players: led
        for index, card in enumerate(trick)
        if index and suit_of(card) != led
    }


def sample_state(game: Any, view: Any, seat: int, rng: random.Random) -> ClubsState:
    """A state that ``seat``'s ``view`` (`hub.games.clubs.pictures.seat_view`) allows."""
    assert isinstance(view, Mapping)
    players = int(view["players"])
    own = tuple(sorted(_cards(view["hands"][seat] or ())))
    trick = tuple(_cards(view["trick"]))
    counts = [int(count) for count in view["cards"]]
    leader = int(view["leader"])
    seen = set(own) | set(trick)
    unseen = [
        card
        for card in range(DECK_SIZE)
        if card not in seen and not (players == 3 and card == TWO_OF_DIAMONDS)
    ]
    void = voids(trick, leader, players)
    others = sorted((s for s in range(players) if s != seat), key=lambda s: s not in void)
    hands: list[tuple[Card, ...]] = [()] * players
    hands[seat] = own
    for attempt in range(TRIES + 1):
        pool = unseen[:]
        rng.shuffle(pool)
        for other in others:
            lacking = void.get(other) if attempt < TRIES else None
            take = [card for card in pool if suit_of(card) != lacking][: counts[other]]
            if len(take) < counts[other]:
                break
            taken = set(take)
            pool = [card for card in pool if card not in taken]
            hands[other] = tuple(sorted(take))
        else:
            break
    deck = rng.sample(range(DECK_SIZE), DECK_SIZE)
    return ClubsState(
        decks=(tuple(deck),),
        winscore=int(view["winscore"]),
        round=int(view["round"]),
        hands=tuple(hands),
        leader=leader,
        trick=trick,
        scores=tuple(int(score) for score in view["scores"]),
        finished=False,
    )
