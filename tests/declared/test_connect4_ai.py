"""Connect Four's built-in player (hub/games/connect4/ai.py): the threats it computes are the
cells that complete a line (against brute force, every grid size), the evaluation's
properties (mirror images alike, colours swapped opposite, the odd/even rule), immediate
threats from level 2, a bounded table, and a deeper level beating a shallower one."""

from __future__ import annotations

import contextlib
import math
import random

import pytest

from hub.core.play.threads import StopFlag
from hub.games.connect4 import DISCS, Board, ConnectFour, ai
from hub.games.connect4.ai import (
    PROVEN,
    TEMPO,
    WIN,
    AlphaBeta,
    Grid,
    bitboards,
    endgame,
    grid,
    negamax,
)


def play(game: ConnectFour, moves: str) -> Board:
    state = game.start(random.Random(0))
    for move in moves:
        state = game.apply(state, int(move, 16))
    return state


def random_positions(game: ConnectFour, count: int, seed: int) -> list[Board]:
    """Positions of seeded random play that are not over (so some hold threats)."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        state = game.start(rng)
        for _ in range(rng.randrange(1, 30)):
            if game.to_move(state) is None:
                break
            found.append(state)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    return found[:count]


def brute_threats(game: ConnectFour, g: Grid, discs: int, mask: int) -> int:
    """Every empty cell of the grid whose disc would complete a line of ``discs``."""
    found = 0
    for c in range(g.columns):
        for r in range(g.rows):
            cell = 1 << (c * g.height + r)
            if not cell & mask and any((w & (discs | cell)) == w for w in g.windows if w & cell):
                found |= cell
    return found


@pytest.mark.parametrize(
    "rows, columns, connect", [(6, 7, 4), (4, 4, 3), (7, 9, 5), (12, 12, 6), (5, 4, 4)]
)
def test_the_threats_are_the_cells_that_complete_a_line(
    rows: int, columns: int, connect: int
) -> None:
    game = ConnectFour({"rows": rows, "columns": columns, "connect": connect})
    g = grid(rows, columns, connect)
    for state in random_positions(game, 60, rows * columns + connect):
        mine, mask = bitboards(g, state, DISCS)
        for discs in (mine, mine ^ mask):
            assert g.threats(discs) & ~mask == brute_threats(game, g, discs, mask)


def mirrored(state: Board) -> Board:
    return Board(tuple(reversed(state.columns)), state.mover)


def other_to_move(state: Board) -> Board:
    """The same discs, the other side to move."""
    return Board(state.columns, 1 - state.mover)


def test_the_evaluation_scores_mirror_images_alike_and_either_side_opposite() -> None:
    game, g = ConnectFour(), grid(6, 7, 4)
    assert g.evaluate(0, 0) == TEMPO  # the empty grid: nothing but the move
    without_threats = 0
    for state in random_positions(game, 300, 28):
        mine, mask = bitboards(g, state, DISCS)
        score = g.evaluate(mine, mask)
        assert g.evaluate(*bitboards(g, mirrored(state), DISCS)) == score
        if not g.threats(mine) & ~mask and not g.threats(mine ^ mask) & ~mask:
            # windows only: for the other side, the opposite (but for the move's own worth)
            assert g.evaluate(*bitboards(g, other_to_move(state), DISCS)) - TEMPO == -(
                score - TEMPO
            )
            without_threats += 1
    assert without_threats > 50


def test_a_threat_on_its_own_rows_is_worth_more_to_each_side() -> None:
    """The odd/even rule: the first player's threats win a filled-up grid on odd rows (1: the
    bottom), the second's on even ones."""
    g = grid(6, 7, 4)
    row = [1 << (3 * g.height + r) for r in range(6)]  # column 4's cells, row 1 first
    for first in (True, False):
        mine_rows, other_rows = (row[0::2], row[1::2]) if first else (row[1::2], row[0::2])
        for good in mine_rows:
            for bad in other_rows:
                assert g.parity(good, 0, first) > g.parity(bad, 0, first) > 0
                assert g.parity(0, bad, not first) == -g.parity(bad, 0, first)
        assert g.parity(row[2] | row[3], row[2] | row[3], first) == 0


