"""The rules of clubs (clubs.md, "Rules") as pure functions over an immutable state.

`hub.games.clubs.game.ClubsGame`, the game's one rules object, calls them: `play` plays one
card and, when that card completes the last trick of a round, scores the round and either
ends the game or deals the next round from the next deck (decks cycle). Nothing here does
I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.games.clubs.cards import CLUBS, DECK_SIZE, Card, card_text, deal, suit_of

_TUPLES_ONLY = frozenset({tuple})


def _hands(value: Sequence[Sequence[Card]]) -> tuple[tuple[Card, ...], ...]:
    if type(value) is tuple and set(map(type, value)) <= _TUPLES_ONLY:
        return value  # already tuples (every state the rules build): no Python-level loop
    return tuple(tuple(hand) for hand in value)


def _ints(value: Sequence[int]) -> tuple[int, ...]:
    return value if type(value) is tuple else tuple(value)


@attrs.frozen
class ClubsState:
    """A clubs game between ``len(hands)`` players at one moment."""

    decks: tuple[tuple[Card, ...], ...] = attrs.field(converter=_hands)
    winscore: int
    round: int
    hands: tuple[tuple[Card, ...], ...] = attrs.field(converter=_hands)
    leader: int
    trick: tuple[Card, ...] = attrs.field(converter=_ints)
    scores: tuple[int, ...] = attrs.field(converter=_ints)
    finished: bool = False

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def to_move(self) -> int | None:
        return None if self.finished else (self.leader + len(self.trick)) % len(self.hands)


def new_game(decks: Sequence[Sequence[Card]], players: int, winscore: int) -> ClubsState:
    """The state before the first card: round 0 dealt from the first deck, A to lead."""
    if not 2 <= players <= 4:
        raise ValueError(f"clubs is for 2 to 4 players, not {players}")
    if not decks or any(len(deck) != DECK_SIZE for deck in decks):
        raise ValueError("every deck must have 52 cards")
    if winscore < 1:
        raise ValueError("winscore must be positive")
    return ClubsState(
        decks=decks,
        winscore=winscore,
        round=0,
        hands=deal(decks[0], players),
        leader=0,
        trick=(),
        scores=(0,) * players,
    )


def trick_winner(trick: Sequence[Card], leader: int, players: int) -> int:
    """The seat that wins a complete trick: the first highest card of the led suit."""
    led = suit_of(trick[0])
    best = 0
    for index, card in enumerate(trick):
        if suit_of(card) == led and card > trick[best]:
            best = index
    return (leader + best) % players


def legal_cards(state: ClubsState) -> tuple[Card, ...]:
    """The distinct cards the player to move may play, lowest first."""
    if state.finished:
        return ()
    hand = state.hands[(state.leader + len(state.trick)) % state.players]
    if state.trick:
        led = suit_of(state.trick[0])
        following = [card for card in hand if suit_of(card) == led]
        if following:
            hand = tuple(following)
    return tuple(dict.fromkeys(hand))


def clubs_outcome(state: ClubsState) -> Outcome | None:
    """The outcome of a finished game (None before the end): the lowest score wins."""
    if not state.finished:
        return None
    low = min(state.scores)
    return Outcome(state.scores, [seat for seat, s in enumerate(state.scores) if s == low])


def play(state: ClubsState, card: Card) -> ClubsState:
    """The state after the player to move plays ``card``; raises `IllegalMove`."""
    mover = state.to_move
    if mover is None:
        raise IllegalMove("the game is over")
    hand = state.hands[mover]
    if card not in hand:
        raise IllegalMove(f"{card_text(card)} is not in the hand")
    if state.trick:
        led = suit_of(state.trick[0])
        if suit_of(card) != led and any(suit_of(held) == led for held in hand):
            raise IllegalMove(f"{card_text(card)} does not follow suit")
    index = hand.index(card)
    hands = list(state.hands)
    hands[mover] = hand[:index] + hand[index + 1 :]
    trick = (*state.trick, card)
    players = state.players
    # (the constructor, not attrs.evolve, which inspects the class on every call: this is
    # the referee's step for every card)
    if len(trick) < players:
        return ClubsState(
            state.decks,
            state.winscore,
            state.round,
            tuple(hands),
            state.leader,
            trick,
            state.scores,
        )
    winner = trick_winner(trick, state.leader, players)
    scores = list(state.scores)
    scores[winner] += sum(1 for played in trick if suit_of(played) == CLUBS)
    if hands[0]:
        return ClubsState(
            state.decks, state.winscore, state.round, tuple(hands), winner, (), tuple(scores)
        )
    if max(scores) >= state.winscore:
        return ClubsState(
            state.decks,
            state.winscore,
            state.round,
            tuple(hands),
            winner,
            (),
            tuple(scores),
            finished=True,
        )
    next_round = state.round + 1
    deck = state.decks[next_round % len(state.decks)]
    return ClubsState(
        state.decks, state.winscore, next_round, deal(deck, players), winner, (), tuple(scores)
    )
