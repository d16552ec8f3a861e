"""``hub engine``: conversations with the installed program (the pure UCI text is tested in
tests/chesslib/test_uci.py)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import chess
import chess.engine
import pytest
import trio

from hub.core.io.lines import LineStream, PeerClosed
from tests.chess.helpers import TIMEOUT
from tests.conftest import program

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
        await conversation.read_until("info depth")  # the search is running
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
        await conversation.read_until("info depth")  # the search is running
        await conversation.send("quit")
        assert BESTMOVE.fullmatch((await conversation.read_until("bestmove"))[-1])
        assert await conversation.process.wait() == 0
    async with engine() as conversation:
        await conversation.send("go infinite")
        await conversation.read_until("info depth")  # the search is running
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
    assert result.stderr == (
        b"hub engine: unrecognized arguments: --bogus (see hub engine --help)\n"
    )
