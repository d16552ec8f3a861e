"""How clubs appears to the core (hub.games.clubs.codec): the state view contract, the
codec's lines (the prompt rides with the move before it) and the declaration's notation."""

from __future__ import annotations

import json

import attrs
import pytest

from hub.core.model.referee import Termination
from hub.core.play.seats import BadMoveLine
from hub.core.play.vocabulary import NO_LIMIT, Fault, Moved, Start
from hub.games.clubs.cards import parse_card
from hub.games.clubs.codec import ClubsCodec
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.pictures import state_view
from hub.games.clubs.rules import ClubsState, legal_cards, new_game, play

SORTED_DECK = tuple(range(52))


def card(text: str) -> int:
    value = parse_card(text)
    assert value is not None
    return value


def moved(before: ClubsState, move: int) -> Moved[ClubsState, int]:
    after = play(before, move)
    return Moved(before.to_move or 0, move, "", before, after, after.to_move, ())


def test_state_view_shape() -> None:
    state = new_game([SORTED_DECK], 2, 10)
    state = play(state, card("2D"))
    view = state_view(state)
    assert json.loads(json.dumps(view)) == view
    hands = view.pop("hands")
    assert view == {
        "players": 2,
        "round": 0,
        "trick": ["2D"],
        "leader": 0,
        "to_move": 1,
        "scores": [0, 0],
        "winscore": 10,
        "finished": False,
    }
    assert hands[0][:4] == ["2S", "4S", "6S", "8S"]
    assert hands[1][:4] == ["3S", "5S", "7S", "9S"]
    assert "2D" not in hands[0]
    assert [len(hand) for hand in hands] == [25, 26]
    game = ClubsGame()
    assert (game.name, game.move_text(state, card("TH"))) == ("clubs", "TH")
    assert game.hidden is not None
    assert game.hidden.record_view(state) == {**view, "hands": hands}  # a record: every hand


def test_the_first_prompt_goes_with_the_first_newround() -> None:
    state = new_game([SORTED_DECK], 2, 10)
    codec = ClubsCodec()
    lines = [
        codec.begin_lines(seat, Start(seat, state, NO_LIMIT, None))  # type: ignore[arg-type]
        for seat in (0, 1)
    ]
    assert lines[0][0].startswith("newround 2S,4S,")
    assert lines[0][1:] == ["newtrick"]
    assert len(lines[1]) == 1
    assert codec.turn_lines(0, None) == ()  # type: ignore[arg-type]


def test_moved_lines_carry_the_next_prompt_and_the_round_change() -> None:
    codec = ClubsCodec()
    state = new_game([SORTED_DECK], 2, 10)
    first = moved(state, card("2D"))
    assert list(codec.moved_lines(0, first)) == ["played 2D"]
    assert list(codec.moved_lines(1, first)) == ["played 2D", "yourturn"]
    second = moved(first.after, card("3D"))  # B wins the trick and leads
    assert list(codec.moved_lines(0, second)) == ["played 3D", "trickover"]
    assert list(codec.moved_lines(1, second)) == ["played 3D", "trickover", "newtrick"]
    state = second.after
    while True:  # to the last card of the round
        move = legal_cards(state)[0]
        last = moved(state, move)
        if last.after.round != state.round or last.after.finished:
            break
        state = last.after
    lines = list(codec.moved_lines(last.after.to_move or 0, last))
    assert lines[1:3] == ["trickover", f"scores {','.join(map(str, last.after.scores))}"]
    if not last.after.finished:
        assert lines[3].startswith("newround ")
        assert lines[4] == "newtrick"


@pytest.mark.parametrize("line", ["", "3d", "3D ", "10H", "xx" * 40])
def test_a_line_that_is_not_a_card_is_malformed(line: str) -> None:
    with pytest.raises(BadMoveLine):
        ClubsCodec().parse_move(0, line, new_game([SORTED_DECK], 2, 10))


def test_forfeit_keeps_the_scores() -> None:
    state = attrs.evolve(new_game([SORTED_DECK], 3, 10), scores=(4, 1, 2))
    outcome = ClubsGame(seats=3).forfeit(state, Fault(1, Termination.TIMEOUT))
    assert (outcome.scores, outcome.winners, outcome.termination) == (
        (4, 1, 2),
        frozenset({0, 2}),
        Termination.TIMEOUT,
    )
