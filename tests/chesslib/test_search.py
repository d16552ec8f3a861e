"""The computer levels: each level's defining preference on chosen positions, level 4's search."""

from __future__ import annotations

import random

import chess
import pytest

from hub.chess.search import (
    MATE_BOUND,
    ComputerPlayer,
    Limits,
    Searcher,
    SearchInfo,
    evaluate,
    exposure,
    is_capture_or_check,
    level1,
    level2,
    level3,
)

SEEDS = range(40)


def test_level1_plays_random_legal_moves_reproducibly() -> None:
    board = chess.Board()
    chosen = [level1(board, random.Random(seed)) for seed in SEEDS]
    assert all(move in board.legal_moves for move in chosen)
    assert len(set(chosen)) >= 12  # 20 moves: a random choice spreads out
    assert chosen == [level1(board, random.Random(seed)) for seed in SEEDS]


def test_level2_prefers_captures_and_checks() -> None:
    # Bxc3+ captures (and checks), Rb8+ checks; thirteen quiet moves besides.
    board = chess.Board("7k/8/8/8/8/2p5/8/BR2K3 w - - 0 1")
    legal = list(board.legal_moves)
    preferred = {move for move in legal if is_capture_or_check(board, move)}
    assert preferred == {chess.Move.from_uci("a1c3"), chess.Move.from_uci("b1b8")}
    assert len(legal) == 15
    chosen = {level2(board, random.Random(seed)) for seed in SEEDS}
    assert chosen == preferred


def test_level2_plays_any_move_when_nothing_captures_or_checks() -> None:
    board = chess.Board()
    chosen = {level2(board, random.Random(seed)) for seed in SEEDS}
    assert len(chosen) >= 12


# The white queen on d4 is attacked by the e5 pawn. Qxe5+ captures and checks but loses the
# queen to the rook; Qd7+ and Qd8+ check into capture; Qa4+ checks from a safe square.
HANGING_QUEEN = "4k3/4r3/8/4p3/3Q4/8/8/4K3 w - - 0 1"


def test_level3_avoids_capture_before_capturing() -> None:
    board = chess.Board(HANGING_QUEEN)
    chosen = {level3(board, random.Random(seed)) for seed in SEEDS}
    assert chosen == {chess.Move.from_uci("d4a4")}  # the only safe check
    assert exposure(board, chess.Move.from_uci("d4e5")) == 900
    # Level 2 falls for the capture (or a check into capture) some of the time.
    level2_choices = {level2(board, random.Random(seed)) for seed in SEEDS}
    assert any(exposure(board, move) > 0 for move in level2_choices)


def test_level3_prefers_a_safe_capture_to_a_safe_check() -> None:
    board = chess.Board("4k3/4r3/1n6/4p3/3Q4/8/8/4K3 w - - 0 1")  # + an undefended knight
    chosen = {level3(board, random.Random(seed)) for seed in SEEDS}
    assert chosen == {chess.Move.from_uci("d4b6")}


def test_level3_moves_out_of_capture_when_nothing_else_matters() -> None:
    # The knight on e4 is attacked by the d5 pawn; no capture or check is on offer.
    board = chess.Board("7k/8/8/3p4/4N3/8/8/K7 w - - 0 1")
    for seed in SEEDS:
        move = level3(board, random.Random(seed))
        assert move.from_square == chess.E4 and exposure(board, move) == 0


MATES_IN_ONE = [
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7"),
    ("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2", "d8h4"),
]
MATES_IN_TWO = [
    ("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", "a1a6"),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", "d5f6"),
]


