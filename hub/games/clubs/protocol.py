"""The clubs wire protocol as pure parse/format functions (standard library only).

Hub to player: ``newround <cards>``, ``newtrick``, ``yourturn``, ``played <card>``,
``trickover``, ``scores <a,b[,c[,d]]>``, ``end``. Player to hub: ``-`` (no newline) once,
then one card per line. Parsers are strict (no extra spaces, exact lengths) and never raise
anything but their declared error.
"""

from __future__ import annotations

from hub.core.io.text import parse_whole_number
from hub.games.clubs.cards import Card, card_text, format_cards, parse_card, parse_card_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

LABELS = "ABCD"
MIN_PLAYERS, MAX_PLAYERS = 2, 4
READY = b"-"
MAX_HUB_LINE = 512
"""Longest line a player accepts (the longest valid one, a 26-card newround, has 86)."""
MAX_PLAY_LINE = 64
"""Longest line the hub reads from a player (a valid one has 2)."""

NEWROUND, NEWTRICK, YOURTURN, PLAYED, TRICKOVER, SCORES, END = (
    "newround", "newtrick", "yourturn", "played", "trickover", "scores", "end",
)  # fmt: skip


class BadClubsMessage(ValueError):
    """A line that is not a valid hub message."""


class HubMessage:
    """One parsed hub message: ``kind`` plus its cards or scores."""

    __slots__ = ("cards", "kind", "scores")

    def __init__(self, kind: str, cards: Sequence[Card] = (), scores: Sequence[int] = ()) -> None:
        self.kind = kind
        self.cards = tuple(cards)
        self.scores = tuple(scores)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HubMessage) and (self.kind, self.cards, self.scores) == (
            other.kind, other.cards, other.scores,
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.kind, self.cards, self.scores))

    def __repr__(self) -> str:
        return f"HubMessage({format_message(self)!r})"


_BARE = {NEWTRICK, YOURTURN, TRICKOVER, END}


def parse_hub_message(line: str) -> HubMessage:
    """Parse one hub line (without its newline); raises `BadClubsMessage`."""
    if line in _BARE:
        return HubMessage(line)
    word, space, argument = line.partition(" ")
    if not space or not argument:
        raise BadClubsMessage(line)
    if word == PLAYED:
        card = parse_card(argument)
        if card is None:
            raise BadClubsMessage(line)
        return HubMessage(PLAYED, (card,))
    if word == NEWROUND:
        cards = parse_card_list(argument)
        if not cards:
            raise BadClubsMessage(line)
        return HubMessage(NEWROUND, cards)
    if word == SCORES:
        scores = [parse_whole_number(part) for part in argument.split(",")]
        if any(score is None for score in scores):
            raise BadClubsMessage(line)
        return HubMessage(SCORES, scores=[score for score in scores if score is not None])
    raise BadClubsMessage(line)


def format_message(message: HubMessage) -> str:
    if message.kind == NEWROUND:
        return newround_line(message.cards)
    if message.kind == PLAYED:
        return played_line(message.cards[0])
    if message.kind == SCORES:
        return scores_line(message.scores)
    return message.kind


def newround_line(hand: Iterable[Card]) -> str:
    """``newround`` with the hand in the order given (the hub sends it sorted)."""
    return f"{NEWROUND} {format_cards(hand)}"


def played_line(card: Card) -> str:
    return f"{PLAYED} {card_text(card)}"


def scores_line(scores: Iterable[int]) -> str:
    return f"{SCORES} {','.join(map(str, scores))}"


def parse_play(line: str) -> Card | None:
    """A player's play: exactly one card, nothing else. None if malformed."""
    return parse_card(line)


def parse_player_args(args: Sequence[str]) -> tuple[int, int]:
    """``clubber N ID`` arguments as (players, seat); raises `PlayerArgsError` with the status."""
    if len(args) != 2:
        raise PlayerArgsError(1, "Usage: player number_of_players myid")
    players = parse_whole_number(args[0])
    if players is None or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise PlayerArgsError(2, "Invalid player count")
    label = args[1]
    if len(label) != 1 or label not in LABELS[:players]:
        raise PlayerArgsError(3, "Invalid player ID")
    return players, LABELS.index(label)


class PlayerArgsError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