def test_level_one_takes_a_win_level_two_also_blocks_one() -> None:
    game = ConnectFour()
    win = play(game, "112233")  # Red: 1, 2, 3 on the bottom row; 4 wins
    assert [negamax(game, win, level, math.inf, StopFlag()) for level in (1, 2)] == [4, 4]
    block = play(game, "21374")  # Red: 2, 3, 4 on the bottom row, Yellow's disc in 1
    assert game.to_move(block) == 1
    assert negamax(game, block, 1, math.inf, StopFlag()) == 4  # the beginner: the centre
    assert negamax(game, block, 2, math.inf, StopFlag()) == 5
    # Red: 3, 4, 5, both ends open: lost whatever Yellow plays; it still answers a legal move
    assert negamax(game, play(game, "37475"), 2, math.inf, StopFlag()) in range(1, 8)


def test_the_table_stays_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ai, "TABLE_SIZE", 64)
    game, g = ConnectFour(), grid(6, 7, 4)
    search = AlphaBeta(g, math.inf, StopFlag())
    mine, mask = bitboards(g, play(game, "44"), DISCS)
    for depth in range(1, 7):
        search.root(mine, mask, depth, list(g.order))
        assert len(search.table) <= 64
    assert search.table and search.nodes > 64


def horizon(g: Grid, state: Board, quiet: bool) -> int:
    """The score of ``state`` for the side to move with no depth left."""
    search = AlphaBeta(g, math.inf, StopFlag())
    search.quiet = quiet
    return search.negamax(*bitboards(g, state, DISCS), 0, -2 * WIN, 2 * WIN, 0)


def test_a_quiet_horizon_sees_a_double_threat_past_the_depth() -> None:
    """At the horizon the evaluation alone misses a win a move away (Red's 3 makes two
    threats at once, 2 and 6) or behind forced replies (no move makes two threats at once,
    but threats the opponent must block lead to two); the quiet horizon of the levels in
    `QUIET` searches the moves that make a threat and finds both, and it scores a position
    without such a move as the evaluation does."""
    game, g = ConnectFour(), grid(6, 7, 4)
    for moves in ("4455", "313224", "45"):  # a double threat at once; behind threats; none
        state = play(game, moves)
        assert horizon(g, state, False) == g.evaluate(*bitboards(g, state, DISCS)) < PROVEN
        assert (horizon(g, state, True) > PROVEN) == (moves != "45")
    assert horizon(g, play(game, "45"), True) == horizon(g, play(game, "45"), False)
    assert ai.QUIET and min(ai.QUIET) > 1  # level 1 does not search


def test_a_level_plays_the_same_moves_at_any_load() -> None:
    game = ConnectFour()
    state = play(game, "4453")
    moves = {negamax(game, state, 6, math.inf, StopFlag()) for _ in range(2)}
    assert len(moves) == 1


def test_a_deeper_level_beats_a_shallower_one_from_the_same_openings() -> None:
    """Level 4 against level 1, each opening (two random plies) played with either colour."""
    game, score = ConnectFour(), 0.0
    for first in (2, 4, 6):
        for second in (1, 5):
            for deep in (0, 1):
                state = play(game, f"{first}{second}")
                while game.to_move(state) is not None:
                    level = 4 if game.to_move(state) == deep else 1
                    state = game.apply(state, negamax(game, state, level, math.inf, StopFlag()))
                score += 1 if state.winner == deep else 0.5 if state.winner is None else 0
    assert score >= 9  # of 12


def brute_worth(game: ConnectFour, state: Board, memo: dict[Board, int]) -> int:
    """The exact result for the side to move (1 a win, 0 a draw, -1 a loss) by trying every
    move to the end with the rules themselves (small positions only)."""
    if state not in memo:
        if game.to_move(state) is None:
            memo[state] = 0 if state.winner is None else -1  # the last move won
        else:
            memo[state] = max(
                -brute_worth(game, game.apply(state, m), memo) for m in game.legal_moves(state)
            )
    return memo[state]


