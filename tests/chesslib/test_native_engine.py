"""`hub engine`'s C search (hub/chess/_engine.c through hub/chess/native.py): its move
generator against python-chess's (perft, random games), its search (mates, repetitions,
reproducibility, ``stop``, legal moves), and the fallback to `EngineSearcher`.

Skipped when the extension is not built (``pip install -e .`` builds it), unless
HUB_REQUIRE_NATIVE=1 (as CI sets it): then the missing extension fails the module.
"""

from __future__ import annotations

import os
import random
import threading

import chess
import pytest
import trio
import trio.testing

from hub.chess import native
from hub.chess.search import MATE, EngineSearcher, Limits, SearchInfo
from hub.chess.uci import info_line
from hub.core.io.lines import LineStream
from hub.games.chess import engine_server
from tests.chesslib.test_search import MATES_IN_ONE, MATES_IN_TWO

if not native.NATIVE:
    REASON = "the C search hub.chess._engine is not built (pip install -e . builds it)"
    if os.environ.get("HUB_REQUIRE_NATIVE") == "1":
        pytest.fail(REASON + " and HUB_REQUIRE_NATIVE=1", pytrace=False)
    pytest.skip(REASON, allow_module_level=True)

from hub.chess import _engine

START = chess.STARTING_FEN
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
PERFT_SUITE = [
    # The Chess Programming Wiki's perft positions 1-6 and their counts (python-chess's too).
    (START, 4, 197_281),
    (KIWIPETE, 3, 97_862),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43_238),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9_467),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62_379),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3, 89_890),
]
PERPETUAL = "6k1/6p1/5p2/7Q/8/rrq5/6PP/7K w - - 0 1"
"""White is a queen and two rooks down but checks for ever (Qe8+ Kh7 Qh5+ Kg8): a draw."""


def python_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize(("fen", "depth", "count"), PERFT_SUITE)
def test_perft_matches_the_suite(fen: str, depth: int, count: int) -> None:
    assert _engine.perft(fen, depth) == count
    # and python-chess's own count one ply less deep, move by move
    board = chess.Board(fen)
    for move in board.legal_moves:
        board.push(move)
        assert _engine.perft(board.fen(), depth - 2) == python_perft(board, depth - 2), move
        board.pop()


def test_legal_moves_match_python_chess_over_random_games() -> None:
    rng = random.Random(28)
    seen = {"castling": 0, "en passant": 0, "promotion": 0, "check": 0, "pinned": 0}
    positions = 0
    for _ in range(60):
        board = chess.Board()
        for _ply in range(160):
            moves = list(board.legal_moves)  # generated once a position (the test's cost)
            expected = sorted(move.uci() for move in moves)
            assert sorted(_engine.legal_moves(board.fen())) == expected, board.fen()
            positions += 1
            if not expected or board.is_insufficient_material():
                break
            seen["castling"] += any(board.is_castling(move) for move in moves)
            seen["en passant"] += any(board.is_en_passant(move) for move in moves)
            seen["promotion"] += any(move.promotion for move in moves)
            seen["check"] += board.is_check()
            seen["pinned"] += any(
                board.is_pinned(board.turn, square)
                for square in board.pieces(chess.PAWN, board.turn)
            )
            # captures and promotions first half the time: games that reach end games
            noisy = [move for move in moves if board.is_capture(move) or move.promotion]
            board.push(rng.choice(noisy if noisy and rng.random() < 0.5 else moves))
    assert positions >= 3_000
    assert all(count >= 10 for count in seen.values()), seen


@pytest.mark.parametrize(("fen", "best"), MATES_IN_ONE)
def test_finds_mate_in_one(fen: str, best: str) -> None:
    infos: list[SearchInfo] = []
    result = native.NativeSearcher(hash_mb=1).search(
        chess.Board(fen), Limits(depth=4), infos.append
    )
    assert result.move == chess.Move.from_uci(best)
    assert result.score == MATE - 1
    assert " score mate 1 " in info_line(infos[-1])


