"""Clubs' cards are written one way on the pages (issue 25): the move list says ``10♥``
where the hand shows it, not the protocol's ``TH``; the wire keeps ``TH`` (``data-move``)."""

from __future__ import annotations

import random

from hub.games.clubs.cards import CARD_TEXT
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.pictures import card_html, card_words
from hub.web.views import move_words


def test_the_move_list_writes_a_card_as_the_hand_shows_it() -> None:
    game = ClubsGame()
    state = game.start(random.Random(1))
    before = game.view(state, None)
    hand = game.pictures.html(game.view(state, state.to_move))  # the mover's page: its hand
    legal = [game.move_text(state, card) for card in game.legal_moves(state)]
    assert legal
    for text in legal:
        words = move_words("clubs", before, text)  # the page's move list
        assert f">{words}</span>" in hand and f'data-move="{text}"' in hand
    assert move_words("clubs", before, "TH") == "10\u2665"
    assert move_words("clubs", before, "AS") == "A\u2660"


def test_every_card_has_one_written_form() -> None:
    words = [card_words(text) for text in CARD_TEXT]
    assert len(set(words)) == 52 and not any("T" in word for word in words)
    for text in CARD_TEXT:
        assert f">{card_words(text)}</span>" in card_html(text)
        assert f'data-move="{text}"' in card_html(text, move=True)
