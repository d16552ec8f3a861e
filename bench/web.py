"""Web view latency: how long a move takes to reach the 1st and the last of N viewers, and
how long a person's click in the browser takes to reach the opponent's page and 100
spectators.

The server (`serve_web`, and for the click a real `Match`) runs in this process; the clients
run in other processes (this script again, with ``--clients``), so that parsing 100 streams
does not share the server's event loop. All of them read the same clock (``time.perf_counter``:
CLOCK_MONOTONIC, one for the whole machine on Linux), so a time taken in one process can be
compared with a time taken in another. What is measured:

* broadcast: N real event-stream clients (h11 over TCP, `hub.web.client`), in one client
  process, follow one game; the server publishes moves one at a time on the bus, each once
  every client has the last; the time from `EventBus.publish` (server) to the move's arrival
  at the first and the last client. Two games: chess (each move carries python-chess's SVG
  board, ~15-30 kB) and tic-tac-toe (~1 kB).
* click: a real `Match` of Connect Four (12 rows) between two browser seats
  (`hub.declared.browser`, served by `hub.web.play`). One process is the two people: it
  follows both seats' pages and, on each turn, sends a real ``POST /play/TOKEN/move`` (one
  kept-alive HTTP/1.1 connection, as a browser has), timing from just before the POST to the
  frame that shows the move on the opponent's page. Another process is the 100 spectators
  following the game's page: the time to the last of them is from the same POST to the
  moment the last spectator had the move. Each click comes `THINK` (0.25 s) after the page
  offered the turn, as a person's would. The server's CPU time per click is printed too
  (from the moment every client is connected).

The times include the client processes' own reading of the streams (h11, JSON): they are an
upper bound for the server. With 2 cores and 3 busy processes, nothing runs alone: note the
load average (printed) beside any figure.

Usage: .venv/bin/python bench/web.py [--quick] [--clicks N] [--profile FILE]
  --quick    20 moves per broadcast, 40 clicks (default: 60 and 200)
  --clicks N only the click measurement, N clicks (no broadcast table)
  --profile  write a cProfile of the server process to FILE (slows it down)
"""

from __future__ import annotations

import json
import os
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

from hub.core.model.bus import EventBus  # noqa: E402
from hub.core.model.events import GameStarted, MoveMade  # noqa: E402
from hub.core.model.values import PlayerInfo  # noqa: E402
from hub.web.client import follow  # noqa: E402
from hub.web.server import WebServer, serve_web  # noqa: E402

ARGS = sys.argv[1:]
QUICK = "--quick" in ARGS
MOVES = 20 if QUICK else 60
SPECTATORS = 100
THINK = 0.25
"""Seconds between a page showing a person's turn and their click: a person does not click
within milliseconds, and without a pause the next click would queue behind the 100 copies of
the last move still being written."""
PLAYERS = (PlayerInfo("white", "program"), PlayerInfo("black", "program"))


def option(name: str) -> str | None:
    return ARGS[ARGS.index(name) + 1] if name in ARGS else None


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


