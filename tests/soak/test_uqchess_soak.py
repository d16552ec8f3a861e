"""Soak (issue 11): connect/play/disconnect cycles against ``hub serve uqchess`` (Stockfish,
else the built-in engine) leave the server's resident memory where it was after a warm-up.

A cycle is a human-vs-human game of two connections (two moves, then a resignation or a
disconnect, in turn) or, one cycle in 50, a game against the computer (one move each, then
the client disconnects while the game is on); 8 cycles run at once. `make test`: 200
cycles after 50 of warm-up; `make soak` (HUB_SOAK=long): 10,000 after 500."""

from __future__ import annotations

import time

import pytest
import trio

from hub.core.io.lines import LineStream
from tests.conftest import program
from tests.soak.helpers import Sources, report, run_cycles, server, settled_rss, size, sockets

pytestmark = pytest.mark.soak

AT_ONCE = 8
COMPUTER_EVERY = 50


class Client:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.lines = LineStream(stream, stream, max_line=1 << 16)

    async def send(self, line: str) -> None:
        await self.lines.send_line(line)

    async def until(self, prefix: str) -> str:
        while True:
            line = await self.lines.receive_line()
            if line.startswith(prefix):
                return line


async def cycles(port: int, count: int, first: int) -> None:
    sources = Sources()
    pairing = trio.Lock()  # the lobby pairs by colour in order: one pair at a time

    async def human_game(number: int) -> None:
        white = Client(await sources.connect(port))
        black = Client(await sources.connect(port))
        async with white.stream, black.stream:
            async with pairing:
                await white.send("start human white")
                await black.send("start human black")
                await white.until("started")
                await black.until("started")
            await white.send("move e2e4")
            await black.until("moved e2e4")
            await black.send("move e7e5")
            await white.until("moved e7e5")
            if number % 2:
                await white.send("resign")
                await white.until("gameover")
            else:
                await white.stream.aclose()  # gone mid-game: the opponent wins
            await black.until("gameover")

    async def computer_game() -> None:
        client = Client(await sources.connect(port))
        async with client.stream:
            await client.send("start computer white")
            await client.until("started")
            await client.send("move e2e4")
            await client.until("moved")  # the computer's reply; then leave mid-game

    async def one(number: int) -> None:
        if number % COMPUTER_EVERY == COMPUTER_EVERY - 1:
            await computer_game()
        else:
            await human_game(number)

    await run_cycles(one, count, first, AT_ONCE)


def test_uqchess_cycles_return_memory_to_baseline() -> None:
    warm_up, count = size(50, 500), size(200, 10_000)
    argv = [program("hub"), "serve", "uqchess", "--no-record", "--engines", "1"]
    with server(argv) as (process, port):
        idle = sockets(process.pid)
        trio.run(cycles, port, warm_up, 0)
        baseline = settled_rss(process.pid, idle)
        began = time.monotonic()
        trio.run(cycles, port, count, warm_up)
        seconds = time.monotonic() - began
        after = settled_rss(process.pid, idle)
    report(
        f"uqchess: {count} cycles in {seconds:.0f} s ({count / seconds:.0f}/s), VmRSS "
        f"{baseline} KiB after {warm_up} of warm-up, {after} KiB after"
        f" ({100 * (after - baseline) / baseline:+.1f}%)"
    )
    assert after <= baseline * 1.05, (baseline, after)
