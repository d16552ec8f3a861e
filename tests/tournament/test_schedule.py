"""The schedule is fair: every opening is played with every seat order of its round, each
player sits in each seat equally often, ids are stable, and it is a pure function."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.tournament.schedule import (
    display_names,
    game_id,
    make_schedule,
    new_match_id,
    rounds_for,
    seating,
    seed_of,
)


def build(players: list[str], games: int, openings: list[object]):  # type: ignore[no-untyped-def]
    return make_schedule(
        match_id="abc",
        game="g",
        players=players,
        settings={"x": 1},
        games=games,
        seed=7,
        openings=openings,
    )


def test_two_players_swap_sides_on_each_opening() -> None:
    plan = build(["a", "b"], 6, ["o1", "o2", "o3"])
    assert [(g.spec.players, g.spec.opening) for g in plan.games] == [
        (("a", "b"), "o1"),
        (("b", "a"), "o1"),
        (("a", "b"), "o2"),
        (("b", "a"), "o2"),
        (("a", "b"), "o3"),
        (("b", "a"), "o3"),
    ]
    assert [g.seating for g in plan.games] == [(0, 1), (1, 0)] * 3
    assert [g.spec.game_id for g in plan.games] == [f"abc-{i:05d}" for i in range(6)]
    assert [g.index for g in plan.games] == list(range(6))
    assert all(g.spec.settings == {"x": 1} for g in plan.games)


def test_openings_are_reused_in_turn() -> None:
    plan = build(["a", "b"], 8, ["o1", "o2"])
    assert [g.spec.opening for g in plan.games] == ["o1", "o1", "o2", "o2"] * 2


def test_no_openings_means_the_usual_start() -> None:
    assert {g.spec.opening for g in build(["a", "b"], 4, []).games} == {None}


@pytest.mark.parametrize("count", [3, 4])
def test_clubs_rotates_the_seat_order(count: int) -> None:
    players = [f"p{i}" for i in range(count)]
    plan = build(players, count * 3, ["x", "y", "z"])
    seats: Counter[tuple[str, int]] = Counter()
    for game in plan.games:
        for seat, player in enumerate(game.spec.players):
            seats[(player, seat)] += 1
            assert players[game.seating[seat]] == player
    assert set(seats.values()) == {3}  # each player in each seat, once per round
    assert len(seats) == count * count
    for start in range(0, len(plan.games), count):
        round_ = plan.games[start : start + count]
        assert len({g.spec.opening for g in round_}) == 1  # one opening per round


@given(
    st.integers(min_value=2, max_value=4),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=1, max_value=4),
)
def test_every_full_round_is_fair(count: int, rounds: int, openings: int) -> None:
    players = [f"p{i}" for i in range(count)]
    plan = build(players, count * rounds, list(range(openings)))
    for player in range(count):
        seats = Counter(g.seating.index(player) for g in plan.games)
        assert seats == dict.fromkeys(range(count), rounds)
    # the schedule is a pure function of its inputs
    assert plan == build(players, count * rounds, list(range(openings)))
    assert rounds_for(len(plan), count) == rounds


def test_ids_and_seeds() -> None:
    one, two = new_match_id(), new_match_id()
    assert one != two and len(one) == 32
    assert seed_of(one) == seed_of(one) == int(one[:8], 16)
    assert game_id("m", 12) == "m-00012"
    assert seating(5, 3) == (2, 0, 1)
    assert rounds_for(5, 2) == 3


def test_display_names_number_repeats() -> None:
    assert display_names(["ai:4", "ai:4", "x", "ai:4"]) == ("ai:4", "ai:4 #2", "x", "ai:4 #3")