def quantile(values: list[float], q: float) -> float:
    """The nearest-rank quantile (``q`` = 0.99: the value 99 % of the sample is at most)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))  # ceil(n q), at least 1
    return ordered[int(rank) - 1]


def figures(values: list[float]) -> dict[str, float]:
    """Median, p90, p99 and max of ``values`` (seconds), in milliseconds."""
    return {
        "median": statistics.median(values) * 1000,
        "p90": quantile(values, 0.90) * 1000,
        "p99": quantile(values, 0.99) * 1000,
        "max": max(values) * 1000,
    }


# -- the server process -------------------------------------------------------------------


async def clients(*argv: str) -> tuple[trio.Process, Any]:
    """The client process (this script with ``--clients``) and a reader of its lines."""
    process = await trio.lowlevel.open_process(
        [sys.executable, __file__, "--clients", *argv], stdout=-1
    )
    assert process.stdout is not None
    buffer = bytearray()
    stdout = process.stdout

    async def line() -> str:
        while b"\n" not in buffer:
            chunk = await stdout.receive_some(65536)
            if not chunk:
                raise RuntimeError("the client process ended early")
            buffer.extend(chunk)
        end = buffer.index(b"\n")
        text = buffer[:end].decode()
        del buffer[: end + 1]
        return text

    return process, line


async def broadcast(viewers: int, game: str, moves: list[tuple[str, Any]]) -> dict[str, float]:
    bus = EventBus()
    sent: list[float] = []
    first: list[float] = []
    last: list[float] = []
    async with trio.open_nursery() as nursery:
        server: WebServer = await nursery.start(partial(serve_web, bus))
        bus.publish(GameStarted("g", game, {}, PLAYERS, (), moves[0][1], 0, time.time()))
        process, line = await clients(
            "broadcast", server.host, str(server.port), str(viewers), str(len(moves))
        )
        with trio.fail_after(60):
            assert await line() == "ready"
        for ply, (move, view) in enumerate(moves, 1):
            start = time.perf_counter()
            bus.publish(
                MoveMade(
                    "g", ply, (ply - 1) % 2, move, view, ply % 2, 0.1, (None, None), time.time()
                )
            )
            with trio.fail_after(30):
                got = json.loads(await line())
            sent.append(start)
            first.append(got["first"] - start)
            last.append(got["last"] - start)
        await process.wait()
        nursery.cancel_scope.cancel()
    return {"first_median": figures(first)["median"], **figures(last)}


async def click_latency(clicks: int) -> dict[str, dict[str, float]]:
    """A browser's click to the opponent's page and to the last of `SPECTATORS`."""
    import random

    from hub.core.play.match import Match
    from hub.declared.browser import SeatDesk
    from hub.games.connect4 import ConnectFour

    # 12 x 7 holds 84 moves; a longer run plays several games one after another
    game, desk, bus = ConnectFour({"rows": 12, "columns": 7}), SeatDesk(), EventBus()
    to_opponent: list[float] = []
    to_last: list[float] = []
    cpu = 0.0
    async with trio.open_nursery() as nursery:
        server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
        while len(to_opponent) < clicks:  # a game may end before: play another
            seats = [desk.open(game), desk.open(game)]
            match = Match(game, game.start(random.Random(0)), seats, events=bus)
            nursery.start_soon(match.run)
            while bus.subscribers == 0 or server.index.game(match.game_id) is None:
                await trio.sleep(0.01)
            count = min(clicks - len(to_opponent), 40)
            watchers, watched = await clients(
                "spectators", server.host, str(server.port), match.game_id, str(SPECTATORS)
            )
            with trio.fail_after(300):
                assert await watched() == "ready"
            process, line = await clients(
                "click", server.host, str(server.port), match.game_id, seats[0].token,
                seats[1].token, str(count),
            )  # fmt: skip
            with trio.fail_after(300):
                assert await line() == "ready"
                cpu_before = time.process_time()
                got = json.loads(await line())
                cpu += time.process_time() - cpu_before
            await process.wait()
            for seat in seats:
                seat.resign()  # the game ends: the spectators' process reports and exits
            with trio.fail_after(300):
                seen = json.loads(await watched())
            await watchers.wait()
            to_opponent += got["opponent"]
            to_last += [seen[str(ply)] - start for ply, start in enumerate(got["starts"], 1)]
        nursery.cancel_scope.cancel()
    return {
        "opponent": figures(to_opponent),
        "last": figures(to_last),
        "cpu": {"per click": cpu / len(to_opponent) * 1000},
    }


def table(rows: list[tuple[str, dict[str, float]]]) -> str:
    lines = [f"| {'from the click to':28} | median |    p90 |    p99 |    max |"]
    lines.append(f"| {'-' * 28} | -----: | -----: | -----: | -----: |")
    for name, got in rows:
        lines.append(
            f"| {name:28} | {got['median']:6.1f} | {got['p90']:6.1f} | {got['p99']:6.1f} "
            f"| {got['max']:6.1f} |"
        )
    return "\n".join(lines)


async def main() -> None:
    from hub.core.io.limits import freeze_start_up
    from hub.declared.browser import SeatDesk  # noqa: F401 (imported before the freeze)
    from hub.games.connect4 import ConnectFour  # noqa: F401

    freeze_start_up()  # what a program serving the web view does once started (start_web)
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average before: {load}; {os.cpu_count()} cores")
    only_clicks = option("--clicks")
    if only_clicks is None:
        print(f"\n{MOVES} moves each; milliseconds from publish to arrival")
        print(
            f"{'game':10} {'viewers':>7} {'1st median':>10} {'last median':>11} "
            f"{'last p90':>8} {'last p99':>8} {'last max':>8}"
        )
        for game, views in [("chess", chess_views(MOVES)), ("tictactoe", tictactoe_views(MOVES))]:
            for viewers in (1, 10, 100):
                got = await broadcast(viewers, game, views)
                print(
                    f"{game:10} {viewers:7d} {got['first_median']:10.2f} {got['median']:11.2f}"
                    f" {got['p90']:8.2f} {got['p99']:8.2f} {got['max']:8.2f}"
                )
    clicks = int(only_clicks) if only_clicks is not None else 40 if QUICK else 200
    got = await click_latency(clicks)
    print(
        f"\n{clicks} clicks in a browser seat (Connect Four, 12 rows), {SPECTATORS} spectators;"
        " milliseconds from the POST"
    )
    print(
        table(
            [
                ("the opponent's page", got["opponent"]),
                (f"the last of {SPECTATORS} spectators", got["last"]),
            ]
        )
    )
    print(f"the server process's CPU time per click: {got['cpu']['per click']:.1f} ms")
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"load average after: {load}")


# -- the client process -------------------------------------------------------------------


def say(message: Any) -> None:
    sys.stdout.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    sys.stdout.flush()


async def broadcast_clients(host: str, port: int, viewers: int, moves: int) -> None:
    arrivals: list[list[float]] = [[] for _ in range(moves)]
    ready = trio.Semaphore(0)

    async def viewer() -> None:
        async with follow(host, port, "/game/g/events") as messages:
            async for message in messages:
                if message["type"] == "snapshot":
                    ready.release()
                elif message["type"] == "move":
                    times = arrivals[message["ply"] - 1]
                    times.append(time.perf_counter())
                    if len(times) == viewers:
                        say({"first": times[0], "last": times[-1]})
                    if message["ply"] == moves:
                        return

    async with trio.open_nursery() as nursery:
        for _ in range(viewers):
            nursery.start_soon(viewer)
        for _ in range(viewers):
            await ready.acquire()
        say("ready")


async def spectator_clients(host: str, port: int, game_id: str, spectators: int) -> None:
    """``spectators`` pages of the game; at its end, when each ply reached the last of them."""
    seen: dict[int, float] = {}  # ply -> arrival at the last spectator
    count: dict[int, int] = {}
    ready = trio.Semaphore(0)

    async def spectator() -> None:
        snapshots = 0
        async with follow(host, port, f"/game/{game_id}/events") as got:
            async for message in got:
                if message.get("type") == "snapshot":
                    snapshots += 1
                    if snapshots == 1:
                        ready.release()
                    elif message["game"]["status"] == "finished":
                        return
                elif message.get("type") == "move":
                    ply = message["ply"]
                    count[ply] = count.get(ply, 0) + 1
                    if count[ply] == spectators:
                        seen[ply] = time.perf_counter()

    async with trio.open_nursery() as nursery:
        for _ in range(spectators):
            nursery.start_soon(spectator)
        for _ in range(spectators):
            await ready.acquire()
        say("ready")
    say(seen)


async def click_clients(host: str, port: int, game_id: str, tokens: list[str], clicks: int) -> None:
    """Both seats' pages; clicks a legal move on each turn (``clicks`` of them, fewer if
    the game ends), and times the opponent's page."""
    import httpx

    snapshots: list[dict[str, Any]] = [{}, {}]
    changed = [trio.Event(), trio.Event()]
    ready = trio.Semaphore(0)

    async def page(seat: int) -> None:
        async with follow(host, port, f"/play/{tokens[seat]}/events") as got:
            first = True
            async for message in got:
                message["at"] = time.perf_counter()
                snapshots[seat] = message
                changed[seat].set()
                changed[seat] = trio.Event()
                if first:
                    first = False
                    ready.release()

    async def wait_for(seat: int, moves: int) -> dict[str, Any]:
        while len(snapshots[seat].get("moves", ())) < moves:
            await changed[seat].wait()
        return snapshots[seat]

    starts: list[float] = []
    opponent: list[float] = []
    async with trio.open_nursery() as nursery:
        for seat in (0, 1):
            nursery.start_soon(page, seat)
        for _ in range(2):
            await ready.acquire()
        say("ready")
        origin = f"http://{host}:{port}"
        async with httpx.AsyncClient(base_url=origin, timeout=30) as client:
            for ply in range(1, clicks + 1):
                mover = (ply - 1) % 2
                snapshot = await wait_for(mover, ply - 1)
                while not snapshot["your_turn"] and not snapshot["over"]:
                    await changed[mover].wait()
                    snapshot = snapshots[mover]
                if snapshot["over"]:
                    break  # four in a row: the server starts another game
                move = snapshot["legal"][ply % len(snapshot["legal"])]
                await trio.sleep(THINK)  # a person looks before clicking
                start = time.perf_counter()
                response = await client.post(
                    f"/play/{tokens[mover]}/move", json={"move": move}, headers={"Origin": origin}
                )
                assert response.status_code == 200, response.text
                arrived = await wait_for(1 - mover, ply)
                starts.append(start)
                opponent.append(arrived["at"] - start)
        nursery.cancel_scope.cancel()
    say({"opponent": opponent, "starts": starts})


def client_main(argv: list[str]) -> None:
    kind, host, port, *rest = argv
    if kind == "broadcast":
        viewers, moves = rest
        trio.run(broadcast_clients, host, int(port), int(viewers), int(moves))
    elif kind == "spectators":
        game_id, spectators = rest
        trio.run(spectator_clients, host, int(port), game_id, int(spectators))
    else:
        game_id, token0, token1, clicks = rest
        trio.run(click_clients, host, int(port), game_id, [token0, token1], int(clicks))


if __name__ == "__main__":
    if os.environ.get("BENCH_FAULTHANDLER"):
        import faulthandler

        faulthandler.dump_traceback_later(40)
    if ARGS[:1] == ["--clients"]:
        client_main(ARGS[1:])
    elif (profile := option("--profile")) is not None:
        import cProfile

        cProfile.run("trio.run(main)", profile)
    else:
        trio.run(main)
