"""``uqchessclient``: pure session logic, then the installed program against a scripted fake
server and against the real server with Stockfish."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import chess
import pytest
import trio
import trio.testing

from hub.chess.board_art import BoardStyle, board_lines
from hub.chess.game import ChessGame
from hub.chess.rules import initial, render_board
from hub.core.io.lines import LineStream, PeerClosed
from hub.core.io.listen import bound_port, open_listeners
from hub.core.io.output import Output
from hub.games.uqchess.client import (
    NOT_IN_PROGRESS,
    NOT_VALID,
    NOT_YOUR_TURN,
    TRY_HELP,
    ClientOptions,
    ClientSession,
    UserAction,
    parse_args,
    run,
)
from tests.conftest import need_stockfish, program
from tests.uqchess.helpers import TIMEOUT, run_program, running_server

USAGE = b"Usage: uqchessclient portnum [--versus computer|human] [--colour black|white]\n"
WELCOME = "Welcome to UQChessClient - written by s4800658"
GONE = "uqchessclient: server has gone away"
COLOUR = BoardStyle(unicode=True, colour=True, palette=256)
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def test_args() -> None:
    assert parse_args(["1234"]) == ClientOptions("1234", "computer", "white")
    assert parse_args(["1234", "--versus", "human"]) == ClientOptions("1234", "human", "either")
    assert parse_args(["x", "--colour", "black", "--versus", "human"]) == ClientOptions(
        "x", "human", "black"
    )
    for bad in (
        [],
        [""],
        ["1", ""],
        ["1", "--versus"],
        ["1", "--versus", "robot"],
        ["1", "--colour", "either"],
        ["1", "--colour", "white", "--colour", "white"],
        ["1", "2"],
        ["--versus", "human"],
    ):
        assert parse_args(bad) is None, bad


def test_session_tracks_game_turn_and_colour() -> None:
    session = ClientSession(ClientOptions("1", "human", "either"))
    assert session.newgame() == "start human either"
    for line in ("print", "hint", "possible", "move e2e4", "resign"):
        assert session.on_user_line(line) == UserAction(complaint=NOT_IN_PROGRESS)
    for line in ("move", "move e2", "print ", " quit", "Newgame", "move e2e4e5", ""):
        assert session.on_user_line(line) == UserAction(complaint=NOT_VALID)
    assert session.on_user_line("quit") == UserAction(quit=True)
    assert session.on_server_line("started black") == "started black"
    assert session.on_user_line("move e7e5") == UserAction(complaint=NOT_YOUR_TURN)
    assert session.on_user_line("hint") == UserAction(complaint=NOT_YOUR_TURN)
    assert session.on_user_line("print") == UserAction(send="board")
    assert session.on_user_line("resign") == UserAction(send="resign")  # whatever the turn
    session.on_server_line("moved e2e4")
    assert session.on_user_line("possible") == UserAction(send="hint all")
    assert session.on_user_line("move e7e5") == UserAction(send="move e7e5")
    session.on_server_line("ok")
    assert session.on_user_line("hint") == UserAction(complaint=NOT_YOUR_TURN)
    assert session.on_server_line("startboard") is None
    assert session.on_server_line("") == ""
    assert session.on_server_line("endboard") is None
    session.on_server_line("gameover resignation white")
    assert session.on_user_line("print") == UserAction(send="board")  # the last board
    assert session.on_user_line("move a2a3") == UserAction(complaint=NOT_IN_PROGRESS)
    assert session.on_user_line("newgame") == UserAction(send="start human either")
    assert session.on_user_line("print") == UserAction(complaint=NOT_IN_PROGRESS)


def test_computer_games_never_ask_for_either() -> None:
    assert ClientSession(ClientOptions("1")).newgame() == "start computer white"
    black = ClientSession(ClientOptions("1", "computer", "black"))
    assert black.newgame() == "start computer black"


class Client:
    """The installed client as a child process, driven line by line."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        assert process.stderr is not None
        self.stdin = process.stdin
        self.out = LineStream(process.stdout, None)
        self.err = LineStream(process.stderr, None)

    async def type(self, *lines: str) -> None:
        await self.stdin.send_all("".join(line + "\n" for line in lines).encode())

    async def expect_out(self, *lines: str) -> None:
        with trio.fail_after(TIMEOUT):
            got = [await self.out.receive_line() for _ in lines]
        assert got == list(lines)

    async def expect_err(self, *lines: str) -> None:
        with trio.fail_after(TIMEOUT):
            got = [await self.err.receive_line() for _ in lines]
        assert got == list(lines)

    async def exit_status(self) -> int:
        with trio.fail_after(TIMEOUT):
            return await self.process.wait()

    async def no_more_output(self) -> None:
        for stream in (self.out, self.err):
            with trio.fail_after(TIMEOUT), pytest.raises(PeerClosed):
                await stream.receive_line()


