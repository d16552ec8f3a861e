"""Helpers for the UQChess tests: the fake engine, the installed server, clients.

`need_stockfish` (shared with the chess tests) is in tests/conftest.py.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from hub.core.io.lines import LineStream, PeerClosed, TransportFailed
from tests.conftest import descendants, program

TIMEOUT = 20.0
"""Generous: no test can hang, and a loaded machine does not make one fail."""


def engine_env(engine: Sequence[str] | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("UQCHESS_ENGINE", None)
    if engine is not None:
        env["UQCHESS_ENGINE"] = " ".join(engine)
    return env


class Server:
    """A running ``uqchessserver`` (or ``hub serve uqchess``) child process."""

    def __init__(self, process: trio.Process, port: int, stderr_first: bytes) -> None:
        self.process = process
        self.port = port
        self.stderr_first = stderr_first

    def engine_pids(self) -> list[int]:
        return descendants(self.process.pid)

    async def rest_of_stderr(self) -> bytes:
        assert self.process.stderr is not None
        data = b""
        while chunk := await self.process.stderr.receive_some(65536):
            data += chunk
        return data


async def run_program(
    argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: bytes = b""
) -> tuple[int, bytes, bytes]:
    with trio.fail_after(TIMEOUT):
        result = await trio.run_process(
            list(argv), stdin=stdin, capture_stdout=True, capture_stderr=True, env=env, check=False
        )
    return result.returncode, result.stdout, result.stderr


@asynccontextmanager
async def running_server(
    *args: str,
    engine: Sequence[str] | None = None,
    command: Sequence[str] | None = None,
    max_files: int | None = None,
) -> AsyncIterator[Server]:
    """Start the installed server on an ephemeral port; kill and reap it afterwards.

    ``max_files`` lowers the server's RLIMIT_NOFILE (its connection cap follows from it).
    """
    argv = [*(command or [program("uqchessserver")]), *args]

    def limit() -> None:
        if max_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max_files, max_files))

    process = await trio.lowlevel.open_process(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=engine_env(engine),
        preexec_fn=limit,
    )
    try:
        assert process.stderr is not None
        first = b""
        with trio.fail_after(TIMEOUT):
            while not first.endswith(b"\n"):
                chunk = await process.stderr.receive_some(1)
                if not chunk:
                    break
                first += chunk
        port = int(first)
        yield Server(process, port, first)
    finally:
        with trio.CancelScope(shield=True):
            engines = descendants(process.pid)
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            with trio.move_on_after(5):
                await process.wait()
            if process.returncode is None:  # pragma: no cover
                process.kill()
                await process.wait()
            # Stockfish quits when its stdin closes; wait for that so none is left behind.
            with trio.move_on_after(5):
                while any(running(pid) for pid in engines):
                    await trio.sleep(0.02)


def running(pid: int) -> bool:
    """The process exists and is not a zombie (an orphan's zombie waits for init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


class Talker:
    """A scripted client on a socket: send lines, expect exact lines back."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.lines = LineStream(stream, stream, max_line=1 << 20)

    async def send(self, *lines: str) -> None:
        await self.lines.send_line("\n".join(lines))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def receive(self, count: int = 1) -> list[str]:
        with trio.fail_after(TIMEOUT):
            return [await self.lines.receive_line() for _ in range(count)]

    async def expect(self, *lines: str) -> None:
        got = await self.receive(len(lines))
        assert got == list(lines), f"expected {list(lines)}, got {got}"

    async def ask(self, line: str, *expected: str) -> None:
        """Send ``line`` and expect exactly ``expected``; with none expected, check that
        nothing came back (a probe line gets ``error command`` first), so the server has
        dealt with ``line`` before the test goes on."""
        await self.send(line)
        if expected:
            await self.expect(*expected)
        else:
            await self.silent()

    async def board(self) -> list[str]:
        await self.send("board")
        assert await self.receive() == ["startboard"]
        art = await self.receive(20)
        assert await self.receive() == ["endboard"]
        return art

    async def expect_closed(self) -> None:
        """The server closed the connection (EOF, or a reset if it closed it at once)."""
        with trio.fail_after(TIMEOUT), pytest.raises((PeerClosed, TransportFailed)):
            await self.lines.receive_line()

    async def silent(self, probe: bool = True) -> None:
        """Nothing was sent to us before the reply to an erroneous probe."""
        if probe:
            await self.ask("junk", "error command")

    async def close(self) -> None:
        await self.stream.aclose()


@asynccontextmanager
async def connect(port: int) -> AsyncIterator[Talker]:
    with trio.fail_after(TIMEOUT):
        stream = await trio.open_tcp_stream("localhost", port)
    talker = Talker(stream)
    try:
        yield talker
    finally:
        await talker.close()