@pytest.mark.parametrize(("fen", "best"), MATES_IN_TWO)
def test_finds_mate_in_two(fen: str, best: str) -> None:
    infos: list[SearchInfo] = []
    result = native.NativeSearcher(hash_mb=1).search(
        chess.Board(fen), Limits(depth=6), infos.append
    )
    assert result.move == chess.Move.from_uci(best)
    assert result.score == MATE - 3
    assert " score mate 2 " in info_line(infos[-1])


def test_being_mated_is_a_negative_mate() -> None:
    board = chess.Board("k7/8/1K6/8/8/8/8/7R b - - 0 1")  # Kb8 forced, then Rh8 mate
    result = native.NativeSearcher(hash_mb=1).search(board, Limits(depth=5))
    assert result.score == -(MATE - 2)


def test_a_depth_limited_search_is_reproducible() -> None:
    board = chess.Board(KIWIPETE)
    first = native.NativeSearcher(hash_mb=1).search(board, Limits(depth=6))
    second = native.NativeSearcher(hash_mb=1).search(board, Limits(depth=6))
    assert (first.move, first.score, first.nodes, first.pv) == (
        second.move,
        second.score,
        second.nodes,
        second.pv,
    )
    assert first.depth == 6


def test_a_node_limited_search_stops_near_its_limit() -> None:
    result = native.NativeSearcher(hash_mb=1).search(chess.Board(), Limits(nodes=20_000))
    assert 20_000 <= result.nodes < 20_000 + 2_048


def test_stop_ends_an_infinite_search() -> None:
    reported = threading.Event()
    result = native.NativeSearcher(hash_mb=1).search(
        chess.Board(), Limits(), lambda info: reported.set(), reported.is_set
    )
    assert reported.is_set()
    assert result.move is not None and result.move in chess.Board().legal_moves
    assert result.nodes <= 8_192 + 2_048  # `stop` is asked every 8,192 nodes


def test_a_repetition_drawn_line_scores_zero() -> None:
    searcher = native.NativeSearcher(hash_mb=1)
    shallow = searcher.search(chess.Board(PERPETUAL), Limits(depth=1))
    assert shallow.score < -500  # one ply deep, white is a queen and two rooks down
    result = searcher.search(chess.Board(PERPETUAL), Limits(depth=10))
    assert result.move == chess.Move.from_uci("h5e8")
    assert result.score == 0


def test_the_game_history_is_seen() -> None:
    # King and rook against king: won for white, until the kings' shuffle a1-b1, h8-g8 has
    # brought back positions of the game, and black can repeat one of them once more.
    board = chess.Board("7k/8/8/8/8/8/8/K2R4 w - - 0 1")
    clean = native.NativeSearcher(hash_mb=1).search(board, Limits(depth=6))
    assert clean.score > 300
    for move in ("a1b1", "h8g8", "b1a1", "g8h8", "a1b1"):
        board.push_uci(move)
    # Black to move: g8 repeats the position after 1. Kb1 Kg8 (a draw in the search), the
    # other moves do not; the king is lost otherwise, so the draw is its best.
    result = native.NativeSearcher(hash_mb=1).search(board, Limits(depth=6))
    assert result.move == chess.Move.from_uci("h8g8")
    assert result.score == 0
    # the same position without the history is lost for black
    fresh = chess.Board(board.fen())
    assert native.NativeSearcher(hash_mb=1).search(fresh, Limits(depth=6)).score < -300


def test_the_returned_move_is_always_legal() -> None:
    rng = random.Random(5)
    searcher = native.NativeSearcher(hash_mb=1)
    for _ in range(8):
        board = chess.Board()
        for _ply in range(30):
            if board.is_game_over():
                break
            result = searcher.search(board, Limits(nodes=3_000))
            assert result.move is not None and board.is_legal(result.move)
            assert result.pv and result.pv[0] == result.move
            board.push(result.move if rng.random() < 0.5 else rng.choice(list(board.legal_moves)))
    assert searcher.fallbacks == 0


