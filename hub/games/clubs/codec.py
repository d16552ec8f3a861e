"""How clubs players hear the core match loop: its `SeatCodec`, and the settings recorded.

Pure functions over states, cards and lines, no I/O:

* `ClubsCodec` is the hub's side of the clubs.md conversation with one player, for a
  `hub.core.play.seats.LineSeat`. A player's prompt (``newtrick``/``yourturn``) travels with the
  lines of the move before it (or with its ``newround`` at the start), not as a separate
  turn message: each player then gets exactly one write per card, as the hub always sent it,
  and the bytes and their order are the spec's.
* `ClubsSettings`: a game's settings as the self-contained JSON recorded with it (the decks
  themselves, not a file name, so that the game can be replayed anywhere).

The rules, a move's text and the forfeit rule are the declaration's (`ClubsGame`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from hub.core.model.values import JSON
from hub.core.play.seats import BadMoveLine
from hub.core.play.vocabulary import MatchResult, Moved, Start, Turn
from hub.games.clubs.cards import CARD_TEXT, DECK_SIZE, Card, parse_card
from hub.games.clubs.protocol import (
    MAX_PLAY_LINE,
    NEWTRICK,
    TRICKOVER,
    YOURTURN,
    newround_line,
    parse_play,
    played_line,
    scores_line,
)
from hub.games.clubs.rules import ClubsState

GAME = "clubs"
DEFAULT_WINSCORE = 20
DEFAULT_TIME_MS = 10_000
"""Each player's time for one card, in milliseconds, in ``hub match`` (0: no limit)."""


def round_ended(before: ClubsState, after: ClubsState) -> bool:
    """Whether the card that took ``before`` to ``after`` ended a round (or the game)."""
    return after.finished or after.round != before.round


def broadcast_lines(before: ClubsState, card: Card, after: ClubsState) -> list[str]:
    """The lines every player is sent after ``card`` took ``before`` to ``after``."""
    lines = [played_line(card)]
    if not after.trick:
        lines.append(TRICKOVER)
    if round_ended(before, after):
        lines.append(scores_line(after.scores))
    return lines


def prompt_line(state: ClubsState) -> str:
    """What the player to move is told: ``newtrick`` to lead, ``yourturn`` to follow."""
    return YOURTURN if state.trick else NEWTRICK


class ClubsCodec:
    """`hub.core.play.seats.SeatCodec` for clubs: what one player hears, and its plays."""

    max_line = MAX_PLAY_LINE

    def begin_lines(self, seat: int, start: Start[ClubsState]) -> Sequence[str]:
        state = start.state
        lines = [newround_line(state.hands[seat])]
        if state.to_move == seat:
            lines.append(prompt_line(state))
        return lines

    def turn_lines(self, seat: int, turn: Turn[ClubsState]) -> Sequence[str]:
        return ()  # the prompt went with the previous move's lines (`moved_lines`)

    def parse_move(self, seat: int, line: str, state: ClubsState) -> Card:
        card = parse_play(line)
        if card is None:
            raise BadMoveLine(f"{line[:20]!r} is not a card")
        return card

    def __init__(self) -> None:
        self._last: tuple[object, tuple[str, ...], bool, int | None] | None = None
        """The last move's lines for everyone, whether it began a round, who moves next:
        worked out once per move, not once per seat (the seats of a table share a codec)."""

    def moved_lines(self, seat: int, moved: Moved[ClubsState, Card]) -> Sequence[str]:
        last = self._last
        if last is None or last[0] is not moved:
            before, after = moved.before, moved.after
            last = self._last = (
                moved,
                tuple(broadcast_lines(before, moved.move, after)),
                not after.finished and after.round != before.round,
                after.to_move,
            )
        _, lines, new_round, to_move = last
        if new_round:
            lines = (*lines, newround_line(moved.after.hands[seat]))
        if to_move == seat:
            lines = (*lines, prompt_line(moved.after))
        return lines

    def expects_ack(self, seat: int, moved: Moved[ClubsState, Card]) -> bool:
        return False

    def check_ack(self, seat: int, line: str) -> bool:
        return True

    def time_up_lines(self, seat: int, late: int) -> Sequence[str]:
        return ()

    def end_lines(self, seat: int, result: MatchResult[ClubsState, Card]) -> Sequence[str]:
        return ()  # ``end`` is sent by the shutdown (`table.end_players`), whatever happened


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decks(value: Sequence[Sequence[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(deck) for deck in value)


@attrs.frozen
class ClubsSettings:
    """What a clubs game is played with: the decks (in file order), the winning score, each
    player's time per card in milliseconds (0: no limit) and, for people, the deck file's
    name. Validated on construction (`ValueError`)."""

    decks: tuple[tuple[Card, ...], ...] = attrs.field(converter=_decks)
    winscore: int = DEFAULT_WINSCORE
    time_ms: int = DEFAULT_TIME_MS
    deck_name: str = ""

    def __attrs_post_init__(self) -> None:
        if not self.decks or any(len(deck) != DECK_SIZE for deck in self.decks):
            raise ValueError(f"every deck must have {DECK_SIZE} cards, and there must be one")
        if any(not 0 <= card < DECK_SIZE for deck in self.decks for card in deck):
            raise ValueError("a deck holds something that is not a card")
        if self.winscore < 1:
            raise ValueError(f"the winning score must be positive, not {self.winscore}")
        if self.time_ms < 0:
            raise ValueError(f"the time per card cannot be negative ({self.time_ms} ms)")

    def to_json(self) -> dict[str, JSON]:
        return {
            "decks": [[CARD_TEXT[card] for card in deck] for deck in self.decks],
            "deck_name": self.deck_name,
            "winscore": self.winscore,
            "time_ms": self.time_ms,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> ClubsSettings:
        """The inverse of `to_json`; raises `ValueError` saying what is wrong."""
        decks = data.get("decks")
        if not isinstance(decks, list) or not all(isinstance(deck, list) for deck in decks):
            raise ValueError("settings: 'decks' must be a list of decks (lists of cards)")
        cards = [[parse_card(str(text)) for text in deck] for deck in decks]
        if any(card is None for deck in cards for card in deck):
            raise ValueError("settings: a deck holds something that is not a card")
        winscore = data.get("winscore", DEFAULT_WINSCORE)
        time_ms = data.get("time_ms", DEFAULT_TIME_MS)
        deck_name = data.get("deck_name", "")
        for name, value in (("winscore", winscore), ("time_ms", time_ms)):
            if not _is_int(value):
                raise ValueError(f"settings: {name!r} must be a whole number, not {value!r}")
        if type(deck_name) is not str:
            raise ValueError(f"settings: 'deck_name' must be text, not {deck_name!r}")
        return cls(
            [[card for card in deck if card is not None] for deck in cards],
            winscore,
            time_ms,
            deck_name,
        )
