"""The engine client: the pure readers it uses (hub.chess.uci), one engine, the pool (fake
engines and real Stockfish)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import chess
import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from hub.chess.engine_client import (
    EngineClient,
    EnginePool,
    EngineProtocolError,
    EngineStartError,
    EngineTerminated,
)
from hub.chess.game import ChessGame
from hub.chess.rules import initial, position_command, render_board
from hub.chess.uci import parse_bestmove, parse_board, parse_perft
from tests.chesslib.helpers import TIMEOUT, fake_engine_argv
from tests.conftest import need_stockfish

# Output captured from Stockfish 15.1 (with its `info string` and unknown-command noise).
SF_PERFT = """\
info string NNUE evaluation using nn-ad9b42354671.nnue enabled
a7a6: 1
b7b5: 1
g7g8q: 1
g7g8n: 1

Nodes searched: 4

"""
SF_D = """\
Unknown command: 'foo'. Type help for more information.

 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   | k | 8
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   | Q |   |   | 7
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   | K |   | 6
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 5
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 4
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 3
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 2
 +---+---+---+---+---+---+---+---+
 |   |   |   |   |   |   |   |   | 1
 +---+---+---+---+---+---+---+---+
   a   b   c   d   e   f   g   h

Fen: 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1
Key: 5F95F3BF2F7B48C8
Checkers: \n"""


def test_bestmove_reader() -> None:
    noise = ["info string NNUE enabled", "info depth 1 pv e2e4", ""]
    assert parse_bestmove([*noise, "bestmove e2e4 ponder e7e5"]) == "e2e4"
    assert parse_bestmove(["bestmove g7g8q"]) == "g7g8q"  # 5 characters kept whole
    assert parse_bestmove(["info depth 0 score cp 0", "bestmove (none)"]) is None
    with pytest.raises(EngineProtocolError):
        parse_bestmove(["bestmove zz"])
    with pytest.raises(EngineProtocolError):
        parse_bestmove(["info depth 1"])  # ended early


def test_perft_reader() -> None:
    assert parse_perft(SF_PERFT.splitlines()) == ["a7a6", "b7b5", "g7g8q", "g7g8n"]
    assert parse_perft(["", "Nodes searched: 0", ""]) == []
    with pytest.raises(EngineProtocolError):
        parse_perft(["e2e4: 1", "", "Nodes searched: 7"])


def test_board_reader() -> None:
    art = parse_board(SF_D.splitlines())
    assert len(art) == 20
    assert art[0] == art[-1] == ""
    assert art[1] == " +---+---+---+---+---+---+---+---+"
    assert art[2] == " |   |   |   |   |   |   |   | k | 8"
    assert art[18] == "   a   b   c   d   e   f   g   h"
    state = initial("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert render_board(state) == art
    with pytest.raises(EngineProtocolError):
        parse_board(SF_D.splitlines()[:6])


@given(st.lists(st.text(max_size=40), max_size=30))
def test_readers_raise_only_their_error(lines: list[str]) -> None:
    for parse in (parse_bestmove, parse_perft, parse_board):
        with contextlib.suppress(EngineProtocolError):
            parse(lines)


async def test_handshake_and_requests_with_a_fake_engine(tmp_path: Path) -> None:
    log = tmp_path / "log"
    engine = await EngineClient.start(fake_engine_argv("--log", str(log)))
    try:
        board = chess.Board()
        position = "position startpos moves e2e4"
        moves = await engine.execute(1, position, _kind("perft"))
        board.push_uci("e2e4")
        assert moves == [move.uci() for move in board.legal_moves]
        assert await engine.execute(1, position, _kind("search")) == moves[0]
        assert await engine.execute(2, "position startpos", _kind("board")) == render_board(
            initial()
        )
    finally:
        await engine.stop()
    assert log.read_text().splitlines() == [
        "isready",
        "uci",
        "ucinewgame",  # first request: a context switch
        "isready",
        position,
        "go perft 1",
        position,  # same game: no ucinewgame
        "go movetime 500 depth 15",
        "ucinewgame",  # another game
        "isready",
        "position startpos",
        "d",
    ]


def _kind(name: str):  # type: ignore[no-untyped-def]
    from hub.chess.engine_client import JobKind

    return JobKind(name)


@pytest.mark.parametrize("mode", ["silent", "noready", "exit"])
async def test_failed_handshakes(mode: str) -> None:
    with pytest.raises(EngineStartError):
        await EngineClient.start(fake_engine_argv("--mode", mode), handshake_timeout=1.0)


async def test_missing_engine_program() -> None:
    with pytest.raises(EngineStartError):
        await EngineClient.start(["/nonexistent/stockfish"])


async def test_garbage_from_the_engine_kills_it() -> None:
    engine = await EngineClient.start(fake_engine_argv("--mode", "garbage"))
    try:
        with pytest.raises(EngineTerminated):
            await engine.execute(1, "position startpos", _kind("search"))
        with trio.fail_after(5):
            await engine.child.process.wait()
    finally:
        await engine.stop()


async def test_urgent_requests_jump_ahead_of_queued_searches(
    tmp_path: Path, gate: tuple[str, int]
) -> None:
    log = tmp_path / "log"
    pool = await EnginePool.start(fake_engine_argv("--log", str(log), "--gate", gate[0]))
    order: list[str] = []

    async def search(game: int) -> None:
        await pool.best_move(game, "position startpos")
        order.append(f"search {game}")

    async def perft() -> None:
        await pool.legal_moves(99, "position startpos moves e2e4")
        order.append("perft")

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(pool.run)
            async with trio.open_nursery() as requests:
                for game in range(4):
                    requests.start_soon(search, game)
                    await trio.testing.wait_all_tasks_blocked()  # queued in this order
                    assert (pool.engines[0].busy, pool.pending) == (True, game)
                requests.start_soon(perft)
                await trio.testing.wait_all_tasks_blocked()
                assert (pool.pending, order) == (4, [])
                os.write(gate[1], b"s" * 4)  # the searches may end now
            nursery.cancel_scope.cancel()
    # The first search was running when the perft arrived; the perft went next.
    assert order == ["search 0", "perft", "search 1", "search 2", "search 3"]


async def test_context_switch_only_between_games(tmp_path: Path) -> None:
    log = tmp_path / "log"
    pool = await EnginePool.start(fake_engine_argv("--log", str(log)))
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for game in (1, 1, 2, 2, 1):
            await pool.best_move(game, "position startpos")
        nursery.cancel_scope.cancel()
    commands = log.read_text().splitlines()
    assert commands.count("ucinewgame") == 3
    assert pool.engines[0].context_switches == 3


async def test_a_game_keeps_to_its_engine() -> None:
    pool = await EnginePool.start(fake_engine_argv("--delay", "0.05"), 2)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)

        async def play(game: int) -> None:
            for _ in range(4):
                await pool.best_move(game, "position startpos")

        async with trio.open_nursery() as games:
            games.start_soon(play, 1)
            games.start_soon(play, 2)
        nursery.cancel_scope.cancel()
    # Two games, two engines: each engine switched context once and then stayed.
    assert [engine.context_switches for engine in pool.engines] == [1, 1]
    assert sum(engine.requests for engine in pool.engines) == 8


async def test_engine_death_is_seen_at_once() -> None:
    pool = await EnginePool.start(fake_engine_argv(), 2)
    pool.engines[1].kill()  # idle, no request pending: still noticed
    with trio.fail_after(10), pytest.raises(EngineTerminated):
        await pool.run()
    assert all(not engine.alive for engine in pool.engines)
    with pytest.raises(EngineTerminated):
        await pool.best_move(1, "position startpos")


async def test_waiting_requests_fail_when_the_engine_dies() -> None:
    pool = await EnginePool.start(fake_engine_argv("--die-after", "2", "--delay", "0.05"))
    failures: list[str] = []
    died = False

    async def search(game: int) -> None:
        try:
            await pool.best_move(game, "position startpos")
        except EngineTerminated:
            failures.append(f"game {game}")

    with trio.fail_after(TIMEOUT):
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(pool.run)
                for game in range(4):
                    nursery.start_soon(search, game)
                    await trio.testing.wait_all_tasks_blocked()  # queued in this order
        except* EngineTerminated:
            died = True
    assert died
    assert sorted(failures) == ["game 1", "game 2", "game 3"]


async def test_stockfish_answers_like_the_spec_says() -> None:
    argv = [need_stockfish()]
    pool = await EnginePool.start(argv, search_command="go movetime 50 depth 5")
    referee = ChessGame()
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        state = initial()
        for move in ("e2e4", "f7f6", "d1h5"):  # check
            state = referee.apply(state, move)
        position = position_command(state)
        moves = await pool.legal_moves(1, position)
        assert sorted(moves) == sorted(referee.legal_moves(state))
        assert await pool.board(1, position) == render_board(state)
        promotion = initial("8/6P1/8/8/8/8/k7/7K w - - 0 1")
        moves = await pool.legal_moves(2, position_command(promotion))
        assert {"g7g8q", "g7g8r", "g7g8b", "g7g8n"} <= set(moves)
        best = await pool.best_move(2, position_command(promotion))
        assert best is not None
        referee.apply(promotion, best)  # legal
        mate = initial("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
        assert await pool.legal_moves(3, position_command(mate)) == []
        assert await pool.best_move(3, position_command(mate)) is None
        nursery.cancel_scope.cancel()


async def test_local_board_is_byte_identical_to_stockfish() -> None:
    """The server renders `board` itself: compare with Stockfish's `d` on random games."""
    argv = [need_stockfish()]
    pool = await EnginePool.start(argv)
    referee = ChessGame()
    import random

    rng = random.Random(7)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        for game in range(6):
            state = initial()
            for _ in range(rng.randrange(5, 80)):
                legal = referee.legal_moves(state)
                if not legal:
                    break
                state = referee.apply(state, rng.choice(list(legal)))
            assert await pool.board(game, position_command(state)) == render_board(state)
        nursery.cancel_scope.cancel()


