"""A person at the clubs table (``hub play clubs DECK WINSCORE human clubber clubber``).

Pure, no I/O: what the person sees and how their typing is read. The I/O is the core's
`hub.core.play.person.PersonSeat` (the keyboard, the prompt, asking again after a refused card)
and the program's `Output`; the game is still played by the core match loop with the same
referee as ``clubhub``.

* `ClubsPersonCodec` (a `PersonCodec`): at the person's turn their hand, the trick so far
  and what they may play; reads ``4d``, ``10H``, ``TH``; ``help``, ``hand`` and ``quit``;
  explains a refused card (not in the hand, not following suit) in words.
* `PersonNarrator` (a `hub.core.play.vocabulary.Spectator`): what everyone at the table sees, in
  words and from the person's side: each card played, who took each trick and its points,
  the scores after each round and the result. It never shows another player's hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from hub.core.io.output import Output
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.person import AskAgain
from hub.core.play.vocabulary import MatchResult, Moved, SeatFailure
from hub.games.clubs.cards import SUITS, Card, card_text, hand_size, parse_card, suit_of
from hub.games.clubs.pictures import seat_view
from hub.games.clubs.protocol import LABELS
from hub.games.clubs.rules import ClubsState, legal_cards
from hub.games.clubs.table import HUMAN

__all__ = ["HUMAN", "ClubsPersonCodec", "PersonNarrator"]
SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")
QUIT_WORDS = frozenset({"quit", "q", "exit"})
HELP_WORDS = frozenset({"help", "h", "?"})
PROMPT = "Your card> "
HOW_TO_TYPE = (
    "Type a card as its rank (2-9, T or 10, J, Q, K, A) then its suit (S, C, D, H): 4D, 10H, QS."
)


def name(seat: int, person: int) -> str:
    """``you`` for the person's seat, else the seat's label."""
    return "you" if seat == person else LABELS[seat]


def hand_text(cards: Sequence[str]) -> str:
    """Cards (texts, sorted S, C, D, H then rank) grouped by suit: ``2S 4S | 3C | 9H``."""
    groups: dict[str, list[str]] = {}
    for text in cards:
        groups.setdefault(text[1], []).append(text)
    return " | ".join(" ".join(groups[suit]) for suit in SUITS if suit in groups) or "(none)"


def scores_text(scores: Sequence[float], person: int) -> str:
    """``A (you) 3, B 5, C 0``."""
    return ", ".join(
        f"{LABELS[seat]}{' (you)' if seat == person else ''} {score:g}"
        for seat, score in enumerate(scores)
    )


def read_card(text: str) -> Card | None:
    """The card a person typed: any case, spaces ignored, ``10`` for ``T``; else None."""
    typed = "".join(text.split()).upper()
    if typed.startswith("10"):
        typed = "T" + typed[2:]
    return parse_card(typed)


def _texts(cards: Sequence[Card]) -> list[str]:
    return [card_text(card) for card in sorted(cards)]


class ClubsPersonCodec:
    """`hub.core.play.person.PersonCodec` for clubs: the person's view of their turn, in words."""

    def turn_lines(self, seat: int, state: ClubsState) -> Sequence[str]:
        hand = state.hands[seat]
        trick_number = hand_size(state.players) - len(hand) + 1
        where = f"Round {state.round + 1}, trick {trick_number}"
        if state.trick:
            played = ", ".join(
                f"{name((state.leader + index) % state.players, seat)} "
                f"{'led' if index == 0 else 'played'} {card_text(card)}"
                for index, card in enumerate(state.trick)
            )
            lines = [f"{where}: {played}."]
        else:
            lines = [f"{where}: you lead."]
        lines.append(f"Your hand: {hand_text(_texts(hand))}")
        if state.trick:
            led = suit_of(state.trick[0])
            legal = legal_cards(state)
            if suit_of(legal[0]) == led:
                lines.append(f"You must follow {SUIT_NAMES[led]}: {' '.join(_texts(legal))}.")
            else:
                lines.append(f"You have no {SUIT_NAMES[led]}: play any card.")
        return lines

    def prompt(self, seat: int, state: ClubsState) -> str:
        return PROMPT

    def read_move(self, seat: int, text: str, state: ClubsState) -> Card:
        word = text.strip().lower()
        if word in QUIT_WORDS:
            raise SeatFailure(Termination.RESIGNATION, "quit")
        if word in HELP_WORDS:
            raise AskAgain(
                HOW_TO_TYPE,
                "Follow the suit that was led if you can. The highest card of that suit takes "
                "the trick, and every club in it is a point for whoever takes it.",
                "The lowest score wins. 'hand' shows your hand again, 'quit' leaves the game.",
                f"You may play: {' '.join(_texts(legal_cards(state)))}.",
            )
        if word == "hand":
            raise AskAgain(*self.turn_lines(seat, state))
        card = read_card(text)
        if card is None:
            if not word:
                raise AskAgain(f"You may play: {' '.join(_texts(legal_cards(state)))}.")
            raise AskAgain(f"{text.strip()!r} is not a card. {HOW_TO_TYPE}")
        return card

    def refused_lines(
        self, seat: int, move: Card, error: IllegalMove, state: ClubsState
    ) -> Sequence[str]:
        hand = state.hands[seat]
        text = card_text(move)
        legal = " ".join(_texts(legal_cards(state)))
        if move not in hand:
            return [f"You do not hold {text}. Your hand: {hand_text(_texts(hand))}"]
        if state.trick and suit_of(move) != suit_of(state.trick[0]):
            led = SUIT_NAMES[suit_of(state.trick[0])]
            return [
                f"You cannot play {text}: {led} were led and you hold {led}, so you must "
                f"follow suit. Play one of: {legal}."
            ]
        return [f"You cannot play {text}: {error}. Play one of: {legal}."]  # pragma: no cover


