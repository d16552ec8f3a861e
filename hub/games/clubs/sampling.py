"""A clubs state consistent with one seat's view: the general player's sampler.

`sample_state(game, view, seat, rng)` is the `hub.core.play.game.Search` facet's ``sample`` for
clubs: the seat's own hand, the trick, the scores, the leader and the round as the view shows
them; every other hand dealt at random, its size as the view counts it, from the cards the
seat cannot see (the deck less its own hand, the trick and the cards played this round, which
a seat's view lists as ``played``); a player who did not follow the led suit in the trick on
the table holds no card of that suit. The round's deck is made to deal each hand with the
cards its player has played this round (the trick's to who played them, the rest at random
by the counts), so that the sample's view is the view given; later rounds deal from a deck
shuffled by ``rng``. Nothing here reads a state: the view is all it has.
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
    played = _cards(view.get("played", ()))
    seen = set(own) | set(trick) | set(played)
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
    spare = tuple(rng.sample(range(DECK_SIZE), DECK_SIZE))  # the other rounds' deck
    deck = _round_deck(hands, played, trick, leader, rng) if played else spare
    return ClubsState(
        decks=(spare,) * int(view["round"]) + (deck, spare),
        winscore=int(view["winscore"]),
        round=int(view["round"]),
        hands=tuple(hands),
        leader=leader,
        trick=trick,
        scores=tuple(int(score) for score in view["scores"]),
        finished=False,
    )


def _round_deck(
    hands: Sequence[tuple[Card, ...]],
    played: Sequence[Card],
    trick: Sequence[Card],
    leader: int,
    rng: random.Random,
) -> tuple[Card, ...]:
    """A deck whose deal (`hub.games.clubs.cards.deal`) gives each player its hand now and
    the cards it played this round: the trick's to who played them, the others at random,
    as many to each as its hand lacks."""
    players = len(hands)
    dealt = (DECK_SIZE - (players == 3)) // players
    owned: list[list[Card]] = [list(hand) for hand in hands]
    rest = list(played)
    for index, card in enumerate(trick):
        owned[(leader + index) % players].append(card)
        rest.remove(card)
    rng.shuffle(rest)
    for seat in range(players):
        missing = dealt - len(owned[seat])
        owned[seat] += rest[:missing]
        rest = rest[missing:]
    cards = [card for row in zip(*(sorted(hand) for hand in owned), strict=True) for card in row]
    return (*cards, TWO_OF_DIAMONDS) if players == 3 else tuple(cards)
