"""UCI text without I/O: the engine side's parsers and formatters (hub.chess.uci)."""

from __future__ import annotations

import chess
import pytest

from hub.chess.search import Limits, SearchInfo, SearchResult
from hub.chess.uci import (
    Go,
    PositionError,
    bestmove_lines,
    info_line,
    legal_move,
    parse_go,
    parse_position,
    unknown_command_line,
)


def words(text: str) -> list[str]:
    return text.split()


def test_parse_go() -> None:
    assert parse_go([]) == Go()
    assert parse_go(words("movetime 500 depth 15")) == Go(movetime=500, depth=15)
    assert parse_go(words("perft 1")) == Go(perft=1)
    assert parse_go(words("wtime 60000 btime 50000 winc 1000 binc 0 movestogo 20")) == Go(
        wtime=60000, btime=50000, winc=1000, binc=0, movestogo=20
    )
    assert parse_go(words("infinite")) == Go(infinite=True)
    assert parse_go(words("nodes 100 searchmoves e2e4")) == Go(nodes=100)
    assert parse_go(words("wtime -20 depth x movetime")) == Go(wtime=0)


def test_go_limits() -> None:
    assert Go(movetime=500, depth=15).limits(chess.WHITE).depth == 15
    movetime = Go(movetime=500).limits(chess.WHITE).movetime
    assert movetime is not None and 0.45 < movetime <= 0.5
    clock = Go(wtime=60_000, btime=1_000, winc=0).limits
    white, black = clock(chess.WHITE).movetime, clock(chess.BLACK).movetime
    assert white is not None and black is not None and 1 < white < 3 and black < 0.5
    assert Go(infinite=True).limits(chess.WHITE) == Limits()
    assert Go(depth=4).limits(chess.BLACK) == Limits(depth=4)
    assert Go(mate=2).limits(chess.BLACK) == Limits(depth=4)


def test_parse_position_as_stockfish_does() -> None:
    assert parse_position([]) is None
    assert parse_position(["bogus"]) is None
    board = parse_position(words("startpos moves e2e4 e7e5"))
    assert board is not None and board.move_stack == [
        chess.Move.from_uci(m) for m in ("e2e4", "e7e5")
    ]
    # Moves stop at the first one that is not legal; the rest are ignored.
    board = parse_position(words("startpos moves e2e4 e2e4 e7e5"))
    assert board is not None and len(board.move_stack) == 1
    # The word after startpos is skipped whatever it is.
    board = parse_position(words("startpos e2e4 e7e5"))
    assert board is not None and board.move_stack == []
    fen = "8/P7/8/8/8/8/8/k6K w - - 0 1"
    board = parse_position(words(f"fen {fen} moves a7a8Q"))
    assert board is not None and board.move_stack == [chess.Move.from_uci("a7a8q")]
    board = parse_position(words(f"fen {fen}"))
    assert board is not None and board.fen() == fen
    with pytest.raises(PositionError):
        parse_position(words("fen not a fen"))
    with pytest.raises(PositionError):
        parse_position(words("fen 8/8/8/8/8/8/8/8 w - - 0 1"))  # no kings


def test_legal_move_reads_long_algebraic_only() -> None:
    board = chess.Board()
    assert legal_move(board, "e2e4") == chess.Move.from_uci("e2e4")
    for text in ("E2E4", "e2e5", "Nf3", "e1h1", "0000", "", "e2e4q"):
        assert legal_move(board, text) is None


def test_info_and_bestmove_lines() -> None:
    pv = (chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5"))
    info = SearchInfo(depth=3, seldepth=7, score=35, nodes=1000, seconds=0.5, pv=pv)
    assert info_line(info) == (
        "info depth 3 seldepth 7 multipv 1 score cp 35 nodes 1000 nps 2000 time 500 pv e2e4 e7e5"
    )
    assert " score mate 2 " in info_line(SearchInfo(3, 3, 100_000 - 3, 1, 0.0, pv))
    assert " score mate -1 " in info_line(SearchInfo(3, 3, -(100_000 - 2), 1, 0.0, pv))
    result = SearchResult(pv[0], 35, 3, 1000, 0.5, pv)
    assert bestmove_lines(chess.Board(), result) == ["bestmove e2e4 ponder e7e5"]
    single = SearchResult(pv[0], 35, 1, 10, 0.1, pv[:1])
    assert bestmove_lines(chess.Board(), single) == ["bestmove e2e4"]
    none = SearchResult(None, 0, 0, 0, 0.0, ())
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert bestmove_lines(mated, none) == ["info depth 0 score mate 0", "bestmove (none)"]
    stalemated = chess.Board("7k/8/6Q1/8/8/8/8/K7 b - - 0 1")
    assert bestmove_lines(stalemated, none) == ["info depth 0 score cp 0", "bestmove (none)"]
    assert unknown_command_line("foo bar") == (
        "Unknown command: 'foo bar'. Type help for more information."
    )