@asynccontextmanager
async def client(*args: str) -> AsyncIterator[Client]:
    process = await trio.lowlevel.open_process(
        [program("uqchessclient"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield Client(process)
    finally:
        with trio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
            await process.wait()
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    await stream.aclose()


class FakeServer:
    """One scripted connection: expect the client's lines, send ours."""

    def __init__(self) -> None:
        self.port = 0
        self.connected = trio.Event()
        self.lines: LineStream | None = None
        self.stream: trio.SocketStream | None = None

    async def expect(self, *lines: str) -> None:
        await self.connected.wait()
        assert self.lines is not None
        with trio.fail_after(TIMEOUT):
            got = [await self.lines.receive_line() for _ in lines]
        assert got == list(lines)

    async def send(self, *lines: str) -> None:
        await self.connected.wait()
        assert self.lines is not None
        await self.lines.send_line("\n".join(lines))

    async def close(self) -> None:
        assert self.stream is not None
        await self.stream.aclose()


@asynccontextmanager
async def fake_server() -> AsyncIterator[FakeServer]:
    server = FakeServer()
    listeners = await open_listeners(0)
    server.port = bound_port(listeners)

    async def accept_one() -> None:
        stream = await listeners[0].accept()
        server.stream = stream
        server.lines = LineStream(stream, stream)
        server.connected.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(accept_one)
        try:
            yield server
        finally:
            nursery.cancel_scope.cancel()
            for listener in listeners:
                await listener.aclose()
            if server.stream is not None:
                await server.stream.aclose()


async def test_against_a_scripted_server() -> None:
    async with fake_server() as server, client(str(server.port), "--colour", "black") as user:
        await user.expect_out(WELCOME)
        await server.expect("start computer black")
        await user.type("move e7e5")  # no game yet
        await user.expect_err(NOT_IN_PROGRESS)
        await server.send("started black")
        await user.expect_out("started black")
        await user.type("move e7e5")
        await user.expect_err(NOT_YOUR_TURN)
        await server.send("moved e2e4")
        await user.expect_out("moved e2e4")
        await user.type("move e7e5", "hint", "possible", "print", "bogus")
        await server.expect("move e7e5", "hint best", "hint all", "board")
        await user.expect_err(NOT_VALID)
        await server.send("ok", "moves d7d5", "startboard", "", " x", "", "endboard")
        await user.expect_out("ok", "moves d7d5", "", " x", "")
        await user.type("move d7d5")  # white's turn after ok
        await user.expect_err(NOT_YOUR_TURN)
        await server.send("whatever the server says", "gameover resignation black")
        await user.expect_out("whatever the server says", "gameover resignation black")
        await user.type("resign", "print")
        await user.expect_err(NOT_IN_PROGRESS)
        await server.expect("board")
        await user.type("newgame", "print")
        await server.expect("start computer black")
        await user.expect_err(NOT_IN_PROGRESS)
        await server.close()
        await user.expect_err(GONE)
        assert await user.exit_status() == 8
        await user.no_more_output()


async def test_quit_and_end_of_input_exit_zero() -> None:
    async with fake_server() as server, client(str(server.port), "--versus", "human") as user:
        await server.expect("start human either")
        await user.type("quit")
        assert await user.exit_status() == 0
        await user.expect_out(WELCOME)
        await user.no_more_output()
        with trio.fail_after(TIMEOUT):
            assert server.lines is not None
            with pytest.raises(PeerClosed):  # nothing sent after the start
                await server.lines.receive_line()
    async with fake_server() as server, client(str(server.port)) as user:
        await server.expect("start computer white")
        await user.stdin.send_all(b"move e2")  # EOF mid-line
        await user.stdin.aclose()
        assert await user.exit_status() == 0


async def test_never_dies_of_sigpipe() -> None:
    async with fake_server() as server, client(str(server.port)) as user:
        await server.expect("start computer white")
        await server.send("started white")
        await user.expect_out(WELCOME, "started white")
        assert server.stream is not None
        server.stream.setsockopt(  # reset, so that the client's next write fails
            __import__("socket").SOL_SOCKET,
            __import__("socket").SO_LINGER,
            b"\x01\x00\x00\x00\x00\x00\x00\x00",
        )
        await server.close()
        await user.type("move e2e4", "move e2e4", "move e2e4")
        await user.expect_err(GONE)
        assert await user.exit_status() == 8


async def test_usage_and_connection_errors() -> None:
    uq = program("uqchessclient")
    for args in ([], [""], ["1", "--versus"], ["1", "--colour", "purple"], ["1", "x"]):
        assert await run_program([uq, *args]) == (13, b"", USAGE)
    listeners = await open_listeners(0)
    port = bound_port(listeners)
    for listener in listeners:
        await listener.aclose()  # nobody listens there now
    for where in (str(port), "no-such-service", "0", "99999"):
        assert await run_program([uq, where]) == (
            11,
            b"",
            f'uqchessclient: can\'t connect to port "{where}"\n'.encode(),
        )


async def test_two_clients_on_the_real_server() -> None:
    need_stockfish()
    referee = ChessGame()
    async with running_server() as server:
        port = str(server.port)
        async with (
            client(port, "--versus", "human", "--colour", "white") as white,
            client(port, "--versus", "human") as black,
        ):
            await white.expect_out(WELCOME)
            await black.expect_out(WELCOME, "started black")
            await white.expect_out("started white")
            state = initial()
            for index, move in enumerate(["f2f3", "e7e5", "g2g4", "d8h4"]):
                mover, other = (white, black) if index % 2 == 0 else (black, white)
                await mover.type(f"move {move}")
                state = referee.apply(state, move)
                tail = ["gameover checkmate black"] if index == 3 else []
                await mover.expect_out("ok", *tail)
                await other.expect_out(f"moved {move}", *tail)
            await white.type("print")
            await white.expect_out(*render_board(state))
            await black.type("hint")
            await black.expect_err(NOT_IN_PROGRESS)
            await white.type("quit")
            assert await white.exit_status() == 0
        async with client(port, "--colour", "black") as solo:
            await solo.expect_out(WELCOME, "started black")
            [moved] = [await solo.out.receive_line()]
            assert moved.startswith("moved ")
            await solo.type("possible")
            [moves] = [await solo.out.receive_line()]
            assert moves.startswith("moves ") and len(moves.split()) == 21
            server.process.kill()  # the server goes away
            await solo.expect_err(GONE)
            assert await solo.exit_status() == 8


async def test_closed_standard_input_is_end_of_input() -> None:
    """No readable standard input at all (fd 0 closed): a quiet end of input, exit 0."""
    async with fake_server() as server:
        process = await trio.lowlevel.open_process(
            [program("uqchessclient"), str(server.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: os.close(0),
        )
        try:
            await server.expect("start computer white")
            await server.send("started white")
            with trio.fail_after(TIMEOUT):
                assert await process.wait() == 0
            assert process.stderr is not None
            assert await process.stderr.receive_some() == b""
        finally:
            with trio.CancelScope(shield=True):
                if process.returncode is None:
                    process.kill()
                await process.wait()


async def test_an_over_long_line_is_reported_whole_or_pending() -> None:
    """The core change this game relies on: `LineTooLong.dropped` says which case it was."""
    from hub.core.io.lines import LineTooLong

    send, receive = trio.testing.memory_stream_pair()
    lines = LineStream(receive, None, max_line=8)
    await send.send_all(b"x" * 20 + b"\nok\n")
    with pytest.raises(LineTooLong) as whole:
        await lines.receive_line()
    assert whole.value.dropped
    assert await lines.receive_line() == "ok"
    await send.send_all(b"y" * 20)
    with pytest.raises(LineTooLong) as pending:
        await lines.receive_line()
    assert not pending.value.dropped
    await send.send_all(b"yy\nnext\n")
    await lines.skip_line()
    assert await lines.receive_line() == "next"


# -- for people: help, and boards on a terminal (issue 12) ------------------------------------


def test_help_lists_the_commands_at_any_time() -> None:
    session = ClientSession(ClientOptions("1", "human", "either"))
    action = session.on_user_line("help")
    assert action.send is None and action.complaint is None and not action.quit
    assert action.info[0] == "Commands:"
    listed = [line.split()[0] for line in action.info[1:]]
    assert listed == ["newgame", "print", "hint", "possible", "move", "resign", "quit", "help"]
    assert "--versus human --colour either" in action.info[1]
    session.on_server_line("started white")
    assert session.on_user_line("help") == action  # in a game too, whatever the turn
    for near in ("help ", "Help", "help me", " help"):
        assert session.on_user_line(near) == UserAction(complaint=NOT_VALID)


def test_boards_are_restyled_only_with_a_style() -> None:
    board = chess.Board()
    art = board_lines(board)
    plain = ClientSession(ClientOptions("1"))
    styled = ClientSession(ClientOptions("1"), style=COLOUR)
    for session in (plain, styled):
        assert session.on_server_line("started white") == "started white"
        assert session.on_server_line("startboard") is None
    assert [plain.on_server_line(line) for line in art] == art
    shown = [styled.on_server_line(line) for line in art]
    assert shown[:2] == art[:2] and shown[-2:] == art[-2:]  # blank, border, files
    assert shown[3] == art[3]  # a border between ranks
    rank8 = shown[2]
    assert rank8 is not None and "\x1b[" in rank8 and "\u265c" in rank8
    assert (
        ESCAPE.sub("", rank8)
        == " | \u265c | \u265e | \u265d | \u265b | \u265a | \u265d | \u265e | \u265c | 8"
    )
    assert styled.on_server_line("endboard") is None
    # Outside a board nothing is restyled, and the game is tracked as before.
    assert styled.on_server_line(art[2]) == art[2]
    assert styled.on_server_line("moved e2e4") == "moved e2e4" and styled.turn == "black"


async def test_on_a_terminal_boards_are_styled_and_help_is_suggested() -> None:
    """`run` as `main` starts it for a person at a terminal (faked: the style and the
    interactive flag are what `main` detects), against a scripted server."""
    fds = [os.pipe(), os.pipe()]
    send, receive = trio.testing.memory_stream_pair()
    try:
        async with fake_server() as server:
            options = ClientOptions(str(server.port))
            async with trio.open_nursery() as nursery:
                status: list[int] = []

                async def client_side() -> None:
                    out, err = Output(fds[0][1]), Output(fds[1][1])
                    status.append(await run(options, out, err, receive, COLOUR, True))

                nursery.start_soon(client_side)
                await server.expect("start computer white")
                await server.send("started white", "startboard", *board_lines(chess.Board()))
                await server.send("endboard")
                await send.send_all(b"help\nprint\n")
                await server.expect("board")
                await send.aclose()
        assert status == [0]
        for _, write in fds:
            os.close(write)
        out = os.read(fds[0][0], 65536).decode().splitlines()
        err = os.read(fds[1][0], 65536).decode().splitlines()
    finally:
        for read, _ in fds:
            os.close(read)
    assert out[:2] == [WELCOME, "started white"]
    assert "\u2656" in out[-4] and out[-4].startswith(" |\x1b[")  # rank 1, styled
    assert err[0] == TRY_HELP and err[1] == "Commands:" and len(err) == 10


async def test_help_is_on_stderr_and_boards_stay_plain_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HUB_BOARD", "unicode,colour")  # asked for, but this is no terminal
    monkeypatch.setenv("TERM", "xterm-256color")
    art = board_lines(chess.Board())
    async with fake_server() as server, client(str(server.port)) as user:
        await server.expect("start computer white")
        await server.send("started white", "startboard", *art, "endboard")
        await user.expect_out(WELCOME, "started white", *art)
        await user.type("help")
        await user.expect_err("Commands:")
        await user.type("quit")
        assert await user.exit_status() == 0