def test_no_legal_move() -> None:
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    result = native.NativeSearcher(hash_mb=1).search(mated, Limits(depth=3))
    assert result.move is None and result.score == -MATE
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    result = native.NativeSearcher(hash_mb=1).search(stalemate, Limits(depth=3))
    assert result.move is None and result.score == 0


def test_an_illegal_answer_falls_back_to_engine_searcher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searcher = native.NativeSearcher(hash_mb=1)

    class Liar:
        def search(self, *args: object) -> tuple[str, int, int, int, list[str]]:
            return ("e2e5", 0, 1, 1, ["e2e5"])  # not a legal move

        def clear(self) -> None:
            pass

    monkeypatch.setattr(searcher, "engine", Liar())
    result = searcher.search(chess.Board(), Limits(depth=2))
    assert result.move is not None and result.move in chess.Board().legal_moves
    assert searcher.fallbacks == 1


class Capture(engine_server.LineWriter):
    """The engine's output lines, and an event at its first ``bestmove`` (which the server
    prints from its trio task; ``info`` lines come from the search's thread)."""

    def __init__(self) -> None:
        super().__init__(-1)
        self.seen: list[str] = []
        self.bestmove = trio.Event()

    def lines(self, lines: list[str]) -> None:  # type: ignore[override]
        self.seen.extend(lines)
        if any(line.startswith("bestmove") for line in lines):
            self.bestmove.set()


async def converse(commands: list[str]) -> tuple[engine_server.UciServer, list[str]]:
    send, receive = trio.testing.memory_stream_one_way_pair()
    out = Capture()
    server = engine_server.UciServer(out)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(server.run, LineStream(receive, None, max_line=1 << 16))
            await send.send_all(("\n".join(commands) + "\n").encode())
            await out.bestmove.wait()
            await send.aclose()
    return server, out.seen


async def test_hub_engine_searches_in_c_when_it_is_built() -> None:
    assert engine_server.banner().startswith("hub ") and "C search" in engine_server.banner()
    server, seen = await converse(["position startpos moves e2e4", "go depth 5"])
    assert isinstance(server.searcher, native.NativeSearcher)
    assert seen[-1].startswith("bestmove ")
    assert any(line.startswith("info depth 5 ") for line in seen)


async def test_without_the_extension_hub_engine_uses_engine_searcher(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(native, "NATIVE", False)
    assert "level-4 search" in engine_server.banner()
    server, seen = await converse(["position startpos moves e2e4", "go depth 3"])
    assert type(server.searcher) is EngineSearcher
    assert seen[-1].startswith("bestmove ")
    assert any(line.startswith("info depth 3 ") for line in seen)


def test_the_game_is_handed_over_from_its_last_irreversible_move() -> None:
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3"):
        board.push_uci(move)
    fen, moves = native.game_of(board)
    assert moves == ["g1f3", "b8c6", "f3g1", "c6b8", "g1f3"]
    start = chess.Board(fen)
    for move in moves:
        start.push_uci(move)
    assert start.board_fen() == board.board_fen() and start.turn == board.turn
    assert native.game_of(chess.Board(KIWIPETE)) == (KIWIPETE, [])


def test_the_evaluation_is_the_same_for_a_position_and_its_mirror_image() -> None:
    # Colours swapped and the board flipped: the side to move stands exactly as well (a
    # wrongly oriented table or an unsigned term would break this).
    rng = random.Random(7)
    checked = 0
    for _ in range(20):
        board = chess.Board()
        for _ply in range(80):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            assert _engine.evaluate(board.fen()) == _engine.evaluate(board.mirror().fen())
            checked += 1
    assert checked >= 1_000
    # and it is not symmetric by being constant
    assert _engine.evaluate("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 500
    assert _engine.evaluate("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -500
