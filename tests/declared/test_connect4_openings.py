"""``hub match connect4 --opening-plies N`` (hub/games/connect4/match.py): openings of N
random plies, distinct by the discs (three plies reach one grid in two orders, with another
last move), recorded in the settings when not the default; the default's openings are any
game's (two plies: 49 distinct starts)."""

from __future__ import annotations

import json
import random

import pytest

from hub.core.play.game import MatchSetup
from hub.games.connect4 import ConnectFour
from hub.tournament.cli import Setup, build_parser, main
from hub.tournament.worker import load_kit


def setup(*extra: str, games: int) -> Setup:
    kit = load_kit("connect4")
    arguments = ["connect4", "ai:1", "ai:2", "--games", str(games), "--no-record", *extra]
    return Setup(build_parser(kit).parse_args(arguments), kit)


def grids(chosen: Setup) -> list[tuple[tuple[str, ...], int]]:
    """The discs and the side to move each scheduled game starts from (its plan's)."""
    game = ConnectFour
    states = [
        game.setup.plan(game, s.spec.settings, 2, s.spec.opening, s.spec.game_id).state
        for s in chosen.schedule.games
    ]
    return [(state.columns, state.mover) for state in states]


def test_three_plies_give_two_hundred_distinct_starts_and_are_recorded() -> None:
    chosen = setup("--opening-plies", "3", "--seed", "28", games=400)
    assert chosen.settings["opening_plies"] == 3
    openings = [s.spec.opening for s in chosen.schedule.games]
    assert all(len(opening["moves"]) == 3 for opening in openings)
    starts = grids(chosen)
    assert len(set(starts)) == 200  # each played with both colours
    assert all(sum(map(len, columns)) == 3 and mover == 1 for columns, mover in starts)


def test_the_default_is_any_games_two_plies_and_is_not_recorded() -> None:
    chosen = setup("--seed", "28", games=98)
    assert "opening_plies" not in chosen.settings
    openings = [s.spec.opening for s in chosen.schedule.games][::2]
    assert openings == MatchSetup().openings(ConnectFour, chosen.settings, 49, 28)
    assert all(len(opening["moves"]) == 2 for opening in openings)


def test_a_match_from_three_ply_openings_plays_distinct_games(
    capfd: pytest.CaptureFixture[str],
) -> None:
    arguments = ["connect4", "ai:2", "ai:4", "--games", "20", "--tc", "none", "--seed", "1"]
    assert main([*arguments, "--opening-plies", "3", "--json", "--no-record"]) == 0
    report = json.loads(capfd.readouterr().out)
    assert report["scored"] == report["distinct_games"] == 20
    assert main([*arguments, "--opening-plies", "9", "--no-record"]) == 2
    assert "--opening-plies: opening_plies must be at most 8, not 9" in capfd.readouterr().err


def test_one_grid_in_two_orders_is_one_opening() -> None:
    """Red in 1 and 3, Yellow in 2, in either order: one start (the AI reads the discs)."""
    game = ConnectFour()
    ends = []
    for moves in ((1, 2, 3), (3, 2, 1)):
        state = game.start(random.Random(0))
        for move in moves:
            state = game.apply(state, move)
        ends.append(state)
    assert ends[0] != ends[1] and ends[0].columns == ends[1].columns
