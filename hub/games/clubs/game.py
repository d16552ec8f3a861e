"""Clubs, declared: the pure pieces of hub/games/clubs on `hub.core.play.game.Game`.

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
hand at every ply (docs/clubs.md, "Hidden hands"). The general player (``mcts:N``) decides
from its seat's view over hands dealt at random (sampling.py, the `Search` facet).
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from hub.core.model.referee import Outcome
from hub.core.play.game import (
    Ai,
    Game,
    Hidden,
    MatchPlan,
    MatchSetup,
    Option,
    Pictures,
    Programs,
    Search,
    SettingsError,
)
from hub.games.clubs.cards import (
    DECK_SIZE,
    Card,
    DeckError,
    card_text,
    deal,
    parse_card,
    parse_deck_file,
)
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
    from hub.core.model.values import JSON
    from hub.core.play.threads import StopFlag
    from hub.core.play.vocabulary import Fault, Seat

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


class ClubsPictures(Pictures):
    """The table (`hub.games.clubs.pictures`): hands, scores and the trick."""

    def text(self, view: Any, names: Sequence[str] = ()) -> str:
        return "\n".join(clubs_lines(view, names))

    def html(self, view: Any, names: Sequence[str] = ()) -> str:
        return clubs_table(view, names)

    def html_after(self, view: Any, names: Sequence[str], move: str, before: Any) -> str:
        """The table with the card just played marked, in the trick or in the trick it
        completed (shown as the last trick)."""
        from hub.games.clubs.pictures import last_played

        last, completed = last_played(view, before, move)
        return clubs_table(view, names, last, completed)

    def move_words(self, before: JSON, move: str) -> str:
        """The card as the pages write it in the hands too: ``10\u2665`` for ``TH``."""
        return card_words(move)


def standard_player(
    game: Game[Any, Any], view: Any, level: int, seconds: float, stop: StopFlag
) -> Card:
    """The standard player (clubs.md), what ``clubber`` plays, from its seat's view: its
    hand, the trick and the cards played so far this round (what ``clubber`` hears)."""
    seat = int(view["seat"])
    hand = [_card(text) for text in view["hands"][seat]]
    trick = [_card(text) for text in view["trick"]]
    played = [_card(text) for text in view["played"]]
    return choose_card(hand, trick, int(view["players"]), played)


def _card(text: str) -> Card:
    card = parse_card(text)
    assert card is not None  # a view's card texts are cards
    return card


def program_seat(
    game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int, detail: Any = None
) -> Seat[Any, Any]:
    """``clubs:PROGRAM``, and a bare program on ``hub match clubs``: a program of the clubs
    protocol (`hub.games.clubs.match.program_seat`)."""
    from hub.games.clubs.match import program_seat as player

    return player(game, command, seat=seat, spec=spec, seed=seed)


def check_program(kind: str, command: str, spec: str) -> str | None:
    from hub.core.io.programs import program_problem

    return program_problem(command)


class ClubsSetup(MatchSetup):
    """``hub match clubs`` (docs/clubs.md, "hub match"): the decks travel in the settings;
    an opening is ``{"order": [...], "cut": k}``, the decks in that order, each cut at k."""

    opening_plies = 0

    def options(self, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
        from hub.games.clubs.codec import DEFAULT_TIME_MS, DEFAULT_WINSCORE

        return (
            Option("deck", "", f"deck file to play (default: the packaged {DEFAULT_DECK})"),
            Option("winscore", DEFAULT_WINSCORE, "a game ends after the round in which "
                   "someone reaches it", low=1),
            Option("time_ms", DEFAULT_TIME_MS, "each player's time for one card, in ms; 0 is "
                   "no limit", low=0),
        )  # fmt: skip

    def settings(self, game: type[Game[Any, Any]], given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.clubs.codec import DEFAULT_TIME_MS, DEFAULT_WINSCORE
        from hub.games.clubs.match import match_settings

        deck = str(given["deck"]) if given.get("deck") else None
        winscore = int(given.get("winscore", DEFAULT_WINSCORE))
        return match_settings(deck, winscore, int(given.get("time_ms", DEFAULT_TIME_MS)))

    def openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        from hub.games.clubs.codec import ClubsSettings
        from hub.games.clubs.match import draw_openings

        return draw_openings(len(ClubsSettings.from_json(settings).decks), count, seed)

    def plan(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], seats: int, opening: Any,
        game_id: str,
    ) -> MatchPlan[Any, Any]:  # fmt: skip
        from hub.core.model.clock import TimeControl
        from hub.games.clubs.codec import ClubsSettings
        from hub.games.clubs.match import opening_decks

        chosen = ClubsSettings.from_json(settings)
        rules = ClubsGame(seats=seats, decks=chosen.decks)
        rules.settings["winscore"] = chosen.winscore  # a match's may exceed the option's range
        state = new_game(opening_decks(chosen.decks, opening), seats, chosen.winscore)
        return MatchPlan(rules, TimeControl.per_move_ms(chosen.time_ms), state)


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
    pictures = ClubsPictures()
    ai = Ai(range(1, 2), standard_player)
    hidden: ClassVar[Hidden | None] = Hidden(state_view, concealed)
    """Hands: a seat sees its own; the record of a finished game shows every hand."""
    programs = Programs({"clubs": program_seat}, "clubs", check=check_program)
    """``hub match clubs clubber ./player``: programs of the clubs protocol (clubs.md)."""
    setup = ClubsSetup()
    search = Search(sample=sample_state)
    """``mcts:N`` decides from its seat's view, over hands dealt at random (sampling.py)."""

    def __init__(
        self,
        settings: Mapping[str, object] | None = None,
        seats: int = 0,
        *,
        decks: Sequence[Sequence[Card]] | None = None,
    ) -> None:
        """``decks``: the decks to deal from (a match's, from its settings) instead of the
        ``deck`` setting's file or shuffled ones."""
        super().__init__(settings, seats)
        path = str(self.settings["deck"])
        self.decks = (
            tuple(map(tuple, decks)) if decks is not None else (read_decks(path) if path else None)
        )

    def forfeit(self, state: ClubsState, fault: Fault) -> Outcome:
        """A player at fault loses, everyone else wins; the points taken so far stay."""
        from hub.core.play.vocabulary import forfeit_outcome

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
        """A seat's view adds ``played``, the cards played so far this round (public: what
        a player of the protocol hears), for its honest AI."""
        view = seat_view(state, seat)
        if seat is not None and isinstance(view, dict):
            view["played"] = [card_text(card) for card in sorted(played_this_round(state))]
        return view

    def seat_name(self, seat: int, view: JSON = None) -> str:
        """Without a position, as the records name a seat for a whole game (``player A``);
        at one (``view``), its letter, as the pages, the terminal and results say (``A``)."""
        name = super().seat_name(seat)
        return name if seat < 0 or view is not None else f"player {name}"
