"""The person's seat at the clubs table without a terminal: the pure codec (what the person
is shown, how typing is read, why a card is refused) and a whole game through the core
match loop with a `PersonSeat` typed into over a memory stream, the narrator watching."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest
import trio
import trio.testing

from hub.core.io.output import Output
from hub.core.io.stdin import LineInput
from hub.core.model.bus import EventBus
from hub.core.model.referee import IllegalMove, Termination
from hub.core.play.match import Match
from hub.core.play.person import AskAgain, PersonSeat
from hub.core.play.threads import ThreadSeat
from hub.core.play.vocabulary import MatchResult, SeatFailure
from hub.games.clubs.cards import CARD_TEXT, Card, parse_card
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.person import ClubsPersonCodec, PersonNarrator, hand_text, read_card
from hub.games.clubs.rules import ClubsState, legal_cards, new_game, play

SORTED = tuple(range(52))
"""The spec's worked example deck: 2S..AS, 2C..AC, 2D..AD, 2H..AH."""


def card(text: str) -> Card:
    found = parse_card(text)
    assert found is not None
    return found


def cards(texts: str) -> list[Card]:
    return [card(text) for text in texts.split()]


# -- the codec (pure) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("4D", "4D"), ("4d", "4D"), (" q s ", "QS"), ("10h", "TH"), ("10H", "TH"), ("th", "TH")],
)
def test_typed_cards(typed: str, expected: str) -> None:
    assert read_card(typed) == card(expected)


@pytest.mark.parametrize("typed", ["", "1H", "10", "4", "4X", "QSS", "queen", "4D,5D"])
def test_typing_that_is_not_a_card(typed: str) -> None:
    assert read_card(typed) is None


def test_hand_text_groups_by_suit() -> None:
    assert hand_text(["2S", "4S", "3C", "9H"]) == "2S 4S | 3C | 9H"
    assert hand_text([]) == "(none)"


def two_player_game() -> ClubsState:
    """A holds 2S 4S .. AS, 3C 5C .. KC, 2D .. AD, 3H .. KH; B the others; A leads."""
    return new_game([SORTED], 2, 1)


def test_turn_lines_when_leading_following_and_void() -> None:
    codec = ClubsPersonCodec()
    state = two_player_game()
    leading = codec.turn_lines(0, state)
    assert leading[0] == "Round 1, trick 1: you lead."
    assert leading[1].startswith("Your hand: 2S 4S 6S 8S TS QS AS | 3C 5C")
    assert len(leading) == 2
    following = codec.turn_lines(1, play(state, card("2S")))
    assert following == [
        "Round 1, trick 1: A led 2S.",
        "Your hand: 3S 5S 7S 9S JS KS | 2C 4C 6C 8C TC QC AC | 3D 5D 7D 9D JD KD | 2H 4H 6H 8H"
        " TH QH AH",
        "You must follow spades: 3S 5S 7S 9S JS KS.",
    ]
    void = ClubsState([SORTED], 1, 0, [cards("2S 3C"), cards("2D")], 0, [card("4H")], [0, 0])
    assert codec.turn_lines(1, void)[-1] == "You have no hearts: play any card."


def test_help_hand_quit_and_typos_ask_again_or_leave() -> None:
    codec = ClubsPersonCodec()
    state = play(two_player_game(), card("2S"))
    with pytest.raises(AskAgain) as asked:
        codec.read_move(1, "help", state)
    assert "The lowest score wins." in "\n".join(asked.value.lines)
    assert asked.value.lines[-1] == "You may play: 3S 5S 7S 9S JS KS."
    with pytest.raises(AskAgain) as asked:
        codec.read_move(1, "hand", state)
    assert list(asked.value.lines) == list(codec.turn_lines(1, state))
    with pytest.raises(AskAgain) as asked:
        codec.read_move(1, "  ", state)
    assert asked.value.lines == ("You may play: 3S 5S 7S 9S JS KS.",)
    with pytest.raises(AskAgain) as asked:
        codec.read_move(1, "ace of spades", state)
    assert asked.value.lines[0].startswith("'ace of spades' is not a card. Type a card as")
    for word in ("quit", "Q", " exit "):
        with pytest.raises(SeatFailure) as left:
            codec.read_move(1, word, state)
        assert left.value.termination is Termination.RESIGNATION
    # a card is read, not judged: the referee judges it
    assert codec.read_move(1, "2h", state) == card("2H")


