"""``hub engine`` prints what Stockfish 15.1 prints for ``d``, ``go perft``, no-move searches
and unknown commands, byte for byte (the ``Key:`` hash excepted, as the spec allows).

The orders below were recorded from Stockfish 15.1 and are checked without it; with Stockfish
installed, the same script of a few hundred positions goes to both programs and the outputs
are compared whole. Without Stockfish those tests skip with a reason, or fail when
HUB_REQUIRE_STOCKFISH=1 (as CI sets it).
"""

from __future__ import annotations

import random
import subprocess

import chess
import pytest

from hub.chess.board_art import d_lines, stockfish_fen
from hub.chess.perft import perft_lines, stockfish_moves
from tests.chesslib.helpers import TIMEOUT
from tests.conftest import need_stockfish, program

RECORDED_ORDERS = {
    # Kiwipete: castling both ways, pins, captures everywhere.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1": (
        "a2a3 b2b3 g2g3 d5d6 a2a4 g2g4 g2h3 d5e6 c3b1 c3d1 c3a4 c3b5 e5d3 e5c4 e5g4 e5c6 e5g6 "
        "e5d7 e5f7 d2c1 d2e3 d2f4 d2g5 d2h6 e2d1 e2f1 e2d3 e2c4 e2b5 e2a6 a1b1 a1c1 a1d1 h1f1 "
        "h1g1 f3d3 f3e3 f3g3 f3h3 f3f4 f3g4 f3f5 f3h5 f3f6 e1d1 e1f1 e1g1 e1c1"
    ),
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1": (
        "e2e3 g2g3 a5a6 e2e4 g2g4 b4b1 b4b2 b4b3 b4a4 b4c4 b4d4 b4e4 b4f4 a5a4"
    ),
    # In check: evasions only.
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1": (
        "c4c5 d2d4 f3d4 b4c5 f1f2 g1h1"
    ),
    # Promotions (queen, rook, bishop, knight) and the king's moves last.
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8": (
        "a2a3 b2b3 c2c3 g2g3 h2h3 a2a4 b2b4 g2g4 h2h4 d7c8q d7c8r d7c8b d7c8n b1d2 b1a3 b1c3 "
        "e2g1 e2c3 e2g3 e2d4 e2f4 c1d2 c1e3 c1f4 c1g5 c1h6 c4b3 c4d3 c4b5 c4d5 c4a6 c4e6 c4f7 "
        "h1f1 h1g1 d1d2 d1d3 d1d4 d1d5 d1d6 e1f1 e1d2 e1f2 e1g1"
    ),
    # En passant for black.
    "8/8/8/2k5/3Pp3/8/8/4K2Q b - d3 0 1": "e4d3 c5b4 c5c4 c5d4 c5b5 c5d5 c5b6 c5c6 c5d6",
    # An en passant capture that would expose the king is removed, and the last move takes
    # its place (Stockfish's generate<LEGAL>).
    "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2": "e5e6 a5b6 a5a4 a5b4 a5b5 a5a6",
}


@pytest.mark.parametrize("fen", list(RECORDED_ORDERS))
def test_perft_order_recorded_from_stockfish(fen: str) -> None:
    board = chess.Board(fen)
    assert " ".join(move.uci() for move in stockfish_moves(board)) == RECORDED_ORDERS[fen]
    moves = RECORDED_ORDERS[fen].split()
    assert perft_lines(board) == [f"{move}: 1" for move in moves] + [
        "",
        f"Nodes searched: {len(moves)}",
        "",
    ]


def test_stockfish_fen_details() -> None:
    board = chess.Board()
    board.push_uci("e2e4")  # no black pawn can take en passant: Stockfish shows "-"
    assert stockfish_fen(board) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    board = chess.Board("4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2")  # illegal capture: still shown
    assert stockfish_fen(board) == "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2"
    assert stockfish_fen(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 0")).endswith(" 0 1")
    lines = d_lines(chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"))
    assert lines[-1] == "Checkers: g7 "


def _positions(count: int, seed: int) -> list[chess.Board]:
    """Random game positions that favour checks, captures, castling, en passant, promotion."""
    rng = random.Random(seed)
    found: list[chess.Board] = []
    while len(found) < count:
        board = chess.Board()
        for _ in range(rng.randint(1, 150)):
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [
                move
                for move in moves
                if move.promotion
                or board.is_en_passant(move)
                or board.is_castling(move)
                or board.gives_check(move)
            ]
            board.push(rng.choice(special if special and rng.random() < 0.5 else moves))
            if rng.random() < 0.1:
                found.append(board.copy())
        found.append(board.copy())
    return found[:count]


CRAFTED = [
    *RECORDED_ORDERS,
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",  # en passant that would expose the king on its rank
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",  # en passant that blocks a check
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1",  # in check: no castling
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",  # f2 rook: kingside path attacked
    "rn2k2r/8/8/8/8/8/8/R3K1NR w KQkq - 0 1",  # castling impeded by pieces
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "3k4/3P4/8/8/8/8/8/4K3 b - - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",
    "8/2P1k3/8/8/8/8/2p1K3/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/r3K3 w - - 0 1",
    "4k3/8/8/8/1b6/8/8/r3K3 w - - 0 1",  # a check that the king must step out of
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",  # double check
    "k7/8/8/8/8/8/8/1Q5K b - - 0 1",  # stalemate
    "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # checkmate
]


def _script(boards: list[chess.Board]) -> str:
    commands = []
    for board in boards:
        commands += [f"position fen {board.fen(en_passant='fen')}", "d", "go perft 1"]
        commands += ["ucinewgame", "isready"]  # Stockfish runs perft in a thread: wait for it
    commands += [
        "position startpos moves e2e4 e7e5 e1e3 g1f3",  # moves stop at the first illegal one
        "d",
        "position fen 8/P7/8/8/8/8/8/k6K w - - 0 1 moves a7a8Q",  # upper-case promotion
        "d",
        "position startpos moves e2e4",
        "go perft 2",
        "ucinewgame",
        "isready",
        "position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        "go movetime 50",
        "ucinewgame",
        "isready",
        "position fen 7k/8/6Q1/8/8/8/8/K7 b - - 0 1",
        "go depth 3",
        "ucinewgame",
        "isready",
        "foo bar",
        "d d",
        "",
    ]
    return "\n".join(commands) + "\n"


def _comparable(output: str) -> list[str]:
    """The output without the start-up banner, ``Key:`` lines and ``info string`` lines."""
    lines = output.split("\n")[1:]
    return [line for line in lines if not line.startswith(("Key: ", "info string "))]


def test_d_perft_and_formats_match_stockfish() -> None:
    stockfish = need_stockfish()
    boards = [chess.Board(fen) for fen in CRAFTED] + _positions(250, seed=5)
    script = _script(boards)
    theirs = subprocess.run(
        [stockfish], input=script, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    ours = subprocess.run(
        [program("hub"), "engine"],
        input=script,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert theirs.stdout.startswith("Stockfish 15.1")
    expected, actual = _comparable(theirs.stdout), _comparable(ours.stdout)
    assert len(expected) > 10_000
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"line {index}: context {expected[max(index - 25, 0) : index + 2]}"
    assert actual == expected
    assert ours.returncode == 0
