"""UQChess server benchmark: measured side by side in one run, against real Stockfish.

    .venv/bin/python bench/uqchess.py [--seconds S] [--engines 1,2]

For each engine count N (``uqchessserver --engines N``):

1. *single*: one client alone plays computer moves: the time of one search (the spec fixes
   ``go movetime 500 depth 15``), so the most N engines allow is N / that time.
2. *throughput*: 100 clients each play against the computer as fast as the server answers:
   computer moves per second, and its ratio to what the engines allow.
3. *latency under load*: 50 clients keep waiting for computer moves while 50 others (25
   human-vs-human games) measure ``board``, a human ``move`` (to its ``ok``) and ``hint all``
   (``go perft 1``, which jumps ahead of queued searches): p50/p95/max, and ``hint all``'s
   ratio to one search's time.

It prints one table; nothing is asserted (tests live in tests/, not here).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

# bench/ holds a chess.py of its own: keep it from shadowing the python-chess package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import chess  # noqa: E402
import trio  # noqa: E402

from hub.core.io.lines import LineStream  # noqa: E402

BIN = Path(sys.executable).parent


class Conn:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.lines = LineStream(stream, stream, max_line=1 << 16)

    async def send(self, line: str) -> None:
        await self.lines.send_line(line)

    async def until(self, done: Callable[[str], bool]) -> str:
        while True:
            line = await self.lines.receive_line()
            if done(line):
                return line


async def connect(port: int) -> Conn:
    return Conn(await trio.open_tcp_stream("127.0.0.1", port))


Connect = Callable[[int], Awaitable[Conn]]
"""How a client opens its connection (bench/load.py binds each to its own 127.0.0.x)."""


async def computer_player(
    port: int,
    rng: random.Random,
    stop: float,
    moves: list[float],
    ready: trio.Event | None,
    connect: Connect = connect,
) -> None:
    """Play against the computer until ``stop``; record each computer move's latency."""
    conn = await connect(port)
    try:
        board = chess.Board()
        await conn.send("start computer white")
        await conn.until(lambda line: line.startswith("started"))
        if ready is not None:
            ready.set()
        while time.monotonic() < stop:
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            sent = time.monotonic()
            await conn.send(f"move {move.uci()}")
            reply = await conn.until(lambda line: line.startswith(("moved", "gameover", "error")))
            if reply.startswith("moved") and time.monotonic() <= stop:
                moves.append(time.monotonic() - sent)  # only moves inside the window
                board.push_uci(reply.split()[1])
            if board.is_game_over(claim_draw=True) or not reply.startswith("moved"):
                board = chess.Board()  # `start` ends the game if it still goes on
                await conn.send("start computer white")
                await conn.until(lambda line: line.startswith("started"))
    finally:
        await conn.stream.aclose()


async def _pair(white: Conn, black: Conn, lock: trio.Lock) -> None:
    """Start a game between these two (one pair at a time, so pairs never mix)."""
    async with lock:
        await white.send("start human white")
        await black.send("start human black")
        await white.until(lambda line: line.startswith("started"))
        await black.until(lambda line: line.startswith("started"))


async def human_pair(
    port: int,
    rng: random.Random,
    stop: float,
    samples: dict[str, list[float]],
    lock: trio.Lock,
    connect: Connect = connect,
    think: float = 0.0,
) -> None:
    """Two clients play each other, measuring board, move and hint all as they go; each
    ply is preceded by a pause drawn uniformly from 0..2 ``think`` seconds (0: none)."""
    white, black = await connect(port), await connect(port)
    try:
        await _pair(white, black, lock)
        board = chess.Board()
        players = [white, black]
        ply = 0
        while time.monotonic() < stop:
            mover, other = players[ply % 2], players[(ply + 1) % 2]
            if think:
                await trio.sleep(rng.uniform(0, 2 * think))
                if time.monotonic() >= stop:
                    break
            sent = time.monotonic()
            await mover.send("board")
            await mover.until(lambda line: line == "endboard")
            samples["board"].append(time.monotonic() - sent)
            sent = time.monotonic()
            await mover.send("hint all")
            await mover.until(lambda line: line.startswith("moves"))
            samples["hint all"].append(time.monotonic() - sent)
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            sent = time.monotonic()
            await mover.send(f"move {move.uci()}")
            await mover.until(lambda line: line == "ok")
            samples["human move"].append(time.monotonic() - sent)
            await other.until(lambda line: line.startswith("moved"))
            ply += 1
            if board.is_game_over(claim_draw=True):
                await _pair(white, black, lock)  # `start` resigns a game still going on
                board, ply = chess.Board(), 0
    finally:
        await white.stream.aclose()
        await black.stream.aclose()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def churn(port: int) -> None:
    """100 clients connect, 50 human games play two moves each and show the board, all leave."""
    lock = trio.Lock()

    async def pair() -> None:
        white, black = await connect(port), await connect(port)
        try:
            await _pair(white, black, lock)
            for mover, other, move in ((white, black, "e2e4"), (black, white, "e7e5")):
                await mover.send(f"move {move}")
                await other.until(lambda line: line.startswith("moved"))
            await white.send("board")
            await white.until(lambda line: line == "endboard")
        finally:
            await white.stream.aclose()
            await black.stream.aclose()

    async with trio.open_nursery() as nursery:
        for _ in range(50):
            nursery.start_soon(pair)


