"""Pure pieces of clubs: deck files, the wire protocol, the standard strategy, the player."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.games.clubs.cards import (
    CARD_TEXT,
    DeckError,
    format_hand,
    parse_card,
    parse_card_list,
    parse_deck_file,
)
from hub.games.clubs.player import Player
from hub.games.clubs.protocol import (
    BadClubsMessage,
    HubMessage,
    PlayerArgsError,
    format_message,
    parse_hub_message,
    parse_play,
    parse_player_args,
)
from hub.games.clubs.strategy import choose_card, lowest_unplayed_club

SORTED = "\n".join(",".join(CARD_TEXT[i : i + 13]) for i in range(0, 52, 13)) + "\n"


def cards(text: str) -> list[int]:
    parsed = parse_card_list(text)
    assert parsed is not None
    return parsed


# -- deck files ------------------------------------------------------------------------------


def test_deck_file_variants() -> None:
    assert parse_deck_file(SORTED) == [tuple(range(52))]
    two = "# two decks\n\n" + SORTED + ".\n" + SORTED.replace("\n", ",\n")
    assert parse_deck_file(two) == [tuple(range(52))] * 2
    spaced = " , ".join(CARD_TEXT) + " ,\r\n"
    assert parse_deck_file(spaced) == [tuple(range(52))]
    one_a_line = "\n".join(CARD_TEXT)
    assert parse_deck_file(one_a_line) == [tuple(range(52))]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only a comment\n",
        SORTED + ".\n",  # trailing separator
        ".\n" + SORTED,  # leading separator: an empty deck
        SORTED + ".\n.\n" + SORTED,  # empty deck between
        SORTED.replace("2S,", "", 1),  # 51 cards
        SORTED + "2S\n",  # 53 cards
        SORTED.replace("TS", "10S"),
        SORTED.replace("2S", "2s"),
        SORTED.replace("3S,", "3S,,"),  # an empty card in the middle
        SORTED.replace("2S", "2X"),
        " # not a comment\n" + SORTED,
    ],
)
def test_bad_deck_files(text: str) -> None:
    with pytest.raises(DeckError):
        parse_deck_file(text)


@given(st.text(max_size=300))
def test_deck_parser_raises_only_deck_error(text: str) -> None:
    try:
        decks = parse_deck_file(text)
    except DeckError:
        return
    assert decks and all(len(deck) == 52 for deck in decks)


# -- protocol ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    ["newround 2S,3C", "newtrick", "yourturn", "played TD", "trickover", "scores 12,1,0", "end"],
)
def test_hub_messages_round_trip(line: str) -> None:
    assert format_message(parse_hub_message(line)) == line


@pytest.mark.parametrize(
    "line",
    [
        "",
        "newtrick ",
        " newtrick",
        "played",
        "played ",
        "played 2D ",
        "played 2d",
        "played 10H",
        "played  2D",
        "newround",
        "newround ",
        "newround 2S,",
        "newround 2S, 3S",
        "scores",
        "scores 1,,2",
        "scores 3biscuit,1",
        "scores 1,-2",
        "score 1,2",
        "hello",
        "end\r",
    ],
)
def test_bad_hub_messages(line: str) -> None:
    with pytest.raises(BadClubsMessage):
        parse_hub_message(line)


@given(st.text(max_size=100))
def test_hub_parser_raises_only_bad_message(line: str) -> None:
    try:
        message = parse_hub_message(line)
    except BadClubsMessage:
        return
    assert isinstance(message, HubMessage)
    assert format_message(message) == line


def test_plays_are_exactly_one_card() -> None:
    assert parse_play("AS") == parse_card("AS")
    for bad in ("", "AS ", " AS", "as", "A", "ASS", "10S", "-"):
        assert parse_play(bad) is None


@pytest.mark.parametrize(
    ("args", "status"),
    [([], 1), (["2"], 1), (["2", "A", "x"], 1), (["1", "A"], 2), (["5", "A"], 2),
     (["3biscuit", "A"], 2), (["", "A"], 2), (["2", "C"], 3), (["4", "a"], 3), (["2", ""], 3),
     (["2", "AB"], 3)],
)  # fmt: skip
def test_player_arguments(args: list[str], status: int) -> None:
    with pytest.raises(PlayerArgsError) as caught:
        parse_player_args(args)
    assert caught.value.status == status


def test_good_player_arguments() -> None:
    assert parse_player_args(["4", "D"]) == (4, 3)
    assert parse_player_args(["02", "B"]) == (2, 1)


# -- strategy ---------------------------------------------------------------------------------


def test_leads_the_lowest_unplayed_club_when_holding_it() -> None:
    assert choose_card(cards("2S,2C,5D"), [], 2, []) == parse_card("2C")
    played = cards("2C,3C")
    assert lowest_unplayed_club(played) == parse_card("4C")
    assert choose_card(cards("2S,4C,5D"), [], 2, played) == parse_card("4C")


def test_otherwise_leads_lowest_of_diamonds_hearts_spades_clubs() -> None:
    assert choose_card(cards("2S,3C,9D,5D,3H"), [], 2, []) == parse_card("5D")
    assert choose_card(cards("2S,3C,3H,KH"), [], 2, []) == parse_card("3H")
    assert choose_card(cards("2S,3C,KS"), [], 2, []) == parse_card("2S")
    assert choose_card(cards("3C,KC"), [], 2, []) == parse_card("3C")


def test_follows_with_the_lowest_of_the_led_suit() -> None:
    assert choose_card(cards("2S,9H,4H,AC"), cards("KH"), 3, []) == parse_card("4H")


def test_discards_when_void() -> None:
    hand = cards("2S,AS,3C,KC,4D,QD,5H,JH")
    void_hand = [c for c in hand if CARD_TEXT[c][1] != "H"]
    # Last to play: highest of hearts, diamonds, clubs, spades (first suit held).
    assert choose_card(hand[:6], cards("5H"), 2, []) == parse_card("QD")
    assert choose_card(cards("2S,AS,3C,KC"), cards("5H"), 2, []) == parse_card("KC")
    # Not last: highest of clubs, diamonds, hearts, spades.
    assert choose_card(void_hand, cards("5H"), 3, []) == parse_card("KC")
    assert choose_card(cards("2S,AS,4D"), cards("5C"), 4, []) == parse_card("4D")


# -- the player's state and report ------------------------------------------------------------


def test_report_format_matches_the_spec() -> None:
    player = Player(4, 0)
    player.handle(parse_hub_message("newround 5S,8S,9S,3C,AC,4D,JD,KD,8H,JH,5C,TC,5D"))
    assert player.report() == (
        "Hand: 5S,8S,9S,3C,5C,TC,AC,4D,5D,JD,KD,8H,JH\n"
        "Played (S): \nPlayed (C): \nPlayed (D): \nPlayed (H): \nScores: 0,0,0,0\n"
    )
    for line in ("newtrick", "played 4D", "played 7D", "played 9D", "played 8D"):
        player.handle(parse_hub_message(line))
    assert "Played (D): 4,7,8,9\n" in player.report()
    assert "Hand: 5S,8S,9S,3C,5C,TC,AC,5D,JD,KD,8H,JH\n" in player.report()


def test_player_rejects_messages_out_of_order() -> None:
    player = Player(2, 1)
    for line in ("newtrick", "yourturn", "played 2S", "trickover", "scores 0,0"):
        with pytest.raises(BadClubsMessage):
            Player(2, 1).handle(parse_hub_message(line))
    hand = ",".join(CARD_TEXT[i] for i in range(1, 52, 2))
    player.handle(parse_hub_message(f"newround {hand}"))
    with pytest.raises(BadClubsMessage):
        player.handle(parse_hub_message(f"newround {hand}"))


def test_hand_format_sorts_suits_then_ranks() -> None:
    assert format_hand(cards("AH,2S,KC,2C,TD")) == "2S,2C,KC,TD,AH"
