"""``hub engine``: pure parsers and formatters, then conversations with the installed program."""

from __future__ import annotations

import re
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import chess
import chess.engine
import pytest
import trio

from hub.core.lines import LineStream, PeerClosed
from hub.games.uqchess.ai import Info, Limits, SearchResult
from hub.games.uqchess.uci import (
    Go,
    PositionError,
    bestmove_lines,
    info_line,
    legal_move,
    parse_go,
    parse_position,
    unknown_command_line,
)
from tests.chess.helpers import TIMEOUT
from tests.conftest import program

# -- pure ------------------------------------------------------------------------------


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
    info = Info(depth=3, seldepth=7, score=35, nodes=1000, seconds=0.5, pv=pv)
    assert info_line(info) == (
        "info depth 3 seldepth 7 multipv 1 score cp 35 nodes 1000 nps 2000 time 500 pv e2e4 e7e5"
    )
    assert " score mate 2 " in info_line(Info(3, 3, 100_000 - 3, 1, 0.0, pv))
    assert " score mate -1 " in info_line(Info(3, 3, -(100_000 - 2), 1, 0.0, pv))
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


# -- the installed program -----------------------------------------------------------------

BESTMOVE = re.compile(
    r"bestmove ([a-h][1-8][a-h][1-8][qrbn]?)( ponder [a-h][1-8][a-h][1-8][qrbn]?)?"
)


class Conversation:
    def __init__(self, process: trio.Process) -> None:
        assert process.stdout is not None and process.stdin is not None
        self.process = process
        self.lines = LineStream(process.stdout, process.stdin, max_line=1 << 20)

    async def send(self, *commands: str) -> None:
        for command in commands:
            self.lines.queue_line(command)
        await self.lines.flush()

    async def read_until(self, prefix: str) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        seen = []
        while True:
            line = await self.lines.receive_line()
            seen.append(line)
            if line.startswith(prefix):
                return seen


