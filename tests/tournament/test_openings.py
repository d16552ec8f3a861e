"""``hub match`` plays distinct openings by default, for every game that has a match kit, and
every game from the usual start with ``--openings fixed``."""

from __future__ import annotations

import json

import pytest

from hub.tournament.cli import Setup, build_parser
from hub.tournament.worker import load_kit

GAMES = [("kalah", ["ai:1", "ai:2"]), ("chess", ["ai:1", "ai:2"]),
         ("clubs", ["clubber", "clubber", "clubber"])]  # fmt: skip
ROUNDS = 12


def setup(game: str, players: list[str], *extra: str) -> Setup:
    kit = load_kit(game)
    games = str(ROUNDS * len(players))
    options = build_parser(kit).parse_args([game, *players, "--games", games, "--no-record",
                                            *extra])  # fmt: skip
    return Setup(options, kit)


@pytest.mark.parametrize(("game", "players"), GAMES, ids=[game for game, _ in GAMES])
def test_the_default_openings_are_distinct(game: str, players: list[str]) -> None:
    schedule = setup(game, players).schedule
    count = len(players)
    openings = [scheduled.spec.opening for scheduled in schedule.games]
    by_round = openings[::count]
    assert None not in by_round
    assert len({json.dumps(opening, sort_keys=True) for opening in by_round}) == ROUNDS
    for index, opening in enumerate(openings):  # every game of a round: the same opening
        assert opening == by_round[index // count]


@pytest.mark.parametrize(("game", "players"), GAMES, ids=[game for game, _ in GAMES])
def test_fixed_openings_are_the_usual_start(game: str, players: list[str]) -> None:
    schedule = setup(game, players, "--openings", "fixed").schedule
    assert {scheduled.spec.opening for scheduled in schedule.games} == {None}
    reused = setup(game, players, "--openings", "3").schedule
    openings = {json.dumps(s.spec.opening, sort_keys=True) for s in reused.games}
    assert len(openings) == 3
