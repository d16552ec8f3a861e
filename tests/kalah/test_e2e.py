"""The installed ``hub`` command over real loopback sockets, as a user would run it."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio

from hub.core.io.lines import LineStream
from hub.games.kalah.client import play_remote
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import ai_seat
from hub.games.kalah.server import serve
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import RecordingOutput

HUB = str(Path(sys.executable).parent / "hub")
TIMEOUT = 20
LEVEL = ["--level", "5", "--quiet"]

pytestmark = pytest.mark.e2e


def run_hub(*argv: str, typed: str | None = None) -> subprocess.CompletedProcess[str]:
    """``hub ARGV`` run to the end (``typed`` as its stdin), its output captured as text."""
    return subprocess.run(
        [HUB, *argv], input=typed, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


@contextmanager
def hub_server(*args: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``hub serve kalah ARGS`` on an ephemeral port; yields the process and its port."""
    process = subprocess.Popen(
        [HUB, "serve", "kalah", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        port_line = read_line(process.stderr.fileno())
        assert port_line.strip().isdigit(), port_line
        yield process, int(port_line)
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=TIMEOUT)


def read_line(fd: int) -> str:
    """One line from ``fd``, a byte at a time: nothing after it is taken into a buffer that
    ``communicate`` (which reads the descriptor itself) would never see (the server writes a
    line about its records database right after its port)."""
    line = b""
    while not line.endswith(b"\n") and (byte := os.read(fd, 1)):
        line += byte
    return line.decode()


class Wire:
    """A plain blocking socket speaking lines, for byte-exact conversations."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("localhost", port), timeout=TIMEOUT)
        self.file = self.sock.makefile("rb")

    def expect(self, *lines: str) -> None:
        for line in lines:
            assert self.file.readline() == line.encode() + b"\n"

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\n")

    def expect_closed(self) -> None:
        assert self.file.readline() == b""

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    out, _err = process.communicate(timeout=TIMEOUT)
    return process.returncode, out


def worked_example_1(wire: Wire) -> None:
    """The client's side of the spec's worked example 1 (the server's AI wins 5-3)."""
    wire.expect("WELCOME", "INFO 4 1 5000 F S")
    wire.send("READY")
    wire.expect("BEGIN")
    wire.send("4 3")
    wire.expect("OK", "P")
    wire.send("OK")
    wire.send("4 3")
    wire.expect("OK", "2", "LOSER")
    wire.expect_closed()
    wire.close()


def test_worked_example_1() -> None:
    args = ["--holes", "4", "--seeds", "1", "--time-ms", "5000", "--pie"]
    with hub_server(*args, "--first", "client", "--script", "P,2", "--games", "1") as (
        process,
        port,
    ):
        worked_example_1(Wire(port))
        status, out = finish(process)
    assert status == 0
    assert out.startswith("game 1: 127.0.0.1:") or out.startswith("game 1: ::1:")
    assert out.endswith("(first) vs AI: AI won 3-5\n")


def test_worked_example_1_too_slow() -> None:
    with hub_server("--holes", "4", "--seeds", "1", "--time-ms", "300", "--games", "1") as (
        process,
        port,
    ):
        wire = Wire(port)
        wire.expect("WELCOME", "INFO 4 1 300 F S")
        wire.send("READY")
        wire.expect("BEGIN", "TIME", "LOSER")
        wire.expect_closed()
        wire.close()
        status, out = finish(process)
    assert status == 0 and "(first) vs AI: AI won 0-0 (" in out and "too slow" in out


def test_worked_example_2() -> None:
    args = ["--layout", "6,4,7,6,5,8", "--time-ms", "1000", "--first", "server"]
    with hub_server(*args, "--script", "1 1", "--games", "1") as (process, port):
        wire = Wire(port)
        wire.expect("WELCOME", "INFO 6 6 1000 S R 6 4 7 6 5 8")
        wire.send("READY")
        wire.expect("BEGIN", "1 1", "ILLEGAL", "WINNER")
        wire.send("OK")
        wire.expect_closed()
        wire.close()
        status, out = finish(process)
    assert status == 0 and "illegal move" in out


def test_our_client_program_against_our_server_program() -> None:
    args = ["--holes", "5", "--seeds", "3", "--pie", "--time-ms", "500", "--level", "5"]
    with hub_server(*args, "--opponent", "client", "--games", "1") as (process, port):
        clients = [
            subprocess.Popen(
                [HUB, "play", "kalah", "--connect", f"localhost:{port}", "--ai", "--pie", *LEVEL],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        try:
            results = [client.communicate(timeout=TIMEOUT) for client in clients]
        finally:
            for client in clients:
                if client.poll() is None:
                    client.kill()
                    client.communicate()
        status, log = finish(process)
    assert [client.returncode for client in clients] == [0, 0]
    words = sorted(out.strip() for out, _err in results)
    assert words in (["LOSER", "WINNER"], ["TIE", "TIE"])
    assert status == 0 and log.startswith("game 1: ")


def test_client_cannot_connect_and_bad_arguments() -> None:
    with socket.socket() as unused:
        unused.bind(("localhost", 0))
        port = unused.getsockname()[1]
    done = run_hub("play", "kalah", "--connect", f"localhost:{port}", "--ai")
    assert done.returncode == 1 and "can't connect" in done.stderr
    for argv in (["serve", "kalah", "--holes", "0"], ["play", "kalah", "--level", "x"]):
        done = run_hub(*argv)
        hint = f"(see hub {argv[0]} kalah --help)\n"
        assert done.returncode == 2 and done.stderr.startswith(f"hub {argv[0]} kalah: argument ")
        assert done.stderr.count("\n") == 1 and done.stderr.endswith(hint)


def test_local_games_at_the_terminal() -> None:
    done = run_hub("play", "kalah", "--ai", "--holes", "4", "--seeds", "2", "--level", "3")
    assert done.returncode == 0
    assert "AI 1" in done.stdout and ("wins" in done.stdout or "tie" in done.stdout)
    # A person who types nonsense, then plays hole 1 whenever it can, until input ends.
    typed = "hello\n9\n" + "1\n2\n3\n4\n" * 30
    done = run_hub(
        "play", "kalah", "--human", "--holes", "4", "--seeds", "1", "--level", "2", typed=typed
    )
    assert done.returncode == 0, done.stderr
    assert "is not a hole number" in done.stdout and "no hole 9" in done.stdout
    assert "[" in done.stdout and "your move" in done.stdout
    assert "wins" in done.stdout or "tie" in done.stdout
    assert done.stderr == ""


async def test_many_games_over_loopback_with_random_settings() -> None:
    """Our client against our server, concurrently, over real sockets and worker threads."""
    rng = random.Random(8)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for game in range(10):
                options = GameOptions(
                    KalahSettings(
                        rng.randint(3, 8),
                        rng.randint(1, 6),
                        pie=rng.random() < 0.5,
                        time_ms=2000,
                        random=rng.random() < 0.5,
                    ),
                    first=rng.choice(["client", "server"]),
                    level=3,
                    seed=game,
                )
                nursery.start_soon(_one_loopback_game, options)


async def _one_loopback_game(options: GameOptions) -> None:
    out = RecordingOutput()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(
            lambda task_status: serve(
                options, 0, games=1, out=out, err=RecordingOutput(), task_status=task_status
            )
        )
        stream = await trio.open_tcp_stream("localhost", port)
        async with stream:
            result = await play_remote(
                LineStream(stream, stream), ai_seat(3), pie=options.settings.pie, out=out
            )
    assert result.result in ("WINNER", "LOSER", "TIE")
    (log,) = [line for line in out.lines if line.startswith("game 1:")]
    assert "(" not in log.split(": ", 2)[2]  # no fault: the game ended by the rules
