"""Web view latency: how long a move takes to reach the 1st and the last of N viewers, and
how long a person's click in the browser takes to reach the opponent's page and 100
spectators.

A `serve_web` on loopback, N real event-stream clients (h11 over TCP, `hub.web.client`) on
one game, then moves published one at a time on the bus; for each move, the time from
`EventBus.publish` to its arrival at the first and at the last client. Two games: chess
(each move carries python-chess's SVG board, ~15-30 kB) and tic-tac-toe (~1 kB). Server and
clients share this one process (and the machine's 2 cores), so the figures include parsing
the streams on the client side too: they are an upper bound for a server alone.

The click: a real `Match` of Connect Four between two browser seats (`hub.declared.browser`,
served by `hub.web.play`), 100 spectators following the game's event stream and the
opponent following its seat's stream; each move is a real ``POST /play/TOKEN/move`` (httpx
over loopback), timed from just before the POST to the frame that shows it on the
opponent's page and on every spectator's.

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
import httpx  # noqa: E402
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


async def click_latency(spectators: int, moves: int) -> dict[str, float]:
    """A browser's click to the opponent's page and to the last of ``spectators``."""
    import random

    from hub.core.match import Match
    from hub.declared.browser import SeatDesk
    from hub.games.connect4 import ConnectFour

    game, desk, bus = ConnectFour({"rows": 12, "columns": 7}), SeatDesk(), EventBus()
    seats = [desk.open(game), desk.open(game)]
    match = Match(game, game.start(random.Random(0)), seats, notation=game, events=bus)
    to_opponent: list[float] = []
    to_last: list[float] = []
    async with trio.open_nursery() as nursery:
        server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
        nursery.start_soon(match.run)
        await trio.sleep(0.2)
        ready = trio.Semaphore(0)
        seen = {"ply": 0, "count": 0, "opponent": 0}
        arrived: dict[str, trio.Event] = {"all": trio.Event(), "opponent": trio.Event()}

        async def spectator() -> None:
            async with follow(server.host, server.port, f"/game/{match.game_id}/events") as got:
                async for message in got:
                    if message.get("type") == "snapshot":
                        ready.release()
                    elif message.get("type") == "move" and message["ply"] == seen["ply"]:
                        seen["count"] += 1
                        if seen["count"] == spectators:
                            arrived["all"].set()

        async def opponent(token: str, seat: int) -> None:
            async with follow(server.host, server.port, f"/play/{token}/events") as got:
                ready.release()
                async for message in got:
                    if len(message.get("moves", ())) == seen["ply"] and seen["opponent"] == seat:
                        arrived["opponent"].set()

        for _ in range(spectators):
            nursery.start_soon(spectator)
        for seat, browser in enumerate(seats):
            nursery.start_soon(opponent, browser.token, seat)
        for _ in range(spectators + 2):
            await ready.acquire()
        async with httpx.AsyncClient(timeout=30) as client:
            for ply in range(1, moves + 1):
                mover = seats[(ply - 1) % 2]
                seen.update(ply=ply, count=0, opponent=ply % 2)
                arrived = {"all": trio.Event(), "opponent": trio.Event()}
                move = mover.snapshot()["legal"][ply % 3]
                start = time.perf_counter()
                await client.post(
                    server.url(f"/play/{mover.token}/move"),
                    json={"move": move},
                    headers={"Origin": server.url("/").rstrip("/")},
                )
                with trio.fail_after(30):
                    await arrived["opponent"].wait()
                    to_opponent.append(time.perf_counter() - start)
                    await arrived["all"].wait()
                    to_last.append(time.perf_counter() - start)
        nursery.cancel_scope.cancel()

    def p99(values: list[float]) -> float:
        return sorted(values)[int(0.99 * (len(values) - 1))] * 1000

    return {
        "opponent_median": statistics.median(to_opponent) * 1000,
        "opponent_p99": p99(to_opponent),
        "last_median": statistics.median(to_last) * 1000,
        "last_p99": p99(to_last),
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

    clicks = 20 if QUICK else 100
    got = await click_latency(100, clicks)
    print(
        f"\n{clicks} clicks in a browser seat (Connect Four, 12 rows), milliseconds from the POST"
    )
    print(f"{'to':24} {'median':>7} {'p99':>7}")
    print(f"{'the opponent page':24} {got['opponent_median']:7.2f} {got['opponent_p99']:7.2f}")
    print(f"{'the last of 100 viewers':24} {got['last_median']:7.2f} {got['last_p99']:7.2f}")


if __name__ == "__main__":
    trio.run(main)
