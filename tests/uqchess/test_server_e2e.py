"""End to end: the installed ``uqchessserver`` with a real Stockfish, scripted clients on
loopback sockets, every reply compared byte for byte with shared/specs/uqchess.md."""

from __future__ import annotations

import os
import signal
import socket
import subprocess

import chess
import pytest
import trio

from hub.chess.game import ChessGame
from hub.chess.rules import Draws, initial, render_board
from hub.core.io.lines import LineStream, PeerClosed, TransportFailed
from tests.chesslib.helpers import fake_engine_argv
from tests.conftest import need_stockfish, program
from tests.uqchess.helpers import (
    connect,
    run_program,
    running_server,
)

pytestmark = pytest.mark.e2e

WHITE_PERFT_STARTPOS = (
    "a2a3 b2b3 c2c3 d2d3 e2e3 f2f3 g2g3 h2h3 a2a4 b2b4 c2c4 d2d4 e2e4 f2f4 g2g4 h2h4 "
    "b1a3 b1c3 g1f3 g1h3"
)
# Sam Loyd's ten-move stalemate.
LOYD_STALEMATE = [
    *("e2e3", "a7a5", "d1h5", "a8a6", "h5a5", "h7h5", "h2h4", "a6h6", "a5c7", "f7f6"),
    *("c7d7", "e8f7", "d7b7", "d8d3", "b7b8", "d3h7", "b8c8", "f7g6", "c8e6"),
]


@pytest.fixture(autouse=True)
def _stockfish() -> None:
    need_stockfish()


def board_after(*moves: str) -> list[str]:
    referee = ChessGame(draws=Draws.NONE)
    state = initial()
    for move in moves:
        state = referee.apply(state, move)
    return render_board(state)


def legal(board: chess.Board, move: str) -> bool:
    return chess.Move.from_uci(move) in board.legal_moves


async def test_computer_as_white_and_as_black() -> None:
    async with running_server() as server, connect(server.port) as a, connect(server.port) as b:
        await a.ask("start computer black", "started black")
        [reply] = await a.receive()
        assert reply.startswith("moved ")
        assert legal(chess.Board(), reply.split()[1])
        await b.ask("start computer either", "started white")
        await b.send("move e2e4")
        ok, moved = await b.receive(2)
        assert ok == "ok"
        board = chess.Board()
        board.push_uci("e2e4")
        assert moved.startswith("moved ") and legal(board, moved.split()[1])
        await b.silent()


async def test_hints() -> None:
    async with running_server() as server, connect(server.port) as a:
        await a.ask("start computer white", "started white")
        await a.ask("hint all", "moves " + WHITE_PERFT_STARTPOS)
        await a.send("hint best")
        [best] = await a.receive()
        words = best.split()
        assert words[0] == "moves" and len(words) == 2 and legal(chess.Board(), words[1])
        await a.silent()


async def test_board_before_during_and_after_games() -> None:
    async with running_server() as server, connect(server.port) as a, connect(server.port) as b:
        await a.ask("board", "error game")
        await a.ask("start human white")
        await a.ask("board", "error game")  # only waiting
        await b.ask("start human black", "started black")
        await a.expect("started white")
        assert await a.board() == board_after()
        await a.ask("move e2e4", "ok")
        await b.expect("moved e2e4")
        assert await b.board() == board_after("e2e4")
        await b.ask("resign", "gameover resignation white")
        await a.expect("gameover resignation white")
        assert await a.board() == board_after("e2e4")  # finished boards are kept
        await b.ask("start computer white", "started white")
        assert await a.board() == board_after("e2e4")  # b's new start leaves a's board
        assert await b.board() == board_after()


async def test_check_and_fools_mate_between_humans() -> None:
    async with running_server() as server, connect(server.port) as w, connect(server.port) as b:
        await w.ask("start human white")
        await b.ask("start human black", "started black")
        await w.expect("started white")
        await w.ask("move f2f3", "ok")
        await b.expect("moved f2f3")
        await b.ask("move e7e6", "ok")
        await w.expect("moved e7e6")
        await w.ask("move g2g4", "ok")
        await b.expect("moved g2g4")
        await b.ask("move d8h4", "ok", "gameover checkmate black")
        await w.expect("moved d8h4", "gameover checkmate black")
        await w.ask("move a2a3", "error game")
        await b.ask("hint all", "error game")


