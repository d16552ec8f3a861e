"""`hub engine`'s search (`EngineSearcher`): correct on mates and tactics, its transposition
table, its evaluation's symmetry, and its time management on a fake clock."""

from __future__ import annotations

import random

import chess
import pytest

from hub.chess.search import (
    CHECK_EVERY,
    ENGINE_MIN_TIME,
    ENGINE_OVERHEAD,
    MATE,
    ComputerPlayer,
    EngineSearcher,
    Limits,
    SearchInfo,
    allot_time,
    direct_check,
    eval_terms,
    position_key,
    structure_terms,
)
from hub.chess.uci import parse_go
from hub.games.chess.engine_server import engine_limits
from tests.chesslib.test_search import MATES_IN_ONE, MATES_IN_TWO

MATES_IN_THREE = [
    # Each the only mate in three (checked with Stockfish 15.1, MultiPV 3).
    ("r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", "f8c5"),
    ("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", "f6a6"),
    ("2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", "b1g6"),
]


@pytest.mark.parametrize(("fen", "best"), MATES_IN_ONE)
def test_finds_mate_in_one(fen: str, best: str) -> None:
    result = EngineSearcher().search(chess.Board(fen), Limits(nodes=5_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score == MATE - 1


@pytest.mark.parametrize(("fen", "best"), MATES_IN_TWO)
def test_finds_mate_in_two(fen: str, best: str) -> None:
    result = EngineSearcher().search(chess.Board(fen), Limits(nodes=30_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score == MATE - 3


@pytest.mark.parametrize(("fen", "best"), MATES_IN_THREE)
def test_finds_mate_in_three(fen: str, best: str) -> None:
    board = chess.Board(fen)
    result = EngineSearcher().search(board, Limits(nodes=60_000))  # each is found by 50,000
    assert result.move == chess.Move.from_uci(best)
    assert result.score == MATE - 5
    assert result.pv[0] == result.move and len(result.pv) >= 3


@pytest.mark.parametrize(
    ("fen", "best"),
    [
        ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5"),  # a queen for free
        ("4k3/8/q7/3N4/8/8/8/4K3 w - - 0 1", "d5c7"),  # a knight fork of king and queen
        ("6q1/8/8/3k4/8/8/2B5/K7 w - - 0 1", "c2b3"),  # a skewer of king and queen
    ],
)
def test_wins_material(fen: str, best: str) -> None:
    board = chess.Board(fen)
    result = EngineSearcher(random.Random(1)).search(board, Limits(nodes=20_000))
    assert result.move == chess.Move.from_uci(best)
    assert result.score > 250


def test_a_transposition_table_hit_returns_the_same_best_move_with_fewer_nodes() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    searcher = EngineSearcher()
    first = searcher.search(board, Limits(depth=5))
    again = searcher.search(board, Limits(depth=5))
    assert again.move == first.move and again.score == first.score
    assert again.nodes < first.nodes / 2  # the table answered most of the tree
    fresh = EngineSearcher().search(board, Limits(depth=5))
    assert (fresh.move, fresh.score, fresh.nodes) == (first.move, first.score, first.nodes)
    searcher.clear()
    assert not searcher.tt and not searcher.pawn_cache


def test_reports_each_iteration_and_honours_depth() -> None:
    infos: list[SearchInfo] = []
    result = EngineSearcher().search(chess.Board(), Limits(depth=4), infos.append)
    assert [info.depth for info in infos] == [1, 2, 3, 4]
    assert result.depth == 4 and result.move == infos[-1].pv[0]


def test_without_legal_moves_and_repetitions() -> None:
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    result = EngineSearcher().search(mated, Limits(depth=3))
    assert result.move is None and result.score == -MATE
    stalemated = chess.Board("7k/8/6Q1/8/8/8/8/K7 b - - 0 1")
    assert EngineSearcher().search(stalemated, Limits(depth=3)).score == 0


def test_the_evaluation_is_symmetric() -> None:
    searcher = EngineSearcher()
    fens = [
        chess.STARTING_FEN,
        "r1bqk2r/pp3ppp/2n1pn2/2pp4/1bPP4/2NBPN2/PP3PPP/R1BQK2R w KQkq - 0 7",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "6k1/5ppp/8/3P4/8/8/5PPP/6K1 b - - 0 1",
    ]
    for fen in fens:
        board = chess.Board(fen)
        mirrored = board.mirror()
        assert searcher._eval(board, *eval_terms(board)) == searcher._eval(
            mirrored, *eval_terms(mirrored)
        )
    assert searcher._eval(chess.Board(), *eval_terms(chess.Board())) == 10  # the tempo


def test_pawn_structure_terms() -> None:
    assert structure_terms(0, 0, chess.E1, chess.E8) == (0, 0)  # the same for both
    # Black's king has its pawn shield, white's sits on three half-open files.
    mg, _ = structure_terms(0, chess.BB_RANK_7, chess.E1, chess.E8)
    assert mg == -3 * 10 - 3 * 12
    # A white passed pawn on d5 against nothing: a bonus for white in the end game.
    board = chess.Board("6k1/5ppp/8/3P4/8/8/5PPP/6K1 w - - 0 1")
    white = board.pawns & board.occupied_co[chess.WHITE]
    black = board.pawns & board.occupied_co[chess.BLACK]
    mg, eg = structure_terms(white, black, chess.G1, chess.G8)
    assert eg > 20 and mg > 0
    # Doubled isolated pawns cost.
    doubled = chess.BB_C2 | chess.BB_C3
    mg, eg = structure_terms(doubled, chess.BB_C7 | chess.BB_E7, chess.G1, chess.G8)
    assert eg < 0


def test_mates_a_lone_king_with_king_and_queen() -> None:
    board = chess.Board("8/8/3k4/8/8/8/8/Q3K3 w - - 0 1")
    searcher = EngineSearcher(random.Random(1))
    black = ComputerPlayer(1, random.Random(2))
    for _ in range(60):
        if board.is_game_over():
            break
        if board.turn == chess.WHITE:
            move = searcher.search(board, Limits(nodes=3_000)).move
            assert move is not None
            board.push(move)
        else:
            board.push(black.choose(board.copy()))
    assert board.is_checkmate() and board.turn == chess.BLACK


# -- time ---------------------------------------------------------------------------------


@pytest.mark.parametrize("left", [0.08, 0.3, 1.0, 5.0, 10.0, 60.0, 600.0])
@pytest.mark.parametrize("increment", [0.0, 0.01, 0.1, 2.0])
@pytest.mark.parametrize("movestogo", [None, 1, 2, 10, 40])
def test_allot_time_stays_inside_the_clock(
    left: float, increment: float, movestogo: int | None
) -> None:
    optimum, hard = allot_time(left, increment, movestogo)
    usable = left - ENGINE_OVERHEAD
    assert ENGINE_MIN_TIME <= optimum <= hard
    assert hard <= max(usable * (0.9 if movestogo == 1 else 0.5), ENGINE_MIN_TIME)
    if usable > 2:
        assert optimum >= usable / 50  # a real share, and most of the increment
        assert optimum >= min(0.8 * increment, hard)


def test_allot_time_at_10_plus_0_1() -> None:
    optimum, hard = allot_time(10.0, 0.1)
    assert 0.55 < optimum < 0.6 and hard == pytest.approx(4 * optimum)
    optimum, hard = allot_time(3.0, 0.1)  # the increment is mostly spent
    assert optimum == pytest.approx(2.94 / 20 + 0.08)
    optimum, hard = allot_time(0.3, 0.1)  # a low clock is built up again
    assert optimum == pytest.approx(0.24 / 20 + 0.08 * 0.24 / 2) and hard <= 0.12
    assert optimum < 0.1 / 2  # it aims to keep more than half of each increment


def test_engine_limits_from_go() -> None:
    limits = engine_limits(
        parse_go(["wtime", "10000", "btime", "2000", "winc", "100", "binc", "0"]), True
    )
    assert (limits.movetime, limits.maxtime) == allot_time(10.0, 0.1, None)
    limits = engine_limits(
        parse_go(["wtime", "10000", "btime", "2000", "winc", "100", "binc", "0"]), False
    )
    assert (limits.movetime, limits.maxtime) == allot_time(2.0, 0.0, None)
    limits = engine_limits(parse_go(["movetime", "300"]), True)
    assert limits.maxtime is None and limits.movetime is not None and limits.movetime < 0.3
    limits = engine_limits(parse_go(["wtime", "1000", "infinite"]), True)
    assert limits.movetime is None and limits.maxtime is None


class NodeClock:
    """A fake clock on which the search runs at ``nps`` nodes a second, exactly."""

    def __init__(self, nps: float) -> None:
        self.nps = nps
        self.searcher: EngineSearcher | None = None
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        assert self.searcher is not None
        return self.searcher.nodes / self.nps


@pytest.mark.parametrize(
    ("movetime", "maxtime"), [(0.05, 0.2), (0.2, 0.2), (0.01, 0.05), (0.3, None)]
)
@pytest.mark.parametrize("nps", [2_000, 20_000])
def test_a_timed_search_never_passes_its_hard_limit_on_a_fake_clock(
    movetime: float, maxtime: float | None, nps: int
) -> None:
    clock = NodeClock(nps)
    searcher = EngineSearcher(clock=clock)
    clock.searcher = searcher
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    result = searcher.search(board, Limits(movetime=movetime, maxtime=maxtime))
    hard = maxtime if maxtime is not None else movetime
    assert result.move in board.legal_moves
    # The clock is read every CHECK_EVERY nodes: the search ends within one such interval.
    assert result.seconds <= hard + CHECK_EVERY / nps
    assert result.nodes <= hard * nps + CHECK_EVERY
    # It uses its time: it stops at the hard limit or after the soft one (0.6 of movetime).
    assert result.seconds >= min(0.6 * movetime, hard) - CHECK_EVERY / nps or result.depth >= 60


def testdirect_check_agrees_with_python_chess() -> None:
    """The cheap test never claims a check that is not one, and finds every check given by
    the piece moved (only discovered checks are left to the search)."""
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        board = chess.Board()
        for _ in range(rng.randrange(4, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        for move in board.legal_moves:
            if board.is_capture(move):
                continue
            direct = direct_check(board, move)
            board.push(move)
            king = board.king(board.turn)
            assert king is not None
            by_mover = bool(board.attackers_mask(not board.turn, king) & (1 << move.to_square))
            board.pop()
            assert direct == by_mover
            checked += direct
    assert checked > 10


def test_position_keys_tell_the_eighth_rank_from_the_first() -> None:
    """CPython hashes ints modulo 2**61 - 1: a queen on f8 would share a key with one on a1."""
    on_f8 = chess.Board("5Q2/7k/8/5K2/8/8/8/8 b - - 0 1")
    on_a1 = chess.Board("8/7k/8/5K2/8/8/8/Q7 b - - 0 1")
    assert hash(on_f8._transposition_key()) == hash(on_a1._transposition_key())
    assert position_key(on_f8) != position_key(on_a1)
    again = chess.Board("5Q2/7k/8/5K2/8/8/8/8 b - - 12 40")  # the clocks are not the position
    assert position_key(again) == position_key(on_f8)
    assert position_key(on_f8) != position_key(chess.Board("5Q2/7k/8/5K2/8/8/8/8 w - - 0 1"))


def test_does_not_stalemate_a_lone_king() -> None:
    board = chess.Board("8/7k/5Q2/5K2/8/8/8/8 w - - 0 1")  # Qf8 would stalemate
    for depth in (1, 2, 3, 4, 5):
        result = EngineSearcher().search(board, Limits(depth=depth))
        assert result.move != chess.Move.from_uci("f6f8")
        assert result.score > 800