def late_positions(game: ConnectFour, count: int, empties: int, seed: int) -> list[Board]:
    """Positions of seeded random play, not over, with ``empties`` empty cells."""
    rng, found = random.Random(seed), []
    cells = int(game.settings["rows"]) * int(game.settings["columns"])
    while len(found) < count:
        state = game.start(rng)
        while game.to_move(state) is not None:
            if cells - sum(map(len, state.columns)) == empties:
                found.append(state)
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    return found


def solved(g: Grid, state: Board, moves: list[int], limit: float = math.inf) -> dict[int, int]:
    mine, mask = bitboards(g, state, DISCS)
    worth: dict[int, int] = {}
    with contextlib.suppress(TimeoutError):
        AlphaBeta(g, math.inf, StopFlag(), limit).solve(mine, mask, moves, worth)
    return worth


def test_the_endgame_solver_finds_a_double_threat_and_a_lost_position() -> None:
    game, g = ConnectFour(), grid(6, 7, 4)
    # Red on 4 and 5 at the bottom, Yellow on top of them: Red's 3 makes 2 and 6 threats
    assert solved(g, play(game, "4455"), [2]) == {2: 1}
    # Red on 3, 4, 5 at the bottom, both ends open, Yellow to move: every column loses
    lost = play(game, "37475")
    assert solved(g, lost, list(g.order)) == {c: -1 for c in range(7)}
    # a node budget of one: the first column is proven lost, then the solve stops
    assert solved(g, lost, list(g.order), limit=1) == {3: -1}
    assert endgame(g, *bitboards(g, lost, DISCS), list(g.order), 1, math.inf, StopFlag()) == [
        2, 4, 1, 5, 0, 6
    ]  # fmt: skip


@pytest.mark.parametrize("rows, columns, connect", [(6, 7, 4), (4, 4, 3), (5, 4, 4)])
def test_the_endgame_solver_agrees_with_trying_every_move(
    rows: int, columns: int, connect: int
) -> None:
    """Each column's worth against a brute force over the rules, on positions with 9 empty
    cells; the columns `endgame` keeps: a win alone, else the best result's, else all."""
    game = ConnectFour({"rows": rows, "columns": columns, "connect": connect})
    g, memo, results = grid(rows, columns, connect), {}, set()
    for state in late_positions(game, 40, 9, rows * columns):
        moves = [m - 1 for m in game.legal_moves(state)]
        exact = {c: -brute_worth(game, game.apply(state, c + 1), memo) for c in moves}
        worth = solved(g, state, moves)
        assert worth == {c: exact[c] for c in worth}  # all, or up to the first win
        assert len(worth) == len(moves) or worth[list(worth)[-1]] == 1
        kept = endgame(g, *bitboards(g, state, DISCS), moves, 10**9, math.inf, StopFlag())
        best = max(exact.values())
        if best == 1:
            assert len(kept) == 1 and exact[kept[0]] == 1
        else:
            assert kept == [c for c in moves if exact[c] == best or best < 0]
        results.add(best)
    assert results == ({-1, 0, 1} if connect == 4 else {-1, 1})  # three in a row: no draws


def test_the_solving_levels_play_a_winning_move_the_same_at_any_load() -> None:
    """Levels 7 and 8 solve a late position: where the side to move can win, they play a
    winning move (level 6, seven plies, need not), the same every time."""
    game = ConnectFour()
    memo: dict[Board, int] = {}
    won = [
        state for state in late_positions(game, 30, 11, 7) if brute_worth(game, state, memo) == 1
    ]
    assert len(won) >= 5
    for state in won[:5]:
        for level in (7, 8):
            moves = {negamax(game, state, level, math.inf, StopFlag()) for _ in range(2)}
            assert len(moves) == 1
            assert brute_worth(game, game.apply(state, moves.pop()), memo) == -1
