"""The standard player's strategy (clubs.md), as a pure function. Standard library only."""

from __future__ import annotations

from hub.games.clubs.cards import CLUBS, DIAMONDS, HEARTS, SPADES, Card, make_card, suit_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

LEAD_ORDER = (DIAMONDS, HEARTS, SPADES, CLUBS)
DISCARD_ORDER_LAST = (HEARTS, DIAMONDS, CLUBS, SPADES)
DISCARD_ORDER_OTHER = (CLUBS, DIAMONDS, HEARTS, SPADES)


def lowest_unplayed_club(played: Collection[Card]) -> Card | None:
    """The lowest club that has not been played this round (None once all 13 have)."""
    for rank in range(13):
        club = make_card(rank, CLUBS)
        if club not in played:
            return club
    return None


def choose_card(
    hand: Sequence[Card], trick: Sequence[Card], players: int, played: Collection[Card]
) -> Card:
    """The card the standard player plays.

    ``hand`` is the player's cards (any order, not empty); ``trick`` the cards already played
    in this trick, leader first; ``played`` every card played this round so far.
    """
    if not hand:
        raise ValueError("cannot choose from an empty hand")
    if not trick:
        club = lowest_unplayed_club(played)
        if club is not None and club in hand:
            return club
        return _pick(hand, LEAD_ORDER, lowest=True)
    led = suit_of(trick[0])
    following = [card for card in hand if suit_of(card) == led]
    if following:
        return min(following)
    last = len(trick) == players - 1
    return _pick(hand, DISCARD_ORDER_LAST if last else DISCARD_ORDER_OTHER, lowest=False)


def _pick(hand: Sequence[Card], order: Sequence[int], *, lowest: bool) -> Card:
    for suit in order:
        cards = [card for card in hand if suit_of(card) == suit]
        if cards:
            return min(cards) if lowest else max(cards)
    raise AssertionError("a non-empty hand holds some suit")  # pragma: no cover
