"""Connect Four: the rules pass the conformance suite, the pictures and notation hold, and
the AI never lets go of a win it can see (checked against positions solved here by brute
force)."""

from __future__ import annotations

import functools
import math
import random

import pytest

from hub.core.model.referee import IllegalMove
from hub.core.play.game import BadMove, SettingsError
from hub.core.play.threads import StopFlag
from hub.games.connect4 import Board, ConnectFour
from hub.testing import check_game


@pytest.mark.parametrize(
    "settings",
    [{}, {"rows": 4, "columns": 4, "connect": 3}, {"rows": "12", "columns": "12", "connect": 6}],
)
def test_the_rules_pass_the_conformance_suite(settings: dict[str, object]) -> None:
    def make(rng: random.Random) -> tuple[ConnectFour, Board]:
        game = ConnectFour(settings)
        return game, game.start(rng)

    check_game(make, playouts=30)


@pytest.mark.parametrize("settings", [{}, {"rows": 4, "columns": 5, "connect": 3}])
def test_the_grid_and_the_legal_columns_follow_the_discs(settings: dict[str, object]) -> None:
    """`view`, `to_move` and `apply` count discs with builtins (they run for every move a
    server referees): checked here cell by cell against the columns they are read from."""
    game = ConnectFour(settings)
    rows, columns = int(game.settings["rows"]), int(game.settings["columns"])
    rng = random.Random(5)
    for _ in range(40):
        state = game.start(rng)
        while True:
            grid = game.view(state, 0)["grid"]
            assert isinstance(grid, list)
            for y in range(rows):
                for x in range(columns):
                    column, height = state.columns[x], rows - 1 - y
                    assert grid[y][x] == (column[height] if height < len(column) else ".")
            over = state.winner is not None or all(len(c) == rows for c in state.columns)
            assert (game.to_move(state) is None) == over
            for move in (0, columns + 1, *range(1, columns + 1)):
                legal = not over and 1 <= move <= columns and len(state.columns[move - 1]) < rows
                if not legal:
                    with pytest.raises(IllegalMove):
                        game.apply(state, move)
            if over:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))


def test_settings_are_checked_and_say_what_is_wrong() -> None:
    assert ConnectFour({"rows": "5"}).settings == {"rows": 5, "columns": 7, "connect": 4}
    with pytest.raises(SettingsError, match="rows must be at least 4, not 2"):
        ConnectFour({"rows": 2})
    with pytest.raises(SettingsError, match="columns must be a whole number, not 'x'"):
        ConnectFour({"columns": "x"})
    with pytest.raises(SettingsError, match="unknown setting 'size'"):
        ConnectFour({"size": 3})


def test_a_vertical_four_wins_and_the_pictures_show_it() -> None:
    game = ConnectFour()
    state = game.start(random.Random(0))
    for move in "4343434":
        state = game.apply(state, int(move))
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winners == {0} and outcome.scores == (2, 0)
    view = game.view(state)
    assert game.pictures.text(view).splitlines() == [
        ". . . . . . .",
        ". . . . . . .",
        ". . . R . . .",
        ". . Y R . . .",
        ". . Y R . . .",
        ". . Y R . . .",
        "1 2 3 4 5 6 7",
    ]
    html = game.pictures.html(view)
    assert html.startswith('<svg class="connect4"')
    assert [f'data-move="{n}"' in html for n in range(1, 8)] == [True] * 7
    assert view["last"] == [3, 2] and html.count('class="last"') == 1  # the last disc, marked


def test_notation_tells_a_non_move_from_an_illegal_move() -> None:
    game = ConnectFour({"rows": 4})
    state = game.start(random.Random(0))
    for _ in range(4):
        state = game.apply(state, game.parse_move(state, " 1 "))
    with pytest.raises(BadMove, match="'x' is not a move of connect4"):
        game.parse_move(state, "x")
    full = game.parse_move(state, "1")  # well formed: the referee refuses it
    with pytest.raises(IllegalMove, match="column 1 is full"):
        game.apply(state, full)


# -- the AI against solved positions ------------------------------------------------------------


def _wins_within(game: ConnectFour, state: Board, plies: int) -> bool:
    """True if the side to move can force a win within ``plies`` plies (brute force)."""
    return _solve(game, state, plies)


@functools.cache
def _solve(game: ConnectFour, state: Board, plies: int) -> bool:
    if plies <= 0 or game.to_move(state) is None:
        return False
    for move in game.legal_moves(state):
        after = game.apply(state, move)
        if after.winner is not None:
            return True
        if (
            plies >= 3
            and game.to_move(after) is not None
            and all(
                _solve_after(game, game.apply(after, reply), plies - 2)
                for reply in game.legal_moves(after)
            )
        ):
            return True
    return False


def _solve_after(game: ConnectFour, state: Board, plies: int) -> bool:
    if state.winner is not None:
        return False  # the opponent's reply won
    return _solve(game, state, plies)


def solved_positions(count: int, plies: int) -> list[Board]:
    """Positions from seeded random play in which the side to move can force a win within
    ``plies`` plies, but not within ``plies - 2`` (so the AI must see that far)."""
    game = ConnectFour()
    rng = random.Random(20261126)
    found: list[Board] = []
    while len(found) < count:
        state = game.start(rng)
        while game.to_move(state) is not None and len(found) < count:
            if _wins_within(game, state, plies) and not _wins_within(game, state, plies - 2):
                found.append(state)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    return found


@pytest.mark.parametrize("plies", [1, 3, 5])
def test_the_ai_never_lets_go_of_a_win_it_can_see(plies: int) -> None:
    game = ConnectFour()
    positions = solved_positions(12, plies)
    for level in range(plies, 7):
        for state in positions:
            move = ConnectFour.ai.move(game, state, level, math.inf, StopFlag())
            after = game.apply(state, move)
            assert after.winner is not None or (
                game.to_move(after) is not None
                and all(
                    _solve_after(game, game.apply(after, reply), plies - 2)
                    for reply in game.legal_moves(after)
                )
            ), f"level {level} let go of a win in {plies} from {state} by playing {move}"
