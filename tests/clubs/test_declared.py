"""Clubs on the game declaration (issue 17): the rules through the conformance suite, the
built-in AI as the standard player, hidden hands (a seat's view, the spectator's, the record),
the pictures in the game's own words, and a 3-player game over the JSON bot protocol in which
seat 0 never hears another seat's hand and the bus carries none while the game goes on."""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any

import pytest
import trio
import trio.testing

from hub.core.commands.plugin import discover, pictures
from hub.core.io.lines import LineStream
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import Event, GameEnded, GameStarted, MoveMade, to_json
from hub.core.model.values import PlayerInfo
from hub.core.play.game import SettingsError
from hub.core.play.jsonbot import JsonCodec
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.core.play.threads import StopFlag
from hub.declared.seats import ai_seat
from hub.games.clubs.cards import card_text
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.rules import ClubsState
from hub.testing import check_game
from tests.clubs.helpers import DECKS, SPEC_EXAMPLE, standard

CARD = re.compile(r"\b[2-9TJQKA][SCDH]\b")


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_rules_pass_the_conformance_suite(seats: int) -> None:
    def make(rng: random.Random) -> tuple[ClubsGame, ClubsState]:
        game = ClubsGame({"winscore": 8}, seats=seats)
        return game, game.start(rng)

    outcomes = check_game(make, playouts=6, illegal_checks_per_ply=1)
    assert all(len(outcome.scores) == seats for outcome in outcomes)


def test_settings_and_deals() -> None:
    game = ClubsGame(seats=3)
    assert game.settings == {"winscore": 20, "deck": ""}
    first, second = game.start(random.Random(1)), game.start(random.Random(2))
    assert first.hands != second.hands and [len(hand) for hand in first.hands] == [17] * 3
    assert game.start(random.Random(1)) == first
    deck = str(SPEC_EXAMPLE / "one-sorted-deck.decks")
    dealt = ClubsGame({"deck": deck}).start(random.Random(5))
    assert sorted(dealt.hands[0] + dealt.hands[1]) == list(range(52))
    with pytest.raises(SettingsError, match=r"deck: cannot read /no/such\.decks"):
        ClubsGame({"deck": "/no/such.decks"})
    with pytest.raises(SettingsError, match="clubs takes 2 to 4 players, not 5"):
        ClubsGame(seats=5)
    assert pictures("clubs") is not None and discover()["clubs"].serve is not None


def test_the_ai_is_the_standard_player() -> None:
    """Every card the built-in AI plays, in whole 2-, 3- and 4-player games from the packaged
    decks, is the one the tests' own reading of clubs.md's strategy picks."""
    for seats in (2, 3, 4):
        game = ClubsGame({"winscore": 15, "deck": str(DECKS / "ex.decks")}, seats=seats)
        state = game.start(random.Random(seats))
        played: list[str] = []
        round_ = 0
        while state.to_move is not None:
            if state.round != round_:
                round_, played = state.round, []
            hand = [card_text(card) for card in sorted(state.hands[state.to_move])]
            trick = [card_text(card) for card in state.trick]
            assert game.ai is not None  # honest: it is given its seat's view alone
            card = game.ai.move(game, game.view(state, state.to_move), 1, math.inf, StopFlag())
            assert card_text(card) == standard(hand, trick, seats, played)
            played.append(card_text(card))
            state = game.apply(state, card)
        assert game.outcome(state) is not None


def test_a_seat_sees_its_own_hand_a_spectator_none_the_record_all() -> None:
    game = ClubsGame(seats=3)
    state = game.start(random.Random(3))
    state = game.apply(state, game.legal_moves(state)[0])
    mine = game.view(state, 1)
    assert mine["seat"] == 1 and mine["cards"] == [16, 17, 17]
    assert mine["hands"][0] is None and mine["hands"][2] is None
    assert mine["hands"][1] == [card_text(card) for card in sorted(state.hands[1])]
    public = game.view(state, None)
    assert public["hands"] == [None, None, None] and "seat" not in public
    assert set(CARD.findall(json.dumps(public))) == set(public["trick"])
    assert game.hidden is not None
    revealed = game.hidden.record_view(state)
    assert [len(hand) for hand in revealed["hands"]] == [16, 17, 17]
    concealed = game.hidden.concealed(revealed)
    assert concealed == {**revealed, "hands": [None] * 3, "cards": [16, 17, 17]}


