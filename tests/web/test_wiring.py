"""``--web`` on the programs, as a user runs them: the URL on its own line on stderr, the
lobby following the program's games, standard output untouched."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.web.client import follow
from tests.clubs.helpers import SPEC_EXAMPLE, clubhub, env_with, run
from tests.conftest import program

pytestmark = pytest.mark.e2e


class Lines:
    """Whole lines from a process's pipe."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream
        self._buffer = b""

    async def line(self) -> str:
        while b"\n" not in self._buffer:
            chunk = await self._stream.receive_some(4096)
            if not chunk:
                raise EOFError(self._buffer)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    async def rest(self) -> str:
        while chunk := await self._stream.receive_some(65536):
            self._buffer += chunk
        return self._buffer.decode()


@asynccontextmanager
async def running(argv: Sequence[str]) -> AsyncIterator[tuple[trio.Process, Lines, Lines]]:
    process = await trio.lowlevel.open_process(
        list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        yield process, Lines(process.stdout), Lines(process.stderr)
    finally:
        process.kill()
        await process.wait()


def web_port(url: str) -> int:
    assert url.startswith("http://127.0.0.1:") and url.endswith("/"), url
    return int(url.removeprefix("http://127.0.0.1:").removesuffix("/"))


async def finished_game(messages: AsyncIterator[Any], game: str) -> dict[str, Any]:
    """The lobby's row of the first game of ``game`` that finishes."""
    async for message in messages:
        row = message.get("game") if message["type"] == "game" else None
        if row is not None and row["game"] == game and row["status"] == "finished":
            return dict(row)
    raise AssertionError("the stream ended before the game did")


async def test_hub_serve_kalah_with_web() -> None:
    hub = program("hub")
    board = ["--holes", "4", "--seeds", "2", "--level", "1", "--time-ms", "2000"]
    with trio.fail_after(60):
        async with running([hub, "serve", "kalah", "--web", "0", "--games", "1", *board]) as (
            server,
            out,
            err,
        ):
            port = int(await err.line())
            url = await err.line()
            async with follow("127.0.0.1", web_port(url), "/events") as messages:
                assert (await anext(messages))["type"] == "lobby"
                async with running(
                    [hub, "play", "kalah", "--connect", f"localhost:{port}", "--ai", "--level", "1"]
                ) as (client, _, _):
                    row = await finished_game(messages, "kalah")
                    assert await client.wait() == 0
            assert len(row["players"]) == 2 and row["ply"] > 0
            assert await server.wait() == 0
            assert url not in await out.rest()


async def test_a_web_port_that_is_taken_is_an_error() -> None:
    hub = program("hub")
    with trio.socket.socket() as taken:
        await taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        result = await trio.run_process(
            [hub, "serve", "kalah", "--web", str(busy)],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    assert result.returncode == 1
    assert f"can't serve the web view on port {busy}" in result.stderr.decode()


async def test_a_bad_web_address_is_a_usage_error() -> None:
    result = await trio.run_process(
        [program("hub"), "serve", "kalah", "--web", "nowhere"],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    assert result.returncode == 2
    assert "--web" in result.stderr.decode()


@pytest.mark.parametrize("concurrency", [1, 2])
async def test_hub_match_with_web(concurrency: int) -> None:
    """In this process every move is followed; from workers the games appear as they end."""
    argv = [program("hub"), "match", "kalah", "ai:6", "ai:6", "--games", "2", "--no-record"]
    argv += ["--concurrency", str(concurrency), "--web", "0"]
    with trio.fail_after(120):
        async with running(argv) as (process, out, err):
            while not (line := await err.line()).startswith("http://"):
                pass  # the match's header comes first
            seen: list[dict[str, Any]] = []
            async with follow("127.0.0.1", web_port(line), "/events") as messages:
                async for message in messages:
                    if message["type"] == "game":
                        seen.append(message["game"])
                    if sum(row["status"] == "finished" for row in seen) == 2:
                        break
            # the match is over and its web view stays up until Ctrl-C (docs/web.md)
            while "stays up" not in await err.line():
                pass
            process.send_signal(signal.SIGINT)
            assert await process.wait() == 130
            table = await out.rest()
    assert line not in table and "ai:6 #2" in table
    finished = {row["id"] for row in seen if row["status"] == "finished"}
    assert len(finished) == 2
    moves = [row for row in seen if row["status"] == "running" and row["ply"] > 0]
    assert bool(moves) == (concurrency == 1)


def test_clubs_with_a_web_view_keep_their_output(tmp_path: Path) -> None:
    """``HUB_WEB`` for clubhub (its command line is the spec's), ``--web`` for ``hub play
    clubs``: the URL is the first line on stderr; stdout is the spec's, byte for byte."""
    shutil.copy(SPEC_EXAMPLE / "one-sorted-deck.decks", tmp_path / "deck.decks")
    args = ["deck.decks", "10", "clubber", "clubber"]
    plain = clubhub(*args, cwd=tmp_path, env=env_with())
    assert plain.triple() == (0, (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes(), b"")
    hub = program("hub")
    for result in [
        clubhub(*args, cwd=tmp_path, env=env_with(HUB_WEB="0")),
        run([hub, "play", "clubs", *args, "--web", "0"], cwd=tmp_path, env=env_with()),
        run([hub, "play", "clubs", "--web", "127.0.0.1:0", *args], cwd=tmp_path, env=env_with()),
    ]:
        assert (result.status, result.stdout) == (0, plain.stdout)
        url, rest = result.stderr.decode().split("\n", 1)
        assert web_port(url) > 0 and rest == ""


def test_clubs_with_a_bad_web_address(tmp_path: Path) -> None:
    shutil.copy(SPEC_EXAMPLE / "one-sorted-deck.decks", tmp_path / "deck.decks")
    args = ["deck.decks", "10", "clubber", "clubber"]
    bad = clubhub(*args, cwd=tmp_path, env=env_with(HUB_WEB="x"))
    assert bad.triple() == (1, b"", b"clubhub: HUB_WEB: 'x' is not [HOST:]PORT\n")
    usage = run([program("hub"), "play", "clubs", "--web"], env=env_with())
    assert usage.triple() == (1, b"", b"hub play clubs: --web: '' is not [HOST:]PORT\n")


async def test_hub_match_on_a_taken_web_port() -> None:
    with trio.socket.socket() as taken:
        await taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        argv = [program("hub"), "match", "kalah", "ai:1", "ai:1", "--no-record"]
        result = await trio.run_process(
            [*argv, "--web", str(busy)], capture_stdout=True, capture_stderr=True, check=False
        )
    assert result.returncode == 1 and result.stdout == b""
    assert f"hub match: can't serve the web view on port {busy}: " in result.stderr.decode()


async def _one_uqchess_game(argv: Sequence[str], env: dict[str, str] | None = None) -> None:
    """Serve, play one game against the computer and resign it; the lobby sees it finish."""
    with trio.fail_after(60):
        process = await trio.lowlevel.open_process(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert process.stderr is not None
        err = Lines(process.stderr)
        try:
            port = int(await err.line())
            url = await err.line()
            async with follow("127.0.0.1", web_port(url), "/events") as messages:
                assert (await anext(messages))["type"] == "lobby"
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                async with stream:
                    await stream.send_all(b"start computer white\nmove e2e4\nresign\n")
                    row = await finished_game(messages, "chess")
            assert row["ply"] >= 2 and len(row["players"]) == 2
        finally:
            process.kill()
            await process.wait()


async def test_hub_serve_uqchess_with_web() -> None:
    await _one_uqchess_game([program("hub"), "serve", "uqchess", "--web", "0"])


async def test_uqchessserver_takes_the_web_view_from_the_environment() -> None:
    import os

    env = dict(os.environ, HUB_WEB="0")
    await _one_uqchess_game([program("uqchessserver")], env)


def test_uqchessserver_keeps_its_spec_command_line() -> None:
    done = subprocess.run(
        [program("uqchessserver"), "--web", "0"], capture_output=True, timeout=30, check=False
    )
    assert (done.returncode, done.stdout) == (8, b"")
    assert done.stderr == b"Usage: ./uqchessserver [--listenOn portno]\n"
