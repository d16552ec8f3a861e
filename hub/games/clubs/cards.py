"""Cards, hands and deck files for clubs (pure, standard library only).

A card is an ``int`` from 0 to 51: ``suit * 13 + rank`` with suits in the order S, C, D, H
and ranks 2..A as 0..12. Plain ints make the natural order the order in which hands are
printed (S, C, D, H, then rank), cost nothing to copy, hash or compare, and keep ``clubber``
free of any import beyond the standard library (it must start in a few milliseconds).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

Card = int

RANKS = "23456789TJQKA"
SUITS = "SCDH"
SPADES, CLUBS, DIAMONDS, HEARTS = range(4)
DECK_SIZE = 52

CARD_TEXT: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_BY_TEXT: dict[str, Card] = {text: index for index, text in enumerate(CARD_TEXT)}
TWO_OF_DIAMONDS: Card = _BY_TEXT["2D"]


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank


def suit_of(card: Card) -> int:
    return card // 13


def rank_of(card: Card) -> int:
    return card % 13


def parse_card(text: str) -> Card | None:
    """The card written as ``text`` (exactly two characters, e.g. ``TS``), else None."""
    return _BY_TEXT.get(text)


def card_text(card: Card) -> str:
    return CARD_TEXT[card]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards comma separated, in the order given."""
    return ",".join([CARD_TEXT[card] for card in cards])


def format_hand(cards: Iterable[Card]) -> str:
    """A hand as the programs print it: sorted by suit S, C, D, H then rank."""
    return format_cards(sorted(cards))


def parse_card_list(text: str) -> list[Card] | None:
    """Comma-separated cards with no spaces (``2S,3C``), else None. An empty text is no cards."""
    if not text:
        return []
    cards = []
    for part in text.split(","):
        card = _BY_TEXT.get(part)
        if card is None:
            return None
        cards.append(card)
    return cards


def hand_size(players: int) -> int:
    """Cards dealt to each player: 26, 17 or 13 (with 3 players the 2D is left out)."""
    return DECK_SIZE // players


def deal(deck: Sequence[Card], players: int) -> list[list[Card]]:
    """Deal ``deck`` in file order: card i to player i mod N, starting with A.

    With 3 players the first 2D is removed first. A deck without a 2D (decks are not
    checked for missing cards) loses its last card instead, so every hand still has 17.
    Each hand is returned sorted.
    """
    cards = list(deck)
    if players == 3:
        if TWO_OF_DIAMONDS in cards:
            cards.remove(TWO_OF_DIAMONDS)
        else:
            cards.pop()
    return [sorted(cards[seat::players]) for seat in range(players)]


class DeckError(ValueError):
    """The deck file's contents are not valid (``Error reading deck``)."""


def parse_deck_file(text: str) -> list[tuple[Card, ...]]:
    """Every deck of a deck file, in order. Raises `DeckError` on any fault.

    Decks are separated by lines holding a single ``.``; a deck is lines of comma-separated
    cards; empty (or all-space) lines and lines beginning with ``#`` are skipped; a comma at
    the end of a line is optional; spaces around a card are ignored. Each deck must have
    exactly 52 valid cards (duplicates are allowed). A file with no deck, an empty deck
    (two separators in a row, a leading separator) or a trailing ``.`` is invalid.
    """
    decks: list[tuple[Card, ...]] = []
    current: list[Card] = []
    separator_pending = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if line.startswith("#"):
            continue
        stripped = line.strip(" \t")
        if not stripped:
            continue
        if stripped == ".":
            _finish_deck(decks, current, number)
            current = []
            separator_pending = True
            continue
        separator_pending = False
        parts = stripped.split(",")
        if parts[-1].strip(" \t") == "":
            parts.pop()
        for part in parts:
            card = _BY_TEXT.get(part.strip(" \t"))
            if card is None:
                raise DeckError(f"line {number}: {part.strip()!r} is not a card")
            current.append(card)
            if len(current) > DECK_SIZE:
                raise DeckError(f"line {number}: deck {len(decks) + 1} has more than 52 cards")
    if separator_pending:
        raise DeckError("the file ends with '.' and no deck after it")
    _finish_deck(decks, current, None)
    return decks


def _finish_deck(decks: list[tuple[Card, ...]], current: list[Card], number: int | None) -> None:
    if len(current) != DECK_SIZE:
        where = f"line {number}" if number is not None else "end of file"
        raise DeckError(f"{where}: deck {len(decks) + 1} has {len(current)} cards, not 52")
    decks.append(tuple(current))