@pytest.mark.parametrize(("fen", "best"), MATES_IN_ONE)
def test_level4_finds_mate_in_one(fen: str, best: str) -> None:
    result = Searcher().search(chess.Board(fen), Limits(nodes=5_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score == 100_000 - 1  # mate in one ply


@pytest.mark.parametrize(("fen", "best"), MATES_IN_TWO)
def test_level4_finds_mate_in_two(fen: str, best: str) -> None:
    result = Searcher().search(chess.Board(fen), Limits(nodes=30_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score == 100_000 - 3  # mate in three plies


@pytest.mark.parametrize(
    ("fen", "best"),
    [
        ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5"),  # a queen for free
        ("4k3/8/q7/3N4/8/8/8/4K3 w - - 0 1", "d5c7"),  # a knight fork of king and queen
        ("6q1/8/8/3k4/8/8/2B5/K7 w - - 0 1", "c2b3"),  # a skewer of king and queen
    ],
)
def test_level4_wins_material(fen: str, best: str) -> None:
    board = chess.Board(fen)
    result = Searcher(random.Random(1)).search(board, Limits(nodes=20_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score > 250


def test_level4_is_reproducible_with_a_node_budget() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    first = Searcher(random.Random(9)).search(board, Limits(nodes=4_000))
    again = Searcher(random.Random(9)).search(board, Limits(nodes=4_000))
    assert (first.move, first.score, first.nodes, first.pv) == (
        again.move,
        again.score,
        again.nodes,
        again.pv,
    )
    assert board.fen() == "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def test_level4_reports_each_iteration_and_honours_depth() -> None:
    infos: list[SearchInfo] = []
    result = Searcher().search(chess.Board(), Limits(depth=3), infos.append)
    assert [info.depth for info in infos] == [1, 2, 3]
    assert result.depth == 3 and result.move == infos[-1].pv[0]
    assert all(info.nodes > 0 and info.pv for info in infos)


def test_level4_stops_when_asked() -> None:
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls > 2

    result = Searcher().search(chess.Board(), Limits(), should_stop=stop)
    assert result.move in chess.Board().legal_moves


def test_level4_without_legal_moves() -> None:
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    result = Searcher().search(mated, Limits(depth=3))
    assert result.move is None and result.score <= -MATE_BOUND
    stalemated = chess.Board("7k/8/6Q1/8/8/8/8/K7 b - - 0 1")
    assert Searcher().search(stalemated, Limits(depth=3)).score == 0


def test_level4_mates_a_lone_king_with_king_and_queen() -> None:
    """The mop-up evaluation makes a won ending end (against a random defender)."""
    board = chess.Board("8/8/3k4/8/8/8/8/Q3K3 w - - 0 1")
    white = ComputerPlayer(4, random.Random(1), Limits(nodes=3_000))
    black = ComputerPlayer(1, random.Random(2))
    for _ in range(60):
        if board.is_game_over():
            break
        board.push((white if board.turn == chess.WHITE else black).choose(board.copy()))
    assert board.is_checkmate()
    assert board.turn == chess.BLACK


def test_evaluation_is_symmetric_and_counts_material() -> None:
    assert evaluate(chess.Board()) == 0
    board = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1")
    assert evaluate(board) < -800  # white is a queen down
    mirrored = board.mirror()
    assert evaluate(mirrored) == evaluate(board)


def test_computer_player_rejects_unknown_levels() -> None:
    with pytest.raises(ValueError, match="level"):
        ComputerPlayer(5)


def test_a_node_limit_stops_at_a_multiple_of_the_node_check() -> None:
    """The clock and the stop flag are looked at every CHECK_EVERY nodes, the node limit only
    every NODE_CHECK_EVERY: a node-limited (seeded) search stops where it always did."""
    from hub.chess.search import CHECK_EVERY, NODE_CHECK_EVERY

    assert NODE_CHECK_EVERY % CHECK_EVERY == 0 and CHECK_EVERY < NODE_CHECK_EVERY
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    result = Searcher(random.Random(3)).search(board, Limits(nodes=4_500))
    assert result.nodes == 5 * NODE_CHECK_EVERY


def test_a_stop_flag_is_seen_within_a_few_nodes() -> None:
    from hub.chess.search import CHECK_EVERY

    calls: list[int] = []
    searcher = Searcher()

    def stop() -> bool:
        calls.append(searcher.nodes)
        return len(calls) > 3

    searcher.search(chess.Board(), Limits(depth=30), should_stop=stop)
    assert calls[:4] == [CHECK_EVERY, 2 * CHECK_EVERY, 3 * CHECK_EVERY, 4 * CHECK_EVERY]