async def test_check_then_stalemate() -> None:
    async with running_server() as server, connect(server.port) as w, connect(server.port) as b:
        await w.ask("start human either")
        await b.ask("start human either", "started black")
        await w.expect("started white")
        players = [w, b]
        for ply, move in enumerate(LOYD_STALEMATE):
            mover, other = players[ply % 2], players[(ply + 1) % 2]
            after = []
            if move == "c7d7":  # Qxd7+
                after = ["check"]
            if ply == len(LOYD_STALEMATE) - 1:
                after = ["gameover stalemate"]
            await mover.ask(f"move {move}", "ok", *after)
            await other.expect(f"moved {move}", *after)
        assert await b.board() == board_after(*LOYD_STALEMATE)


async def test_promotion_with_a_five_character_move() -> None:
    moves = ["a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "c8b7", "a6b7", "b8c6"]
    async with running_server() as server, connect(server.port) as w, connect(server.port) as b:
        await w.ask("start human white")
        await b.ask("start human black", "started black")
        await w.expect("started white")
        players = [w, b]
        for ply, move in enumerate(moves):
            await players[ply % 2].ask(f"move {move}", "ok")
            await players[(ply + 1) % 2].expect(f"moved {move}")
        await w.send("hint all")
        [hints] = await w.receive()
        assert {"b7a8q", "b7a8r", "b7a8b", "b7a8n"} <= set(hints.split()[1:])
        await w.ask("move b7a8Q", "ok")  # the promotion letter may be upper case
        await b.expect("moved b7a8Q")  # relayed exactly as sent
        assert await b.board() == board_after(*moves, "b7a8q")


async def test_pairing_by_colour() -> None:
    async with running_server() as server:
        port = server.port
        async with connect(port) as a, connect(port) as b:  # either + white
            await a.ask("start human either")
            await b.ask("start human white", "started white")
            await a.expect("started black")
        async with connect(port) as a, connect(port) as b:  # either + either
            await a.ask("start human either")
            await b.ask("start human either", "started black")
            await a.expect("started white")  # the client that waited gets white
        async with connect(port) as a, connect(port) as b, connect(port) as c:
            await b.ask("start human white")  # three waiting clients, b first to wait
            await a.ask("start human white")
            await c.ask("start human white")
            async with connect(port) as d:
                await d.ask("start human black", "started black")
                await a.expect("started white")  # a connected to the server first
                await b.silent()
                await c.silent()
                async with connect(port) as e:
                    await e.ask("start human either", "started black")
                    await b.expect("started white")
                    await c.close()  # a waiting client that goes leaves the queue
                    async with connect(port) as f:
                        await f.ask("start human black")
                        await f.silent()


async def test_restart_resign_and_disconnect() -> None:
    async with running_server() as server, connect(server.port) as w, connect(server.port) as b:
        await w.ask("start human white")
        await b.ask("start human black", "started black")
        await w.expect("started white")
        await w.ask("move e2e4", "ok")
        await b.expect("moved e2e4")
        # A restart mid-game: resignation to both, then w waits for a new opponent.
        await w.ask("start human black", "gameover resignation black")
        await b.expect("gameover resignation black")
        await b.ask("start human white", "started white")
        await w.expect("started black")
        await b.ask("resign", "gameover resignation black")
        await w.expect("gameover resignation black")
        await b.ask("resign", "error game")
        await w.ask("start human white")
        await b.ask("start human black", "started black")
        await w.expect("started white")
        await b.close()  # disconnect = resignation
        await w.expect("gameover resignation white")
        assert await w.board() == board_after()  # w still has its final board
        await w.ask("move e2e4", "error game")


async def test_every_error_reason_and_junk() -> None:
    async with running_server() as server, connect(server.port) as a, connect(server.port) as b:
        await a.ask("move e2e4", "error game")
        await a.send_raw(b"\x00\xff\xfe binary\n")
        await a.expect("error command")
        await a.send_raw(b"board\x00\n")
        await a.expect("error command")
        await a.send_raw(b"board\r\n")
        await a.expect("error command")
        await a.send_raw(b"x" * 5000 + b"\nboard\n")  # over-long, then a good line
        await a.expect("error command", "error game")
        await a.send_raw(b"y" * 300_000)  # over-long and still going: no reply yet
        await a.send_raw(b"y" * 1000 + b"\n")
        await a.expect("error command")
        for line in ("", " board", "start computer", "move e2", "hint", "move e2e4 e7e5"):
            await a.ask(line, "error command")
        await a.ask("start human white")
        await b.ask("start human black", "started black")
        await a.expect("started white")
        await b.ask("move e7e5", "error turn")
        await b.ask("hint all", "error turn")
        await a.ask("move e2e5", "error move")
        await a.ask("move e1g1", "error move")
        await a.ask("move zz99", "error move")


async def test_engine_killed_mid_session() -> None:
    async with running_server() as server, connect(server.port) as a, connect(server.port) as b:
        await a.ask("start computer white", "started white")
        await b.ask("start human white")
        [engine] = server.engine_pids()
        os.kill(engine, signal.SIGKILL)
        await a.expect("error engine")
        await b.expect("error engine")
        with trio.fail_after(20):
            assert await server.process.wait() == 7
        assert await server.rest_of_stderr() == b"uqchessserver: chess engine exited unexpectedly\n"
        await a.expect_closed()


async def test_engine_pool() -> None:
    async with running_server("--engines", "2") as server, connect(server.port) as a:
        assert len(server.engine_pids()) == 2
        await a.ask("start computer black", "started black")
        [moved] = await a.receive()
        assert moved.startswith("moved ")


async def test_server_port_and_exit_statuses() -> None:
    server_program = program("uqchessserver")
    usage = b"Usage: ./uqchessserver [--listenOn portno]\n"
    for args in (
        ["--listenOn"],
        ["--listenOn", ""],
        ["--listenOn", "0", "--listenOn", "0"],
        ["0"],
        [""],
        ["--listenOn", "0", "extra"],
        ["--verbose"],
    ):
        assert await run_program([server_program, *args]) == (8, b"", usage)
    with socket.socket() as taken:
        taken.bind(("localhost", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert await run_program([server_program, "--listenOn", port]) == (
            20,
            b"",
            f'uqchessserver: can\'t start listening on port "{port}"\n'.encode(),
        )
    assert await run_program([server_program, "--listenOn", "no-such-service"]) == (
        20,
        b"",
        b'uqchessserver: can\'t start listening on port "no-such-service"\n',
    )
    cannot = b"uqchessserver: cannot start communication with chess engine\n"
    for engine in (["/nonexistent/stockfish"], fake_engine_argv("--mode", "exit")):
        env = dict(os.environ, UQCHESS_ENGINE=" ".join(engine))
        assert await run_program([server_program], env=env) == (4, b"", cannot)


async def test_hub_serve_uqchess_is_the_same_server() -> None:
    hub = program("hub")
    assert await run_program([hub, "serve", "uqchess", "--listenOn"]) == (
        8,
        b"",
        b"Usage: ./uqchessserver [--listenOn portno]\n",
    )
    async with running_server(command=[hub, "serve", "uqchess"]) as server:
        assert server.stderr_first == f"{server.port}\n".encode()
        async with connect(server.port) as a:
            await a.ask("start human either")
            await a.ask("board", "error game")


async def test_connection_cap() -> None:
    # RLIMIT_NOFILE 261 leaves room for 5 clients (see server.max_connections).
    async with (
        running_server(max_files=261) as server,
        connect(server.port) as a,
        connect(server.port) as b,
        connect(server.port) as c,
        connect(server.port) as d,
        connect(server.port) as e,
    ):
        for talker in (a, b, c, d, e):
            await talker.ask("board", "error game")
        async with connect(server.port) as refused:
            await refused.expect_closed()
        await e.close()
        for _ in range(3000):  # e's handler may take a moment to finish (30 s at least)
            async with connect(server.port) as f:
                try:
                    await f.send("board")
                    assert await f.receive() == ["error game"]
                    break
                except (PeerClosed, TransportFailed):  # refused: the slot is not free yet
                    await trio.sleep(0.01)
        else:
            pytest.fail("the slot e freed was never given to a new client")


async def test_without_stockfish() -> None:
    """uqchessserver exits 4; hub serve uqchess falls back to `hub engine` with a notice."""
    env = dict(os.environ, UQCHESS_ENGINE="")  # empty: as if no Stockfish could be found
    assert await run_program([program("uqchessserver")], env=env) == (
        4,
        b"",
        b"uqchessserver: cannot start communication with chess engine\n",
    )
    from hub.games.uqchess.server import builtin_engine

    if builtin_engine() is None:
        pytest.skip("no plug-in provides `hub engine` (the chess plug-in, issue 5)")
    process = await trio.lowlevel.open_process(
        [program("hub"), "serve", "uqchess"], stderr=subprocess.PIPE, env=env
    )
    try:
        assert process.stderr is not None
        err = LineStream(process.stderr, None)
        with trio.fail_after(20):
            notice = await err.receive_line()
            port = int(await err.receive_line())
        assert notice == "uqchessserver: no Stockfish found, using the built-in engine (hub engine)"
        async with connect(port) as a:
            await a.ask("start computer black", "started black")
            [moved] = await a.receive()
            assert moved.startswith("moved ")
    finally:
        with trio.CancelScope(shield=True):
            process.kill()
            await process.wait()


async def test_hub_servers_say_why_they_cannot_listen_and_what_to_do() -> None:
    """``hub serve uqchess`` keeps the spec's line (exit 20) and adds the reason;
    ``hub serve kalah`` says the same (exit 1). ``uqchessserver`` prints only the spec's line
    (test_usage_and_startup_errors)."""
    hub = program("hub")
    with socket.socket() as taken:
        taken.bind(("localhost", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        reasons = {
            port: f"port {port} is in use (Address already in use); stop the program that "
            "uses it, or choose another port, or --listenOn 0 for any free one",
            "no-such-service": "unknown service 'no-such-service'; give a port number or a "
            "name from /etc/services",
            "99999": "port 99999 out of range (0-65535); choose another port, or --listenOn 0 "
            "for any free one",
        }
        for given, reason in reasons.items():
            for game, prog, status in (
                ("uqchess", "uqchessserver", 20),
                ("kalah", "hub serve kalah", 1),
            ):
                expected = f'{prog}: can\'t start listening on port "{given}"\n{prog}: {reason}\n'
                assert await run_program([hub, "serve", game, "--listenOn", given]) == (
                    status,
                    b"",
                    expected.encode(),
                ), (game, given)


async def test_hub_serve_uqchess_limit_and_log_options() -> None:
    hub = program("hub")
    usage = b"Usage: ./uqchessserver [--listenOn portno]\n"
    for bad in (
        ["--max-connections", "0"],
        ["--max-line", "10"],
        ["--idle-timeout", "soon"],
        ["--log-level", "loud"],
        ["-v", "-v"],
    ):
        assert await run_program([hub, "serve", "uqchess", *bad]) == (8, b"", usage), bad
    from hub.games.uqchess.options import ServerOptions, parse_args

    options = parse_args(
        ["--max-per-address", "0", "--idle-timeout", "0", "--max-output", "4096", "-v"],
        hub_options=True,
    )
    assert isinstance(options, ServerOptions)
    assert options.limits.max_per_address is None
    assert options.limits.idle_timeout is None
    assert options.limits.max_output == 4096
    assert options.log_level == "info"
    assert parse_args(["--max-line", "2048"]) is None  # uqchessserver: the spec's options only