def test_the_pictures_say_the_game_s_words() -> None:
    game = ClubsGame()
    view = {
        "players": 2,
        "round": 0,
        "hands": [["AS", "TH"], None],
        "cards": [2, 3],
        "trick": ["2H"],
        "leader": 1,
        "to_move": 0,
        "scores": [0, 4],
        "winscore": 20,
        "finished": False,
        "seat": 0,
    }
    assert game.pictures.text(view, ["ann", "bob"]).splitlines() == [
        "Round 1, first to 20",
        "  >A ann    0  AS TH",
        " L B bob    4  (3 cards)",
        "  trick: 2H",
    ]
    assert game.pictures.text(view).splitlines()[1] == "  >A    0  AS TH"
    html = game.pictures.html(view, ["ann", "<b>"])
    # the viewer's own cards it may play (following hearts) carry data-move
    assert re.findall(r'data-move="(\w+)"', html) == ["TH"]
    assert 'class="card black">A\u2660' in html and '<span class="backs">3 cards</span>' in html
    assert "&lt;b&gt; (leads)" in html and "Round 1, playing to 20" in html
    assert game.seat_name(2) == "player C" and game.seat_name(3) == "player D"


async def test_seat_0_of_a_json_game_never_hears_another_hand_nor_does_the_bus() -> None:
    """A 3-player game: a bot over the JSON protocol in seat 0 (answering with the first
    legal card), the built-in AI in seats 1 and 2. Every line sent to seat 0 names only
    cards of its own hand or cards already on the table; every event published while the
    game goes on names only cards on the table; the record, once the game is over, has
    every hand."""
    game = ClubsGame({"winscore": 6}, seats=3)
    state = game.start(random.Random(11))
    hub_end, bot_end = trio.testing.memory_stream_pair()
    bot_seat = LineSeat(LineStream(hub_end, hub_end), JsonCodec(game), PlayerInfo("bot"))
    seats = [bot_seat, ai_seat(game, 1, 1, threaded=False), ai_seat(game, 1, 2, threaded=False)]
    bus = EventBus()
    events: list[Event] = []
    bus.listen(events.append)
    heard: list[tuple[str, set[str], set[str]]] = []
    """(line, seat 0's hand then, every card shown on the table so far) per line."""
    match = Match(game, state, seats, events=bus, time_control=TimeControl())

    def table_so_far() -> set[str]:
        return {card_text(move) for _, move in match.moves}

    async def bot() -> None:
        lines = LineStream(bot_end, bot_end)
        while True:
            line = await lines.receive_line(1 << 20)
            own = {card_text(card) for card in match.state.hands[0]}
            heard.append((line, own, table_so_far()))
            message = json.loads(line)
            if message["type"] == "turn":
                await lines.send_line(json.dumps({"move": message["legal"][0]}))
            elif message["type"] == "end":
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot)
        with trio.fail_after(60):
            result = await match.run()
    assert result.fault is None and result.state.finished
    kinds = {json.loads(line)["type"] for line, _, _ in heard}
    assert {"start", "turn", "moved", "end"} <= kinds
    for line, own, shown in heard:
        message = json.loads(line)
        if message["type"] == "turn":
            hands = message["view"]["hands"]
            assert hands[1] is None and hands[2] is None and set(hands[0]) == own
        assert set(CARD.findall(line)) <= own | shown, line
    during = [event for event in events if isinstance(event, GameStarted | MoveMade)]
    assert len(during) == len(result.moves) + 1
    public: set[str] = set()
    for event in during:
        if isinstance(event, MoveMade):
            public.add(event.move)
        hidden = [] if event.state["finished"] else None  # the last card emptied every hand
        assert all(hand == hidden for hand in event.state["hands"])
        assert set(CARD.findall(json.dumps(to_json(event)))) <= public
    (ended,) = [event for event in events if isinstance(event, GameEnded)]
    first: Any = ended.record.initial_state
    assert [len(hand) for hand in first["hands"]] == [17, 17, 17]
    assert all(None not in move.state["hands"] for move in ended.record.moves)
