"""The clubs rules (the declaration, `ClubsGame`): conformance, dealing, tricks, scores, decks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.core.model.referee import IllegalMove
from hub.games.clubs.cards import DECK_SIZE, TWO_OF_DIAMONDS, deal, parse_card
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.rules import ClubsState, new_game, play, trick_winner
from hub.testing import check_game


def card(text: str) -> int:
    value = parse_card(text)
    assert value is not None
    return value


def shuffled(rng: random.Random) -> list[int]:
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    return deck


@pytest.mark.parametrize("players", [2, 3, 4])
def test_referee_passes_the_conformance_suite(players: int) -> None:
    def make(rng: random.Random) -> tuple[ClubsGame, ClubsState]:
        decks = [shuffled(rng) for _ in range(rng.randint(1, 3))]
        return ClubsGame(seats=players), new_game(decks, players, rng.randint(1, 30))

    outcomes = check_game(make, playouts=8)
    for outcome in outcomes:
        low = min(outcome.scores)
        assert outcome.winners == {seat for seat, s in enumerate(outcome.scores) if s == low}


def test_conformance_with_duplicate_cards() -> None:
    def make(rng: random.Random) -> tuple[ClubsGame, ClubsState]:
        deck = [rng.randrange(DECK_SIZE) for _ in range(DECK_SIZE)]
        players = rng.choice([2, 3, 4])
        return ClubsGame(seats=players), new_game([deck], players, 5)

    check_game(make, playouts=8)


@given(st.integers(min_value=2, max_value=4), st.randoms(use_true_random=False))
def test_every_hand_has_52_over_n_cards(players: int, rng: random.Random) -> None:
    deck = shuffled(rng)
    hands = deal(deck, players)
    assert [len(hand) for hand in hands] == [DECK_SIZE // players] * players
    dealt = sorted(c for hand in hands for c in hand)
    expected = sorted(deck)
    if players == 3:
        expected.remove(TWO_OF_DIAMONDS)
    assert dealt == expected


def test_deal_order_is_round_robin_from_a() -> None:
    deck = list(range(DECK_SIZE))
    hands = deal(deck, 4)
    assert hands[0][:3] == [0, 4, 8]
    assert hands[3][-1] == 51


def test_three_players_without_a_2d_drop_the_last_card() -> None:
    deck = [c if c != TWO_OF_DIAMONDS else card("3D") for c in range(DECK_SIZE)]
    hands = deal(deck, 3)
    assert [len(hand) for hand in hands] == [17, 17, 17]
    assert card("AH") not in [c for hand in hands for c in hand]


def test_trick_winner_is_the_highest_of_the_led_suit() -> None:
    trick = [card("5H"), card("AS"), card("9H"), card("KH")]
    assert trick_winner(trick, leader=0, players=4) == 3
    assert trick_winner(trick, leader=2, players=4) == 1
    # Off-suit aces do not win; a duplicate does not beat the first copy.
    assert trick_winner([card("2D"), card("AC"), card("2D")], leader=1, players=3) == 1


def sorted_deck_game(winscore: int = 10) -> ClubsState:
    return new_game([list(range(DECK_SIZE))], 2, winscore)


def test_must_follow_suit_and_hold_the_card() -> None:
    state = sorted_deck_game()
    assert state.to_move == 0
    with pytest.raises(IllegalMove, match="not in the hand"):
        play(state, card("3S"))  # B's card
    state = play(state, card("2D"))
    with pytest.raises(IllegalMove, match="does not follow suit"):
        play(state, card("3S"))
    after = play(state, card("3D"))
    assert after.leader == 1 and after.trick == () and after.to_move == 1


def test_clubs_score_to_the_trick_winner_and_the_game_ends_at_winscore() -> None:
    referee = ClubsGame()
    state = sorted_deck_game(winscore=10)
    state = play(state, card("2D"))
    state = play(state, card("3D"))
    state = play(state, card("2C"))  # B leads clubs
    state = play(state, card("3C"))  # A wins 2 clubs
    assert state.scores == (2, 0) and state.leader == 0
    while not state.finished:
        state = play(state, referee.legal_moves(state)[0])
    outcome = referee.outcome(state)
    assert outcome is not None
    assert sum(outcome.scores) == 13 * (state.round + 1)  # every club is won once a round
    assert max(outcome.scores) >= 10
    assert referee.to_move(state) is None and referee.legal_moves(state) == ()
    with pytest.raises(IllegalMove):
        play(state, card("2S"))


def test_rounds_cycle_through_the_decks_and_the_last_winner_leads() -> None:
    decks = [list(range(DECK_SIZE)), list(reversed(range(DECK_SIZE)))]
    referee = ClubsGame()
    state = new_game(decks, 2, 100)
    rounds = [state]
    while len(rounds) < 4:
        before = state
        move = referee.legal_moves(state)[-1]
        state = play(state, move)
        if state.round != before.round:
            last_trick = (*before.trick, move)
            assert state.leader == trick_winner(last_trick, before.leader, 2)
            assert state.to_move == state.leader
            rounds.append(state)
    assert [r.round for r in rounds] == [0, 1, 2, 3]
    assert rounds[1].hands == tuple(tuple(h) for h in deal(decks[1], 2))
    assert rounds[2].hands == rounds[0].hands
    assert rounds[3].hands == rounds[1].hands


def test_new_game_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="2 to 4"):
        new_game([list(range(DECK_SIZE))], 5, 10)
    with pytest.raises(ValueError, match="52 cards"):
        new_game([list(range(51))], 2, 10)
    with pytest.raises(ValueError, match="positive"):
        new_game([list(range(DECK_SIZE))], 2, 0)