async def memory_rounds(port: int, pid: int, rounds: int = 4) -> list[int]:
    """The server's RSS before any client, then after each round of `churn`."""
    sizes = [rss_kib(pid)]
    for _ in range(rounds):
        await churn(port)
        await trio.sleep(0.3)  # let the server finish closing the connections
        sizes.append(rss_kib(pid))
    return sizes


async def run_for_engines(engines: int, seconds: float) -> dict[str, float | int]:
    server = await trio.lowlevel.open_process(
        [str(BIN / "uqchessserver"), "--engines", str(engines)], stderr=subprocess.PIPE
    )
    try:
        assert server.stderr is not None
        port = int(await LineStream(server.stderr, None).receive_line())
        rng = random.Random(engines)
        memory = await memory_rounds(port, server.pid)
        # 1. one search alone
        single: list[float] = []
        await computer_player(port, rng, time.monotonic() + 3, single, None)
        search = statistics.median(single)
        # 2. 100 clients against the computer
        moves: list[float] = []
        stop = time.monotonic() + seconds
        async with trio.open_nursery() as nursery:
            for index in range(100):
                nursery.start_soon(computer_player, port, random.Random(index), stop, moves, None)
        throughput = len(moves) / seconds
        allowed = engines / search
        # 3. 50 waiting for the computer, 25 human pairs measuring
        samples: dict[str, list[float]] = {"board": [], "human move": [], "hint all": []}
        stop = time.monotonic() + seconds
        async with trio.open_nursery() as nursery:
            background: list[float] = []
            for index in range(50):
                ready = trio.Event()
                nursery.start_soon(
                    computer_player, port, random.Random(1000 + index), stop, background, ready
                )
                await ready.wait()
            lock = trio.Lock()
            for index in range(25):
                nursery.start_soon(
                    human_pair, port, random.Random(2000 + index), stop, samples, lock
                )
        result: dict[str, float | int] = {
            "engines": engines,
            "search s": search,
            "computer moves/s": throughput,
            "of allowed": throughput / allowed,
            "loaded moves/s": len(background) / seconds,
        }
        for index, size in enumerate(memory):
            result[f"RSS KiB after {index} x100"] = size
        for name, values in samples.items():
            values.sort()
            result[f"{name} samples"] = len(values)
            result[f"{name} p50 ms"] = 1000 * values[len(values) // 2]
            result[f"{name} p95 ms"] = 1000 * values[int(len(values) * 0.95)]
            result[f"{name} max ms"] = 1000 * values[-1]
        hint_p95 = samples["hint all"][int(len(samples["hint all"]) * 0.95)]
        result["hint all p95 / search"] = hint_p95 / search
        return result
    finally:
        server.kill()
        await server.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--engines", default="1,2")
    options = parser.parse_args()
    results = [
        await run_for_engines(int(count), options.seconds) for count in options.engines.split(",")
    ]
    print(f"UQChess server, 100 clients, {options.seconds:g} s per phase")
    for key in results[0]:
        cells = []
        for result in results:
            value = result[key]
            cells.append(f"{value:>10.3f}" if isinstance(value, float) else f"{value:>10}")
        print(f"{key:24}" + "".join(cells))
    if len(results) > 1:
        first, last = results[0], results[-1]
        ratio = float(last["computer moves/s"]) / float(first["computer moves/s"])
        print(
            f"computer moves/s with --engines {last['engines']} vs {first['engines']}: x{ratio:.2f}"
        )


if __name__ == "__main__":
    trio.run(main)
