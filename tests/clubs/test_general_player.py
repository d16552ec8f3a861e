"""The general game player on clubs (hidden hands): it decides from its seat's view alone.

The sampler (sampling.py) deals the unseen cards so that the seat's view of the sample is
the view it was given; the player, handed only a view, calls the rules on no state but the
ones it sampled and the states that follow from them; its seat, handed the real state by the
match loop, passes on the view only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from hub.core.model.referee import Outcome
from hub.core.play.game import Search
from hub.core.play.mcts import Budget, choose, choose_from_view
from hub.core.play.threads import StopFlag, TurnTime
from hub.declared.seats import SeatSpec, general_seat, parse_seat
from hub.games.clubs.cards import suit_of
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.rules import ClubsState
from hub.games.clubs.sampling import sample_state, voids


def position(players: int, plies: int, seed: int) -> ClubsState:
    """A position ``plies`` random cards into a game of ``players``."""
    game = ClubsGame(seats=players)
    rng = random.Random(seed)
    state = game.start(rng)
    for _ in range(plies):
        state = game.apply(state, rng.choice(list(game.legal_moves(state))))
    return state


POSITIONS = [
    (players, plies, seed)
    for players in (2, 3, 4)
    for plies in (0, 1, 2, 3, 7, 15, 30)
    for seed in range(3)
]


@pytest.mark.parametrize(("players", "plies", "seed"), POSITIONS)
def test_a_sample_shows_the_seat_exactly_its_view(players: int, plies: int, seed: int) -> None:
    game = ClubsGame(seats=players)
    state = position(players, plies, seed)
    seat = state.to_move
    assert seat is not None
    view = game.view(state, seat)
    for draw in range(4):
        sampled = sample_state(game, view, seat, random.Random(draw))
        assert game.view(sampled, seat) == view
        assert list(game.legal_moves(sampled)) == list(game.legal_moves(state))
        cards = [card for hand in sampled.hands for card in hand] + list(sampled.trick)
        assert len(cards) == len(set(cards))  # no card twice
        for other, suit in voids(sampled.trick, sampled.leader, players).items():
            assert all(suit_of(card) != suit for card in sampled.hands[other])


def test_a_player_who_did_not_follow_suit_is_dealt_none_of_it() -> None:
    game = ClubsGame(seats=3)
    for seed in range(40):
        state = position(3, 38 + seed % 12, seed)  # late in a round: voids are common
        shown = voids(state.trick, state.leader, 3)
        if not shown:
            continue
        seat = state.to_move
        assert seat is not None
        sampled = sample_state(game, game.view(state, seat), seat, random.Random(seed))
        for other, suit in shown.items():
            assert all(suit_of(card) != suit for card in sampled.hands[other])
        return
    pytest.fail("no position with a void in 40 deals")


class Watched(ClubsGame):
    """Clubs whose rules fail on any state the player did not sample (or reach from a
    sample); the real state is allowed only where the seat reads its view of it."""

    real: ClassVar[list[ClubsState]] = []
    sampled: ClassVar[dict[int, ClubsState]] = {}  # id -> state (kept alive)
    calls: ClassVar[list[str]] = []
    planted: ClassVar[list[Any]] = []

    @classmethod
    def reset(cls) -> None:
        cls.real.clear()
        cls.sampled.clear()
        cls.calls.clear()
        cls.planted.clear()

    def _check(self, name: str, state: ClubsState) -> None:
        self.calls.append(name)
        assert all(state is not real for real in self.real), f"{name} on the real state"
        assert self.sampled.get(id(state)) is state, f"{name} on a state it did not sample"

    def seats(self, state: ClubsState) -> int:
        self._check("seats", state)
        return super().seats(state)

    def to_move(self, state: ClubsState) -> int | None:
        if any(state is real for real in self.real):  # the seat finding its seat number
            self.calls.append("seat's to_move")
            return state.to_move
        self._check("to_move", state)
        return super().to_move(state)

    def legal_moves(self, state: ClubsState) -> Sequence[int]:
        self._check("legal_moves", state)
        return super().legal_moves(state)

    def apply(self, state: ClubsState, move: int) -> ClubsState:
        self._check("apply", state)
        after = super().apply(state, move)
        self.sampled[id(after)] = after
        return after

    def outcome(self, state: ClubsState) -> Outcome | None:
        self._check("outcome", state)
        return super().outcome(state)

    def view(self, state: ClubsState, seat: int | None = None) -> Any:
        assert any(state is real for real in self.real), "a view of a state it sampled"
        view = super().view(state, seat)
        self.planted.append(view)
        return view


def watched_sample(game: Any, view: Any, seat: int, rng: random.Random) -> ClubsState:
    assert all(hand is None for other, hand in enumerate(view["hands"]) if other != seat)
    state = sample_state(game, view, seat, rng)
    Watched.sampled[id(state)] = state
    return state


Watched.search = Search(sample=watched_sample)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_player_calls_the_rules_only_on_states_it_sampled(players: int) -> None:
    Watched.reset()
    game = Watched(seats=players)
    state = position(players, 5, players)
    seat = state.to_move
    assert seat is not None
    view = ClubsGame(seats=players).view(state, seat)  # planted: the seat's view, no hidden hand
    move = choose_from_view(game, view, seat, watched_sample, random.Random(0), Budget(60))
    assert move in ClubsGame(seats=players).legal_moves(state)
    assert Watched.calls.count("apply") > 60  # it did search, every call checked


def test_the_seat_hands_the_player_its_view_and_nothing_else() -> None:
    Watched.reset()
    game = Watched(seats=3)
    state = position(3, 4, 1)
    Watched.real.append(state)
    spec = parse_seat("mcts:1", Watched)
    assert spec == SeatSpec("ai", "mcts:1", level=1)
    seat = general_seat(game, spec, seed=3)
    move = seat.think(state, TurnTime(), StopFlag())
    assert move in ClubsGame(seats=3).legal_moves(state)
    assert len(Watched.planted) == 1 and Watched.planted[0]["seat"] == state.to_move
    assert Watched.calls.count("apply") >= 50  # level 1: 50 playouts, all on samples


def test_the_watch_catches_a_player_that_peeks() -> None:
    """The check above can fail: searching the real state (what a peeking player would do)
    trips it at the first call."""
    Watched.reset()
    game = Watched(seats=2)
    state = position(2, 3, 0)
    Watched.real.append(state)
    with pytest.raises(AssertionError, match="real state"):
        choose(game, state, random.Random(0), Budget(20))


def test_the_same_seed_and_budget_give_the_same_card() -> None:
    game = ClubsGame(seats=3)
    state = position(3, 4, 2)
    seat = state.to_move
    assert seat is not None
    view = game.view(state, seat)
    cards = {
        choose_from_view(game, view, seat, sample_state, random.Random(5), Budget(40))
        for _ in range(3)
    }
    assert len(cards) == 1
