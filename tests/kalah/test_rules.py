"""Kalah rules: the referee conformance suite, worked examples, and hypothesis properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.core.model.referee import IllegalMove, Outcome
from hub.games.kalah.game import KalahGame
from hub.games.kalah.rules import (
    PIE,
    KalahState,
    Move,
    display_state,
    legal_moves,
    new_game,
    outcome,
    play,
    random_layout,
    sow_one,
    start_turn,
    turn,
)
from hub.testing import check_game


def naive_turn(state: KalahState, holes: tuple[int, ...]) -> tuple[KalahState | None, str]:
    """An independent oracle: walk the pits seed by seed on the seat-indexed board."""
    h = state.holes
    board = list(state.board)
    seat = state.mover
    assert seat is not None
    mine = seat * (h + 1)
    theirs = (1 - seat) * (h + 1)
    for step, hole in enumerate(holes):
        if not 1 <= hole <= h or board[mine + hole - 1] == 0:
            return None, "illegal"
        pit = mine + hole - 1
        seeds, board[pit] = board[pit], 0
        while seeds:
            pit = (pit + 1) % (2 * h + 2)
            if pit == theirs + h:
                continue
            board[pit] += 1
            seeds -= 1
        if mine <= pit < mine + h and board[pit] == 1:
            opposite = theirs + (h - 1 - (pit - mine))
            if board[opposite]:
                board[mine + h] += board[opposite] + 1
                board[pit] = board[opposite] = 0
        side_empty = [not any(board[s * (h + 1) : s * (h + 1) + h]) for s in (0, 1)]
        last = step == len(holes) - 1
        if any(side_empty):
            if not last:
                return None, "illegal"
            for s in (0, 1):
                start = s * (h + 1)
                board[start + h] += sum(board[start : start + h])
                board[start : start + h] = [0] * h
            return KalahState(h, board, None, state.turns + 1, state.pie, state.swapped), "over"
        in_store = pit == mine + h
        if in_store == last:  # must go on exactly while the last seed lands in the store
            return None, "illegal"
    return KalahState(h, board, 1 - seat, state.turns + 1, state.pie, state.swapped), "pass"


# -- conformance -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("holes", "seeds", "pie", "layout"),
    [
        (4, 1, False, False),
        (4, 3, True, False),
        (6, 4, True, False),
        (6, 6, False, True),
        (9, 10, True, True),
        (5, 2, True, True),
        (1, 3, True, False),
    ],
)
def test_check_game(holes: int, seeds: int, pie: bool, layout: bool) -> None:
    def make(rng: random.Random) -> tuple[KalahGame, KalahState]:
        counts = random_layout(holes, seeds, rng) if layout else None
        return KalahGame(), new_game(holes, seeds, pie=pie, layout=counts)

    outcomes = check_game(make, playouts=6 if holes * seeds > 40 else 12)
    for result in outcomes:
        assert sum(result.scores) == 2 * holes * seeds


def test_all_supported_sizes_play_to_the_end() -> None:
    rng = random.Random(7)
    for holes in range(1, 21):
        for seeds in (1, 5, 10, 20):
            state = new_game(holes, seeds, pie=True)
            while not state.over:
                state = play(state, rng.choice(legal_moves(state)))
            result = outcome(state)
            assert result is not None
            assert sum(result.scores) == 2 * holes * seeds


# -- worked example and hand-checked rules ----------------------------------------------------


def test_worked_example_1() -> None:
    state = new_game(4, 1, pie=True)
    state = play(state, turn(4, 3))
    assert state.side(0) == (1, 1, 0, 0) and state.store(0) == 3
    assert state.side(1) == (0, 1, 1, 1)
    assert PIE in legal_moves(state)
    state = play(state, PIE)
    assert state.mover == 0 and state.swapped
    state = play(state, turn(4, 3))
    state = play(state, turn(2))
    assert outcome(state) == Outcome((3, 5), [1])


def test_first_move_may_continue_and_capture_rules() -> None:
    state = new_game(6, 4)
    # Hole 3 with 4 seeds ends in the store: must go on.
    with pytest.raises(IllegalMove, match="must go on"):
        play(state, turn(3))
    after = play(state, turn(3, 1))
    assert after.mover == 1
    with pytest.raises(IllegalMove, match="turn was over"):
        play(state, turn(1, 3))
    with pytest.raises(IllegalMove, match="no hole 7"):
        play(state, turn(7))
    with pytest.raises(IllegalMove, match="empty"):
        play(state, turn(3, 3))


def test_capture_needs_a_non_empty_opposite_hole() -> None:
    # seat 0: holes (0, 1, 0, 2), seat 1: holes (1, 1, 0, 1) -- hole 2's seed lands in
    # empty hole 3, opposite seat 1's hole 2 (1 seed): captured.
    state = KalahState(4, (0, 1, 0, 2, 0, 1, 1, 0, 1, 0))
    after = play(state, turn(2))
    assert after.board == (0, 0, 0, 2, 2, 1, 0, 0, 1, 0)
    # The opposite hole empty: nothing is captured, the seed stays.
    state = KalahState(4, (1, 0, 0, 2, 0, 1, 1, 0, 1, 0))
    after = play(state, turn(1))
    assert after.board == (0, 1, 0, 2, 0, 1, 1, 0, 1, 0)


def test_lap_sows_the_start_hole_and_capture_there() -> None:
    # 2h+1 = 9 seeds from hole 1 of 4 holes: one lap, the last seed lands in the emptied
    # start hole, which captures the opposite hole (seat 1's hole 4).
    state = KalahState(4, (9, 0, 0, 0, 0, 0, 0, 0, 5, 0))
    after = play(state, turn(1))
    assert after.board == (0, 1, 1, 1, 8, 1, 1, 1, 0, 0)
    assert sum(after.board) == 14


def test_end_sweep_even_after_a_store_landing() -> None:
    # seat 0's last seed goes to the store and empties its side: the game ends at once.
    state = KalahState(3, (0, 0, 1, 5, 2, 2, 2, 0))
    after = play(state, turn(3))
    assert after.over
    assert after.board == (0, 0, 0, 6, 0, 0, 0, 6)
    assert outcome(after) == Outcome((6, 6), [0, 1])


def test_pie_only_as_the_reply_to_the_first_turn() -> None:
    state = new_game(4, 2, pie=True)
    with pytest.raises(IllegalMove):
        play(state, PIE)  # too early
    state = play(state, legal_moves(state)[0])
    swapped = play(state, PIE)
    with pytest.raises(IllegalMove):
        play(swapped, PIE)  # only once
    normal = play(state, legal_moves(state)[0])
    if not normal.over:
        with pytest.raises(IllegalMove):
            play(normal, PIE)  # too late
    no_pie = play(new_game(4, 2), turn(1))
    assert PIE not in legal_moves(no_pie)
    with pytest.raises(IllegalMove):
        play(no_pie, PIE)


def test_partial_turns_for_people() -> None:
    partial = start_turn(new_game(6, 4))
    partial = sow_one(partial, 3)
    assert not partial.done
    with pytest.raises(IllegalMove):
        sow_one(partial, 3)
    partial = sow_one(partial, 1)
    assert partial.done and partial.holes == (3, 1)
    assert display_state(partial).board == play(new_game(6, 4), turn(3, 1)).board


def test_move_values() -> None:
    assert str(turn(4, 3)) == "4 3"
    assert str(PIE) == "P"
    with pytest.raises(ValueError):
        Move(())
    with pytest.raises(ValueError):
        Move((1,), pie=True)


def test_settings_are_checked() -> None:
    for holes, seeds in ((0, 4), (21, 4), (6, 0), (6, 21)):
        with pytest.raises(ValueError):
            new_game(holes, seeds)
    with pytest.raises(ValueError):
        new_game(4, 2, layout=(1, 2, 3))
    with pytest.raises(ValueError):
        new_game(4, 2, layout=(1, 2, 3, 3))


# -- properties ---------------------------------------------------------------------------

games = st.builds(
    lambda holes, seeds, pie, seed, random_start: (holes, seeds, pie, seed, random_start),
    st.integers(1, 9),
    st.integers(1, 10),
    st.booleans(),
    st.integers(0, 2**32),
    st.booleans(),
)


def _start(holes: int, seeds: int, pie: bool, seed: int, random_start: bool) -> KalahState:
    rng = random.Random(seed)
    layout = random_layout(holes, seeds, rng) if random_start else None
    return new_game(holes, seeds, pie=pie, layout=layout)


@settings(max_examples=60, deadline=None)
@given(games)
def test_seeds_are_conserved_and_the_game_ends(game: tuple[int, int, bool, int, bool]) -> None:
    holes, seeds, _pie, seed, _random_start = game
    state = _start(*game)
    rng = random.Random(seed + 1)
    total = 2 * holes * seeds
    # Stores never decrease and a turn without a store seed moves a seed right: the game is
    # finite; a generous bound catches a loop.
    for _ in range(10 * total + 10):
        if state.over:
            break
        move = rng.choice(legal_moves(state))
        before = state
        state = play(state, move)
        assert sum(state.board) == total
        assert all(count >= 0 for count in state.board)
        assert state.store(0) >= before.store(0) or move.pie
    assert state.over
    assert state.side(0) == (0,) * holes and state.side(1) == (0,) * holes
    result = outcome(state)
    assert result is not None and sum(result.scores) == total


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 2**32))
def test_turns_go_on_exactly_while_sowings_end_in_the_store(
    game: tuple[int, int, bool, int, bool], seed: int
) -> None:
    state = _start(*game)
    rng = random.Random(seed)
    while not state.over:
        legal = legal_moves(state)
        for move in legal:
            if move.pie:
                continue
            expected, result = naive_turn(state, move.holes)
            assert result != "illegal", move
            assert play(state, move) == expected
        # Cut short, run on, or random sequences: the oracle and the referee agree.
        candidates = list(KalahGame().candidate_moves(state))
        candidates += [Move(tuple(rng.randint(1, state.holes) for _ in range(3)))]
        for move in candidates:
            if move.pie or move in legal:
                continue
            assert naive_turn(state, move.holes)[1] == "illegal", move
            with pytest.raises(IllegalMove):
                play(state, move)
        state = play(state, rng.choice(legal))


@settings(max_examples=60, deadline=None)
@given(games)
def test_pie_swap_is_an_involution(game: tuple[int, int, bool, int, bool]) -> None:
    holes, seeds, _pie, seed, random_start = game
    state = _start(holes, seeds, True, seed, random_start)
    state = play(state, random.Random(seed).choice(legal_moves(state)))
    if state.over:
        return
    swapped = play(state, PIE)
    h = holes + 1
    assert swapped.board == state.board[h:] + state.board[:h]
    assert swapped.board[h:] + swapped.board[:h] == state.board
    # The player who takes the pie hands over exactly the position it was facing.
    assert swapped.relative() == state.relative()
    assert swapped.mover == 0 and sum(swapped.board) == sum(state.board)


def test_board_drawing_faces_the_viewer() -> None:
    from hub.games.kalah.console import draw_board, read_typed

    state = play(new_game(4, 2), turn(4))  # seat 0: 2 2 2 0 | 1, seat 1: 3 2 2 2 | 0
    mine = draw_board(state, 0, ("me", "you"))
    assert mine == [
        "        4    3    2    1   you (North)",
        "     [  2][  2][  2][  3]",  # the opponent's hole 1 faces my hole 4
        "[  0]                    [  1]",
        "     [  2][  2][  2][  0]",
        "        1    2    3    4   me (South)",
    ]
    theirs = draw_board(state, 1)
    assert (
        theirs[3] == "     [  3][  2][  2][  2]" and theirs[2] == "[  1]                    [  0]"
    )
    assert read_typed(" 4, 3 ", 4).holes == (4, 3)
    assert read_typed("Pie", 4).pie and read_typed("quit", 4).quit
    assert read_typed("5", 4).error and read_typed("", 4).error and read_typed("٣", 4).error
