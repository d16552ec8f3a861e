"""``clubber N ID``: the standard clubs player (clubs.md). Standard library only.

It reads hub messages on stdin, writes ``-`` then one card per turn on stdout, and reports
its state on stderr after every message. It validates every message against the state of
the game (a message out of order is a bad message, exit 5) and never trusts the hub.
Start-up matters (a hub starts one per seat), so this module imports neither trio nor attrs.
"""

from __future__ import annotations

import gc
import sys
from bisect import insort

from hub.core.io.output import write_all
from hub.games.clubs.cards import (
    RANKS,
    SUITS,
    Card,
    card_text,
    format_hand,
    hand_size,
    rank_of,
    suit_of,
)
from hub.games.clubs.protocol import (
    END,
    MAX_HUB_LINE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NEWROUND,
    NEWTRICK,
    PLAYED,
    READY,
    SCORES,
    TRICKOVER,
    YOURTURN,
    BadClubsMessage,
    HubMessage,
    PlayerArgsError,
    parse_hub_message,
    parse_player_args,
)
from hub.games.clubs.strategy import choose_card

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

    from hub.core.commands.usage import Parser

ECHO_CHARS = 20
EXIT_OK, EXIT_LOST_HUB, EXIT_BAD_MESSAGE = 0, 4, 5


class Player:
    """The standard player's view of the game, fed one hub message at a time."""

    def __init__(self, players: int, seat: int) -> None:
        self.players = players
        self.seat = seat
        self.hand: list[Card] = []
        self.played: list[Card] = []  # every card played this round, in order
        self.trick: list[Card] = []
        self.scores = [0] * players
        self.in_round = False
        self.played_in_trick = False
        self.awaiting_echo: Card | None = None
        # The report's lines, kept up to date as the state changes (printed after every
        # message, so rebuilding them each time would dominate the player's work).
        self._hand_line = "Hand: "
        self._ranks: list[list[int]] = [[], [], [], []]
        self._played_lines = [f"Played ({letter}): " for letter in SUITS]

    def handle(self, message: HubMessage) -> Card | None:
        """Apply one message; return the card to play, if it is our turn.

        Raises `BadClubsMessage`.
        """
        kind = message.kind
        if kind == PLAYED:
            self._played(message.cards[0])
        elif kind in (NEWTRICK, YOURTURN):
            return self._turn(lead=kind == NEWTRICK)
        elif kind == TRICKOVER:
            if (
                len(self.trick) != self.players
                or not self.played_in_trick
                or self.awaiting_echo is not None
            ):
                raise BadClubsMessage("trickover before the trick is complete and echoed")
            self.trick = []
            self.played_in_trick = False
        elif kind == NEWROUND:
            if self.in_round or len(message.cards) != hand_size(self.players):
                raise BadClubsMessage("newround out of order or with the wrong number of cards")
            self.hand = sorted(message.cards)
            self._hand_changed()
            self.played = []
            self._ranks = [[], [], [], []]
            self._played_lines = [f"Played ({letter}): " for letter in SUITS]
            self.in_round = True
        elif kind == SCORES:
            if not self.in_round or self.hand or self.trick or len(message.scores) != self.players:
                raise BadClubsMessage("scores out of order or with the wrong count")
            self.scores = list(message.scores)
            self.in_round = False
        else:  # pragma: no cover - END is handled by the caller
            raise BadClubsMessage(kind)
        return None

    def _turn(self, *, lead: bool) -> Card:
        if (
            not self.in_round
            or not self.hand
            or self.played_in_trick
            or self.awaiting_echo is not None
            or (lead and self.trick)
            or (not lead and not 0 < len(self.trick) < self.players)
        ):
            raise BadClubsMessage("not our turn")
        card = choose_card(self.hand, self.trick, self.players, self.played)
        self.hand.remove(card)
        self._hand_changed()
        self._record(card)
        self.played_in_trick = True
        self.awaiting_echo = card
        return card

    def _played(self, card: Card) -> None:
        if self.awaiting_echo is not None:
            if card != self.awaiting_echo:
                raise BadClubsMessage("played is not the card we played")
            self.awaiting_echo = None
            return
        if not self.in_round or len(self.trick) >= self.players:
            raise BadClubsMessage("played out of order")
        self._record(card)

    def _record(self, card: Card) -> None:
        self.trick.append(card)
        self.played.append(card)
        suit = suit_of(card)
        ranks = self._ranks[suit]
        insort(ranks, rank_of(card))
        self._played_lines[suit] = f"Played ({SUITS[suit]}): {','.join(RANKS[r] for r in ranks)}"

    def _hand_changed(self) -> None:
        self._hand_line = f"Hand: {format_hand(self.hand)}"

    def report(self) -> str:
        """The stderr report printed after each message."""
        played = "\n".join(self._played_lines)
        scores = ",".join(map(str, self.scores))
        return f"{self._hand_line}\n{played}\nScores: {scores}\n"


def play(players: int, seat: int, stdin: BinaryIO) -> int:
    """Run the player loop over ``stdin``; return the exit status."""
    write_all(1, READY)
    player = Player(players, seat)
    while True:
        raw = stdin.readline(MAX_HUB_LINE + 1)
        too_long = len(raw) > MAX_HUB_LINE and not raw.endswith(b"\n")
        if not raw.endswith(b"\n") and not too_long:
            # End of input, possibly mid-line: not a message, and not echoed.
            write_all(2, b"Unexpected loss of hub\n")
            return EXIT_LOST_HUB
        line = raw.decode("latin-1") if too_long else raw[:-1].decode("latin-1")
        echo = b"From hub:" + line[:ECHO_CHARS].encode("latin-1") + b"\n"
        if line == END:
            write_all(2, echo)
            return EXIT_OK
        try:
            if too_long:
                raise BadClubsMessage("line too long")
            card = player.handle(parse_hub_message(line))
        except BadClubsMessage:
            write_all(2, echo + b"Bad message from hub\n")
            return EXIT_BAD_MESSAGE
        if card is not None:
            write_all(1, (card_text(card) + "\n").encode())
        write_all(2, echo + player.report().encode())


def help_parser() -> Parser:
    """``clubber --help`` (as the only argument; wrong usage keeps the spec's messages)."""
    from hub.core.commands.usage import Parser  # only for the help: clubber starts fast

    parser = Parser(
        "clubber",
        usage="clubber number_of_players myid",
        description="The standard clubs player (docs/clubs.md): started by a hub (clubhub, "
        "hub play clubs, hub match clubs) with its seat, it reads the hub's messages on "
        "standard input, plays a card per turn on standard output and reports its hand on "
        "standard error. Wrong usage prints the spec's message (exit 1 usage, 2 invalid player "
        "count, 3 invalid ID); --help works as the only argument.",
    )
    parser.add_argument(
        "number_of_players",
        help=f"players at the table, {MIN_PLAYERS}..{MAX_PLAYERS} (required)",
    )
    parser.add_argument(
        "myid", help="this player's seat: A, B, C or D, within the table (required)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 1 and args[0] in ("-h", "--help"):  # hub.core.commands.usage.wants_help
        from hub.core.commands.usage import help_text, show_help

        return show_help(help_text(help_parser()))
    try:
        players, seat = parse_player_args(args)
    except PlayerArgsError as exc:
        write_all(2, (exc.message + "\n").encode())
        return exc.status
    gc.freeze()  # the collector never scans what start-up made, nor at exit (hub/entry.py)
    return play(players, seat, sys.stdin.buffer)


if __name__ == "__main__":
    sys.exit(main())
