"""Clubs, declared: the pure pieces of hub/games/clubs on `hub.core.game.Game`.

The rules are rules.py's pure functions, a move is a card's text (``TH``), the built-in AI
(``ai:1``) is the standard player's strategy (strategy.py, what ``clubber`` plays), the
pictures are pictures.py's. From this declaration hub derives ``hub serve clubs`` (the JSON
bot protocol's lobby), the seats of every spec, records and the web board; ``hub play clubs``
stays clubhub's command line and ``hub match clubs`` the clubs kit (plugin.py).

Settings: ``winscore`` (the game ends after the round in which someone reaches it) and
``deck``: empty (the default) deals shuffled decks from the game's seed; a deck file's path
plays that file's decks in an order and from a cut drawn from the seed (the file is read when
the settings are checked). Hands are hidden information: a seat's view shows its own hand
only, a spectator's none while the game goes on; the record of a finished game shows every
hand at every ply (docs/clubs.md, "Hidden hands").
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from hub.core.game import Game, Option, SettingsError
from hub.core.mcts import Search
from hub.core.referee import Outcome
from hub.games.clubs.cards import DECK_SIZE, Card, DeckError, card_text, deal, parse_deck_file
from hub.games.clubs.pictures import (
    LETTERS,
    card_words,
    clubs_lines,
    clubs_table,
    concealed,
    seat_view,
    state_view,
)
from hub.games.clubs.rules import ClubsState, clubs_outcome, legal_cards, new_game, play
from hub.games.clubs.sampling import sample_state
from hub.games.clubs.strategy import choose_card

if TYPE_CHECKING:
    from hub.core.clock import TimeControl
    from hub.core.local_seats import StopFlag
    from hub.core.match import Fault
    from hub.core.values import JSON

DEFAULT_DECK = "ex.decks"
"""The deck file of ``hub match clubs`` without ``--deck`` (packaged with the game)."""
SHUFFLED_DECKS = 16
"""Shuffled decks dealt for a game without a deck file (rounds cycle through them)."""


@functools.lru_cache(maxsize=16)
def read_decks(path: str) -> tuple[tuple[Card, ...], ...]:
    """Every deck of the file at ``path``; raises `SettingsError` saying what is wrong."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return tuple(parse_deck_file(file.read()))
    except OSError as exc:
        raise SettingsError(f"deck: cannot read {path}: {exc.strerror or exc}") from None
    except DeckError as exc:
        raise SettingsError(f"deck: {path}: {exc}") from None


def played_this_round(state: ClubsState) -> list[Card]:
    """The cards played so far this round: the round's deal less the hands now."""
    deck = state.decks[state.round % len(state.decks)]
    left = Counter(card for hand in state.hands for card in hand)
    dealt = Counter(card for hand in deal(deck, state.players) for card in hand)
    return list((dealt - left).elements())