def _points(count: int) -> str:
    return "no clubs" if count == 0 else f"{count} club{'s' if count > 1 else ''}: +{count}"


@attrs.define(eq=False)
class PersonNarrator:
    """The table as the person in ``person`` sees it, printed from the typed states (a
    `hub.core.play.vocabulary.Spectator`: it reads the person's own view, `seat_view`, which the
    spectators' event stream does not carry); one write per event, so nothing waits behind
    a prompt. ``players``: who sits where."""

    out: Output
    person: int
    players: Sequence[PlayerInfo]
    scores: list[int] = attrs.Factory(list)
    round: int = 0

    def started(self, state: ClubsState) -> None:
        self._started(seat_view(state, self.person), self.players)
        self.out.flush()

    def moved(self, moved: Moved[ClubsState, Card]) -> None:
        self._moved(moved.seat, moved.text, seat_view(moved.after, self.person))
        self.out.flush()

    def ended(self, result: MatchResult[ClubsState, Card]) -> None:
        self._ended(result)
        self.out.flush()

    def _say(self, *lines: str) -> None:
        for line in lines:
            self.out.line(line)

    def _round_start(self, view: Mapping[str, JSON]) -> None:
        hand = view["hands"][self.person]
        self._say("", f"Round {view['round'] + 1}: you have {len(hand)} cards: {hand_text(hand)}")

    def _started(self, view: Mapping[str, JSON], players: Sequence[PlayerInfo]) -> None:
        self.scores = list(view["scores"])
        self.round = view["round"]
        others = [
            f"{LABELS[seat]} is {player.name}"
            for seat, player in enumerate(players)
            if seat != self.person
        ]
        self._say(
            f"Clubs for {len(players)}: you are player {LABELS[self.person]}; "
            + ", ".join(others)
            + ".",
            "Every club in a trick you take is a point against you, and the lowest score wins.",
            f"The game ends after the round in which someone reaches {view['winscore']} "
            f"point{'' if view['winscore'] == 1 else 's'}.",
            HOW_TO_TYPE + " Type help for the rules, quit to leave.",
        )
        self._round_start(view)

    def _moved(self, seat: int, card: str, view: Mapping[str, JSON]) -> None:
        who = name(seat, self.person)
        verb = "led" if len(view["trick"]) == 1 else "played"
        lines = [f"{who[0].upper()}{who[1:]} {verb} {card}."]
        if not view["trick"]:  # the card completed a trick
            winner = view["leader"]
            scores = list(view["scores"])
            taken = scores[winner] - self.scores[winner]
            self.scores = scores
            winner_name = name(winner, self.person)
            verb = "take" if winner == self.person else "takes"
            lines.append(
                f"{winner_name[0].upper()}{winner_name[1:]} {verb} the trick ({_points(taken)})."
            )
        new_round = view["round"] != self.round
        if view["finished"]:
            lines.append(f"End of round {self.round + 1}.")
        elif new_round:
            lines.append(
                f"End of round {self.round + 1}. Scores: {scores_text(view['scores'], self.person)}"
            )
            self.round = view["round"]
        self._say(*lines)
        if new_round and not view["finished"]:
            self._round_start(view)

    def _ended(self, result: MatchResult[ClubsState, Card]) -> None:
        outcome = result.outcome
        if outcome.termination is Termination.NORMAL:
            winners = sorted(outcome.winners)
            labels = " ".join(LABELS[seat] for seat in winners)
            if self.person in winners:
                verdict = "You win!" if len(winners) == 1 else "You share the win."
            else:
                verdict = "You lose."
            scores = result.state.scores
            self._say(
                "",
                f"Game over. Scores: {scores_text(scores, self.person)}",
                f"Lowest score wins. Winner(s): {labels}. {verdict}",
            )
            return
        fault = result.fault
        if fault is None or fault.seat is None:  # the host stopped it
            self._say("", "The game was stopped.")
        elif fault.seat == self.person:
            self._say("", "You left the game, so the others win.")
        else:
            player = self.players[fault.seat].name
            detail = f": {fault.detail}" if fault.detail else ""
            self._say(
                "",
                f"The game stopped: player {LABELS[fault.seat]} ({player}) is at fault "
                f"({fault.termination.value}{detail}).",
            )
