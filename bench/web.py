"""Web view latency: how long a move takes to reach the 1st and the last of N viewers.

A `serve_web` on loopback, N real event-stream clients (h11 over TCP, `hub.web.client`) on
one game, then moves published one at a time on the bus; for each move, the time from
`EventBus.publish` to its arrival at the first and at the last client. Two games: chess
(each move carries python-chess's SVG board, ~15-30 kB) and tic-tac-toe (~1 kB). Server and
clients share this one process (and the machine's 2 cores), so the figures include parsing
the streams on the client side too: they are an upper bound for a server alone.

Usage: .venv/bin/python bench/web.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

# bench/chess.py would shadow python-chess: this folder must not come first on sys.path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import chess  # noqa: E402
import trio  # noqa: E402

from hub.core.bus import EventBus  # noqa: E402
from hub.core.events import GameStarted, MoveMade  # noqa: E402
from hub.core.values import PlayerInfo  # noqa: E402
from hub.web.client import follow  # noqa: E402
from hub.web.server import WebServer, serve_web  # noqa: E402

QUICK = "--quick" in sys.argv[1:]
MOVES = 20 if QUICK else 60
PLAYERS = (PlayerInfo("white", "program"), PlayerInfo("black", "program"))


def chess_views(count: int) -> list[tuple[str, Any]]:
    """``count`` moves of a knights' shuffle and their chess state views."""
    board = chess.Board()
    views = []
    for ply in range(count):
        move = ["g1f3", "g8f6", "f3g1", "f6g8"][ply % 4]
        board.push_uci(move)
        view = {
            "fen": board.fen(),
            "lastmove": move,
            "check": False,
            "turn": "white" if board.turn else "black",
        }
        views.append((move, view))
    return views


def tictactoe_views(count: int) -> list[tuple[str, Any]]:
    return [(str(ply % 9), "XO" * 4 + str(ply % 10)) for ply in range(count)]


async def measure(viewers: int, game: str, moves: list[tuple[str, Any]]) -> dict[str, float]:
    bus = EventBus()
    arrivals: list[list[float]] = [[] for _ in moves]
    sent: list[float] = []
    async with trio.open_nursery() as nursery:
        server: WebServer = await nursery.start(partial(serve_web, bus))
        bus.publish(GameStarted("g", game, {}, PLAYERS, (), moves[0][1], 0, time.time()))
        ready = trio.Semaphore(0)
        everyone = trio.Event()
        count = [0]

        async def viewer() -> None:
            async with follow(server.host, server.port, "/game/g/events") as messages:
                async for message in messages:
                    if message["type"] == "snapshot":
                        ready.release()
                    elif message["type"] == "move":
                        arrivals[message["ply"] - 1].append(time.perf_counter())
                        count[0] += 1
                        if count[0] == viewers:
                            everyone.set()

        for _ in range(viewers):
            nursery.start_soon(viewer)
        for _ in range(viewers):
            await ready.acquire()
        for ply, (move, view) in enumerate(moves, 1):
            count[0] = 0
            everyone = trio.Event()
            sent.append(time.perf_counter())
            bus.publish(
                MoveMade(
                    "g", ply, (ply - 1) % 2, move, view, ply % 2, 0.1, (None, None), time.time()
                )
            )
            with trio.fail_after(30):
                await everyone.wait()
        nursery.cancel_scope.cancel()
    first = [min(times) - start for times, start in zip(arrivals, sent, strict=True)]
    last = [max(times) - start for times, start in zip(arrivals, sent, strict=True)]
    return {
        "first_median": statistics.median(first) * 1000,
        "last_median": statistics.median(last) * 1000,
        "last_p95": sorted(last)[int(0.95 * (len(last) - 1))] * 1000,
        "last_max": max(last) * 1000,
    }


async def main() -> None:
    print(f"{MOVES} moves each; milliseconds from publish to arrival")
    print(
        f"{'game':10} {'viewers':>7} {'1st median':>10} {'last median':>11} "
        f"{'last p95':>8} {'last max':>8}"
    )
    for game, views in [("chess", chess_views(MOVES)), ("tictactoe", tictactoe_views(MOVES))]:
        for viewers in (1, 10, 100):
            got = await measure(viewers, game, views)
            print(
                f"{game:10} {viewers:7d} {got['first_median']:10.2f} {got['last_median']:11.2f}"
                f" {got['last_p95']:8.2f} {got['last_max']:8.2f}"
            )


if __name__ == "__main__":
    trio.run(main)