class ClubsGame(Game[ClubsState, Card]):
    name = "clubs"
    summary = "a trick-taking card game for 2-4 players: programs over pipes, JSON bots, the AI"
    options = (
        Option("winscore", 20, "the game ends after the round in which someone reaches it",
               low=1, high=1000),
        Option("deck", "", "a deck file to deal from (default: shuffled decks)"),
    )  # fmt: skip
    seat_names = tuple(LETTERS)
    players = (2, 4)
    ai_levels = range(1, 2)
    opening_plies = 0
    hidden_information = True
    search = Search(sample=sample_state)
    """``mcts:N`` decides from its seat's view, over hands dealt at random (sampling.py)."""
    seat_kinds: ClassVar[Mapping[str, str]] = {"clubs": "hub.games.clubs.match:program_seat"}
    program_kind = "clubs"
    """``hub match clubs clubber ./player``: programs of the clubs protocol (clubs.md)."""

    def __init__(self, settings: Mapping[str, object] | None = None, seats: int = 0) -> None:
        super().__init__(settings, seats)
        path = str(self.settings["deck"])
        self.decks = read_decks(path) if path else None

    # -- hub match: the decks travel in the settings (docs/clubs.md, "hub match") -------------

    @classmethod
    def match_options(cls) -> tuple[Option, ...]:
        from hub.games.clubs.codec import DEFAULT_TIME_MS, DEFAULT_WINSCORE

        return (
            Option("deck", "", f"deck file to play (default: the packaged {DEFAULT_DECK})"),
            Option("winscore", DEFAULT_WINSCORE, "a game ends after the round in which "
                   "someone reaches it", low=1),
            Option("time_ms", DEFAULT_TIME_MS, "each player's time for one card, in ms; 0 is "
                   "no limit", low=0),
        )  # fmt: skip

    @classmethod
    def match_settings(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.clubs.codec import DEFAULT_TIME_MS, DEFAULT_WINSCORE
        from hub.games.clubs.match import match_settings

        deck = str(given["deck"]) if given.get("deck") else None
        winscore = int(given.get("winscore", DEFAULT_WINSCORE))
        return match_settings(deck, winscore, int(given.get("time_ms", DEFAULT_TIME_MS)))

    @classmethod
    def for_match(cls, settings: Mapping[str, Any], seats: int) -> ClubsGame:
        from hub.games.clubs.codec import ClubsSettings

        chosen = ClubsSettings.from_json(settings)
        game = cls(seats=seats)
        game.settings["winscore"] = chosen.winscore
        game.decks = chosen.decks
        return game

    @classmethod
    def check_seat(cls, kind: str, command: str, spec: str) -> str | None:
        from hub.core.programs import program_problem

        return program_problem(command)

    def match_openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        """``{"order": [...], "cut": k}``: the decks in that order, each cut at card k."""
        from hub.games.clubs.match import draw_openings

        return draw_openings(len(self.decks or ()), count, seed)

    def match_start(self, opening: Any, game_id: str) -> ClubsState:
        from hub.games.clubs.match import opening_decks

        assert self.decks is not None  # a match's game has its decks (`for_match`)
        decks = opening_decks(self.decks, opening)
        return new_game(decks, self.seat_count, int(self.settings["winscore"]))

    def match_clock(self, settings: Mapping[str, Any]) -> TimeControl:
        from hub.core.clock import TimeControl
        from hub.games.clubs.codec import ClubsSettings

        return TimeControl.per_move_ms(ClubsSettings.from_json(settings).time_ms)

    def forfeit(self, state: ClubsState, fault: Fault) -> Outcome:
        """A player at fault loses, everyone else wins; the points taken so far stay."""
        from hub.core.match import forfeit_outcome

        return attrs.evolve(forfeit_outcome(state.players, fault), scores=state.scores)

    # -- rules ---------------------------------------------------------------------------------

    def start(self, rng: random.Random) -> ClubsState:
        decks: list[Sequence[Card]]
        if self.decks is None:
            decks = [rng.sample(range(DECK_SIZE), DECK_SIZE) for _ in range(SHUFFLED_DECKS)]
        else:
            order = rng.sample(range(len(self.decks)), len(self.decks))
            cut = rng.randrange(DECK_SIZE)
            decks = [self.decks[i][cut:] + self.decks[i][:cut] for i in order]
        return new_game(decks, self.seat_count, int(self.settings["winscore"]))

    def seats(self, state: ClubsState) -> int:
        return state.players

    def to_move(self, state: ClubsState) -> int | None:
        return state.to_move

    def legal_moves(self, state: ClubsState) -> Sequence[Card]:
        return legal_cards(state)

    def candidate_moves(self, state: ClubsState) -> Sequence[Card]:
        return range(DECK_SIZE)

    def apply(self, state: ClubsState, move: Card) -> ClubsState:
        return play(state, move)

    def outcome(self, state: ClubsState) -> Outcome | None:
        return clubs_outcome(state)

    def move_text(self, state: ClubsState, move: Card) -> str:
        return card_text(move)

    # -- views and pictures --------------------------------------------------------------------

    def view(self, state: ClubsState, seat: int | None = None) -> JSON:
        return seat_view(state, seat)

    def record_view(self, state: ClubsState) -> JSON:
        return state_view(state)

    def concealed(self, view: JSON) -> JSON:
        return concealed(view)

    def record_label(self, seat: int) -> str:
        return f"player {self.seat_name(seat)}"

    def move_words(self, before: JSON, move: str) -> str:
        """The card as the pages write it in the hands too: ``10\u2665`` for ``TH``."""
        return card_words(move)

    def text(self, view: Any) -> str:
        return "\n".join(clubs_lines(view))

    def picture_text(self, view: Any, names: Sequence[str]) -> str:
        return "\n".join(clubs_lines(view, names))

    def html(self, view: Any) -> str:
        return clubs_table(view)

    def picture_html(self, view: Any, names: Sequence[str]) -> str:
        return clubs_table(view, names)

    def picture_html_after(self, view: Any, names: Sequence[str], move: str, before: Any) -> str:
        """The table with the card just played marked, in the trick or in the trick it
        completed (shown as the last trick)."""
        from hub.games.clubs.pictures import last_played

        last, completed = last_played(view, before, move)
        return clubs_table(view, names, last, completed)

    # -- players -------------------------------------------------------------------------------

    def ai(self, state: ClubsState, level: int, stop: StopFlag) -> Card:
        """The standard player (clubs.md): what ``clubber`` plays."""
        mover = state.to_move
        assert mover is not None
        played = played_this_round(state)
        return choose_card(state.hands[mover], state.trick, state.players, played)