@asynccontextmanager
async def engine() -> AsyncIterator[Conversation]:
    with trio.fail_after(TIMEOUT):
        process = await trio.lowlevel.open_process(
            [program("hub"), "engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        try:
            conversation = Conversation(process)
            banner = await conversation.lines.receive_line()
            assert banner.startswith("hub ")
            yield conversation
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()


async def test_handshake_in_either_order() -> None:
    async with engine() as conversation:
        await conversation.send("isready")
        assert await conversation.read_until("readyok") == ["readyok"]
        await conversation.send("uci")
        lines = await conversation.read_until("uciok")
        assert lines[0].startswith("id name hub ")
        assert lines[1] == "id author the hub developers"
        assert lines[-1] == "uciok"


async def test_d_prints_stockfish_board_art() -> None:
    async with engine() as conversation:
        await conversation.send("position startpos moves e2e4 c7c5 g1f3", "d")
        lines = await conversation.read_until("Checkers:")
    assert lines[:20] == [
        "",
        " +---+---+---+---+---+---+---+---+",
        " | r | n | b | q | k | b | n | r | 8",
        " +---+---+---+---+---+---+---+---+",
        " | p | p |   | p | p | p | p | p | 7",
        " +---+---+---+---+---+---+---+---+",
        " |   |   |   |   |   |   |   |   | 6",
        " +---+---+---+---+---+---+---+---+",
        " |   |   | p |   |   |   |   |   | 5",
        " +---+---+---+---+---+---+---+---+",
        " |   |   |   |   | P |   |   |   | 4",
        " +---+---+---+---+---+---+---+---+",
        " |   |   |   |   |   | N |   |   | 3",
        " +---+---+---+---+---+---+---+---+",
        " | P | P | P | P |   | P | P | P | 2",
        " +---+---+---+---+---+---+---+---+",
        " | R | N | B | Q | K | B |   | R | 1",
        " +---+---+---+---+---+---+---+---+",
        "   a   b   c   d   e   f   g   h",
        "",
    ]
    assert lines[20] == "Fen: rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    assert re.fullmatch(r"Key: [0-9A-F]{16}", lines[21])
    assert lines[22] == "Checkers: "
    assert len(lines) == 23


async def test_go_movetime_and_depth_give_a_legal_bestmove() -> None:
    async with engine() as conversation:
        await conversation.send("position startpos moves e2e4", "go movetime 200 depth 15")
        lines = await conversation.read_until("bestmove")
        match = BESTMOVE.fullmatch(lines[-1])
        assert match is not None
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(match.group(1)) in board.legal_moves
        assert all(line.startswith("info depth ") for line in lines[:-1])
        await conversation.send("go depth 2")
        lines = await conversation.read_until("bestmove")
        assert [line.split()[2] for line in lines[:-1]] == ["1", "2"]


async def test_no_legal_move_gives_bestmove_none() -> None:
    async with engine() as conversation:
        await conversation.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "go movetime 100")
        assert await conversation.read_until("bestmove") == [
            "info depth 0 score mate 0",
            "bestmove (none)",
        ]
        await conversation.send("position fen 7k/8/6Q1/8/8/8/8/K7 b - - 0 1", "go depth 5")
        assert await conversation.read_until("bestmove") == [
            "info depth 0 score cp 0",
            "bestmove (none)",
        ]
        await conversation.send("go perft 1")
        assert await conversation.read_until("Nodes") == ["", "Nodes searched: 0"]


async def test_isready_and_stop_during_an_infinite_search() -> None:
    async with engine() as conversation:
        await conversation.send("position startpos", "go infinite")
        await trio.sleep(0.3)
        await conversation.send("isready")
        lines = await conversation.read_until("readyok")
        assert not any(line.startswith("bestmove") for line in lines)
        await conversation.send("stop")
        assert BESTMOVE.fullmatch((await conversation.read_until("bestmove"))[-1])


async def test_unknown_commands_junk_and_long_lines_get_answers() -> None:
    async with engine() as conversation:
        await conversation.send("foo bar", "", "   ")
        assert await conversation.read_until("Unknown") == [
            "Unknown command: 'foo bar'. Type help for more information."
        ]
        conversation.lines.queue_raw(b"\x00\xff\xfe junk\n" + b"x" * (2 << 20) + b"\n")
        await conversation.send("position fen garbage", "isready")
        lines = await conversation.read_until("readyok")
        assert (
            lines[-2]
            == "info string invalid FEN: expected 8 rows in position part of fen: 'garbage'"
        )
        assert lines[-3].startswith("info string command longer than")


async def test_quit_and_end_of_input_end_the_engine() -> None:
    async with engine() as conversation:
        await conversation.send("position startpos", "go infinite")
        await trio.sleep(0.2)
        await conversation.send("quit")
        assert BESTMOVE.fullmatch((await conversation.read_until("bestmove"))[-1])
        assert await conversation.process.wait() == 0
    async with engine() as conversation:
        await conversation.send("go infinite")
        await trio.sleep(0.2)
        await conversation.process.stdin.aclose()  # type: ignore[union-attr]
        assert BESTMOVE.fullmatch((await conversation.read_until("bestmove"))[-1])
        with pytest.raises(PeerClosed):
            await conversation.lines.receive_line()
        assert await conversation.process.wait() == 0


def test_python_chess_plays_against_hub_engine() -> None:
    """A real UCI client (python-chess) can use hub engine: handshake, play, analyse, quit."""
    engine_process = chess.engine.SimpleEngine.popen_uci(
        [program("hub"), "engine"], timeout=TIMEOUT
    )
    try:
        board = chess.Board()
        for _ in range(4):
            result = engine_process.play(board, chess.engine.Limit(time=0.05))
            assert result.move is not None and result.move in board.legal_moves
            board.push(result.move)
        analysis = engine_process.analyse(board, chess.engine.Limit(depth=2))
        assert analysis["depth"] == 2 and "score" in analysis and analysis["pv"]
        mate = engine_process.analyse(
            chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), chess.engine.Limit(depth=2)
        )
        assert mate["score"].white() == chess.engine.Mate(1)
    finally:
        engine_process.quit()


def test_engine_usage() -> None:
    result = subprocess.run(
        [program("hub"), "engine", "--bogus"], capture_output=True, timeout=TIMEOUT, check=False
    )
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.startswith(b"usage: hub engine")