async def test_a_flood_of_urgent_requests_cannot_starve_searches() -> None:
    pool = await EnginePool.start(fake_engine_argv("--delay", "0.05"))
    done: list[str] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)

        async def flood(game: int) -> None:
            while True:
                await pool.legal_moves(game, "position startpos")
                await trio.sleep(0)

        async def search() -> None:
            await pool.best_move(99, "position startpos")
            done.append("search")
            nursery.cancel_scope.cancel()

        for game in range(8):  # always some urgent job queued
            nursery.start_soon(flood, game)
        await trio.testing.wait_all_tasks_blocked()
        assert pool.pending == 7  # and one with the engine
        nursery.start_soon(search)
        with trio.fail_after(TIMEOUT):
            await trio.sleep_forever()
    assert done == ["search"]


async def test_a_cancelled_request_leaves_the_queue(gate: tuple[str, int]) -> None:
    pool = await EnginePool.start(fake_engine_argv("--gate", gate[0]))
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(pool.run)
            nursery.start_soon(pool.best_move, 1, "position startpos")  # keeps the engine busy
            await trio.testing.wait_all_tasks_blocked()
            async with trio.open_nursery() as waiting:
                waiting.start_soon(pool.best_move, 2, "position startpos")
                await trio.testing.wait_all_tasks_blocked()
                assert (pool.engines[0].busy, pool.pending) == (True, 1)  # queued...
                waiting.cancel_scope.cancel()  # ...then abandoned
            assert pool.pending == 0
            os.write(gate[1], b"s")  # the first search ends
            assert await pool.legal_moves(3, "position startpos")
            nursery.cancel_scope.cancel()
    assert pool.engines[0].requests == 2  # the abandoned search never reached the engine