def test_refused_cards_are_explained() -> None:
    codec = ClubsPersonCodec()
    state = play(two_player_game(), card("2S"))
    for text, expected in [
        ("2H", "You cannot play 2H: spades were led and you hold spades, so you must follow "
         "suit. Play one of: 3S 5S 7S 9S JS KS."),
        ("4S", "You do not hold 4S. Your hand: 3S 5S 7S 9S JS KS | 2C 4C 6C 8C TC QC AC | "
         "3D 5D 7D 9D JD KD | 2H 4H 6H 8H TH QH AH"),
    ]:  # fmt: skip
        with pytest.raises(IllegalMove) as error:
            play(state, card(text))
        assert codec.refused_lines(1, card(text), error.value, state) == [expected]


# -- a whole game through the match loop ------------------------------------------------------


@pytest.fixture
def out() -> Iterator[Output]:
    """An `Output` to a temporary file (the person's screen; `read_screen` reads it back)."""
    with tempfile.TemporaryFile() as handle:
        yield Output(handle.fileno())


def read_screen(out: Output) -> str:
    out.flush()
    os.lseek(out.fd, 0, os.SEEK_SET)
    return os.read(out.fd, 1 << 20).decode()


def first_legal(state: ClubsState, seconds: float, stop: object) -> Card:
    return legal_cards(state)[0]


async def play_typed(
    out: Output, answers: list[str], *, then_legal: bool = True
) -> MatchResult[ClubsState, Card]:
    """A sorted-deck game, A = a person typing ``answers`` at their first turn(s) and then
    (``then_legal``) the first card they may play at each turn; B plays its first legal card."""
    send, receive = trio.testing.memory_stream_one_way_pair()
    keyboard = LineInput(receive)
    person = PersonSeat(keyboard, out, ClubsPersonCodec())
    bus = EventBus()
    seats = [person, ThreadSeat(first_legal, threaded=False)]
    game = ClubsGame()
    match = Match(
        game,
        new_game([SORTED], 2, 1),
        seats,
        events=bus,
        spectators=[PersonNarrator(out, 0, [seat.player for seat in seats])],
    )
    result: list[MatchResult[ClubsState, Card]] = []

    async def run() -> None:
        result.append(await match.run())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        while not match.finished:
            await trio.testing.wait_all_tasks_blocked()
            if match.finished:
                break
            if answers:
                await send.send_all((answers.pop(0) + "\n").encode())
            elif then_legal:
                line = CARD_TEXT[legal_cards(match.state)[0]]
                await send.send_all((line + "\n").encode())
            else:
                await send.aclose()
                break
    assert not bus.errors
    return result[0]


async def test_a_person_plays_a_whole_game_through_the_match_loop(
    out: Output,
) -> None:
    # A leads: a typo, a card B holds, then 2S
    result = await play_typed(out, ["ace", "3S", "2s"])
    assert result.fault is None
    assert result.outcome.termination is Termination.NORMAL
    text = read_screen(out)
    assert text.startswith("Clubs for 2: you are player A; B is AI.\n")
    assert "Your card> 'ace' is not a card." in text
    assert "Your card> You do not hold 3S." in text
    assert text.count("Your card> ") == 26 + 2  # one per trick, and two asked again
    assert "You led 2S.\nB played 3S.\nB takes the trick (no clubs).\n" in text
    assert "\nEnd of round 1.\n\nGame over. Scores: A (you) " in text
    assert "Lowest score wins. Winner(s): " in text
    assert [seat for seat, _ in result.moves].count(0) == 26


async def test_a_refused_card_is_asked_again_with_the_view_kept(
    out: Output,
) -> None:
    # 2S (B takes it with 3S), then B leads 5S: A must follow with spades and tries 2D first
    result = await play_typed(out, ["2S", "2D"])
    assert result.fault is None
    text = read_screen(out)
    refused = (
        "You must follow spades: 4S 6S 8S TS QS AS.\nYour card> You cannot play 2D: spades "
        "were led and you hold spades, so you must follow suit. Play one of: 4S 6S 8S TS QS AS."
        "\nYour card> You played 4S.\n"
    )
    assert refused in text
    assert result.moves[:4] == [(0, card("2S")), (1, card("3S")), (1, card("5S")), (0, card("4S"))]


@pytest.mark.parametrize("leave", ["quit", None])
async def test_leaving_the_table_ends_the_game_with_the_person_at_fault(
    out: Output, leave: str | None
) -> None:
    answers = ["2S"] + ([leave] if leave else [])
    result = await play_typed(out, answers, then_legal=False)
    assert result.fault is not None
    assert (result.fault.seat, result.fault.termination) == (0, Termination.RESIGNATION)
    assert result.fault.detail == ("quit" if leave else "end of input")
    assert set(result.outcome.winners) == {1}
    assert read_screen(out).endswith("\nYou left the game, so the others win.\n")
