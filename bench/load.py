"""Load (issue 11): 1,000 concurrent UQChess connections and 500 concurrent Kalah games.

    .venv/bin/python bench/load.py [--seconds S] [--only uqchess,kalah-ai,kalah-pairs]

Each scenario starts the server as a child process with its default limits and drives it from
client processes of their own (trio over raw sockets, each bound to one of 127.0.0.2 ..
127.0.0.255 in turn, so the per-address cap is not what is measured), measuring a window of
``--seconds`` (default 15) once every client is connected:

* ``uqchess``: ``uqchessserver --engines 1`` with Stockfish (``hub serve uqchess`` with the
  built-in engine if it is absent): 400 idle connections, 250 human-vs-human games (500
  clients) pausing 0..1 s before each ply and then asking ``board``, ``hint all`` and making
  their move, and 100 clients playing the computer. The idle clients each send one
  ``board`` at the end, to show they are still served.
* ``kalah-ai``: ``hub serve kalah --time-ms 100`` (level-9 AI), 500 random clients, each
  playing game after game against the server's AI: 500 games at any moment.
* ``kalah-pairs``: the same with ``--opponent client``: 1,000 random clients paired by the
  server, 500 games at any moment.

Reported per scenario: the latency of requests that need no engine (UQChess ``board``, a
human ``move`` to its ``ok``; Kalah a move to its ``OK``) and of those that do (a computer
move, ``hint all``, the AI's reply) as p50/p99/max; moves per second; losses on time (who
was late, as the server judged it); the server's CPU (``/proc/PID/stat``, its engines
apart) and memory (``VmRSS`` at the end, ``VmHWM``); the client processes' CPU, to show that
they were not the bottleneck. Nothing is asserted about speed (bench/, not tests/); a
scenario fails if the server dies or a client cannot connect.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
# bench/ holds a chess.py of its own: keep it from shadowing the python-chess package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(HERE))

import shared  # noqa: E402
import trio  # noqa: E402

BIN = Path(sys.executable).parent
SOURCES = [f"127.0.0.{n}" for n in range(2, 256)]
"""Client addresses, round robin: 1,000 clients are at most 4 per address."""
RAMP_SECONDS = 4.0
"""Time the clients have to connect before the window opens."""
GRACE_SECONDS = 10.0
"""After the window: time for games under way to end before the clients stop waiting."""


def bench_module(name: str) -> ModuleType:
    """bench/NAME.py, whose client code the scenarios reuse."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the client processes -------------------------------------------------------------------


class Window(list[float]):
    """Samples taken inside the measured window only (the ramp and the grace are left out)."""

    begin = 0.0
    end = float("inf")

    def append(self, value: float) -> None:
        if self.begin <= time.monotonic() <= self.end:
            super().append(value)


def source_opener(first: int) -> Callable[[int], Any]:
    """A connect function binding each new socket to the next loopback address."""
    addresses: Iterator[str] = itertools.islice(itertools.cycle(SOURCES), first, None)

    async def open_stream(port: int) -> trio.SocketStream:
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            await sock.bind((next(addresses), 0))
            await sock.connect(("127.0.0.1", port))
        except BaseException:
            sock.close()
            raise
        return trio.SocketStream(sock)

    return open_stream


def _monotonic(wall: float) -> float:
    return time.monotonic() + (wall - time.time())


def _trio_time(monotonic: float) -> float:
    """trio's clock has a base of its own."""
    return trio.current_time() + (monotonic - time.monotonic())


async def guarded(errors: list[str], run: Callable[[], Any]) -> None:
    """Run one client, counting its failure instead of ending every other client."""
    try:
        await run()
    except Exception as exc:  # a client that failed is reported, the others go on
        errors.append(f"{type(exc).__name__}: {exc}")


async def uqchess_clients(spec: dict[str, Any]) -> dict[str, Any]:
    uq = bench_module("uqchess")
    port, stop = spec["port"], _monotonic(spec["stop"])
    Window.begin, Window.end = _monotonic(spec["begin"]), stop
    opener = source_opener(spec["first_source"])

    async def connect(port: int) -> Any:
        return uq.Conn(await opener(port))

    samples: dict[str, list[float]] = {
        name: Window() for name in ("board", "human move", "hint all", "computer move")
    }
    idle_served: list[float] = []
    errors: list[str] = []

    async def idle(index: int) -> None:
        conn = await connect(port)
        try:
            await trio.sleep_until(_trio_time(stop))
            sent = time.monotonic()
            await conn.send("board")  # no game: the server answers an error at once
            await conn.until(lambda line: True)
            idle_served.append(time.monotonic() - sent)
        finally:
            await conn.stream.aclose()

    lock = trio.Lock()
    async with trio.open_nursery() as nursery:
        for index in range(spec["idle"]):
            nursery.start_soon(guarded, errors, lambda index=index: idle(index))
        for index in range(spec["computer"]):
            rng = random.Random(1000 + index)
            nursery.start_soon(
                guarded,
                errors,
                lambda rng=rng: uq.computer_player(
                    port, rng, stop, samples["computer move"], None, connect
                ),
            )
        for index in range(spec["pairs"]):
            rng = random.Random(2000 + index)
            nursery.start_soon(
                guarded,
                errors,
                lambda rng=rng: uq.human_pair(
                    port, rng, stop, samples, lock, connect, spec["think"]
                ),
            )
    return {"samples": samples, "idle_served": len(idle_served), "errors": errors}


async def kalah_clients(spec: dict[str, Any]) -> dict[str, Any]:
    kalah = bench_module("kalah")
    port, stop = spec["port"], _monotonic(spec["stop"])
    Window.begin, Window.end = _monotonic(spec["begin"]), stop
    opener = source_opener(spec["first_source"])
    stats: dict[str, list[float]] = {
        "results": [],
        "server_late": [],
        "client_late": [],
        "latency": Window(),
        "ok": Window(),
    }
    errors: list[str] = []
    cut = [0]

    async def slot(index: int) -> None:
        rng = random.Random(index)
        while time.monotonic() < stop:
            with trio.move_on_at(_trio_time(stop + GRACE_SECONDS)) as scope:
                await kalah._load_client(port, rng, stats, opener)
            if scope.cancelled_caught:
                cut[0] += 1  # a game under way (or a partner awaited) at the very end

    async with trio.open_nursery() as nursery:
        for index in range(spec["clients"]):
            nursery.start_soon(guarded, errors, lambda index=index: slot(index))
    return {
        "samples": {"OK": stats["ok"], "reply": stats["latency"]},
        "games": len(stats["results"]) + len(stats["server_late"]) + len(stats["client_late"]),
        "server_late": len(stats["server_late"]),
        "client_late": len(stats["client_late"]),
        "cut": cut[0],
        "errors": errors,
    }


def client_main(spec: dict[str, Any]) -> None:
    shared.raise_nofile()
    run = uqchess_clients if spec["game"] == "uqchess" else kalah_clients
    result = trio.run(run, spec)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu"] = usage.ru_utime + usage.ru_stime
    json.dump(result, sys.stdout)


# -- the bench process ----------------------------------------------------------------------


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, int(len(values) * share))]


def run_scenario(
    name: str, argv: list[str], specs: list[dict[str, Any]], seconds: float
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        server, port = shared.start_server(argv, Path(scratch) / "server.err", 30.0)
        try:
            begin = time.time() + RAMP_SECONDS
            stop = begin + seconds
            clients = []
            for index, given in enumerate(specs):
                spec = {
                    **given,
                    "port": port,
                    "begin": begin,
                    "stop": stop,
                    "first_source": index * 127,
                }
                clients.append(
                    subprocess.Popen(
                        [sys.executable, __file__, "--client", json.dumps(spec)],
                        stdout=subprocess.PIPE,
                    )
                )
            time.sleep(max(0.0, begin - time.time()))
            engines = children(server.pid)
            cpu0 = shared.cpu_seconds(server.pid), sum(map(shared.cpu_seconds, engines))
            wait0 = shared.run_queue_wait(server.pid)
            uptime0 = os.getloadavg()[0]
            time.sleep(max(0.0, stop - time.time()))
            cpu1 = shared.cpu_seconds(server.pid), sum(map(shared.cpu_seconds, engines))
            wait1 = shared.run_queue_wait(server.pid)
            memory = shared.proc_memory(server.pid)
            outputs = [client.communicate(timeout=120)[0] for client in clients]
            alive = server.poll() is None
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        results = [json.loads(output) for output in outputs]
    samples: dict[str, list[float]] = {}
    for result in results:
        for key, values in result["samples"].items():
            samples.setdefault(key, []).extend(values)
    summary: dict[str, Any] = {
        "name": name,
        "seconds": seconds,
        "load": (uptime0, os.getloadavg()[0]),
        "server alive": alive,
        "server CPU %": 100 * (cpu1[0] - cpu0[0]) / seconds,
        "engine CPU %": 100 * (cpu1[1] - cpu0[1]) / seconds,
        "server waited for a CPU %": 100 * (wait1 - wait0) / seconds,
        "VmRSS MiB": memory["VmRSS"] / 1024,
        "VmHWM MiB": memory["VmHWM"] / 1024,
        "client CPU s": [round(result["cpu"], 1) for result in results],
        "errors": [error for result in results for error in result["errors"]],
        "samples": samples,
    }
    for key in ("idle_served", "games", "server_late", "client_late", "cut"):
        if key in results[0]:
            summary[key] = sum(result[key] for result in results)
    return summary


def uqchess_scenario(seconds: float) -> dict[str, Any]:
    stockfish = shutil.which("stockfish") or "/usr/games/stockfish"
    if os.access(stockfish, os.X_OK):
        argv = [str(BIN / "uqchessserver"), "--engines", "1"]
    else:
        argv = [str(BIN / "hub"), "serve", "uqchess", "--engines", "1", "--no-record"]
    specs = [
        {"game": "uqchess", "idle": 0, "computer": 0, "pairs": 250, "think": 0.5},
        {"game": "uqchess", "idle": 400, "computer": 100, "pairs": 0, "think": 0.0},
    ]
    summary = run_scenario("uqchess: 1,000 connections", argv, specs, seconds)
    samples = summary["samples"]
    moves = len(samples["human move"]) + 2 * len(samples["computer move"])
    summary["moves/s"] = moves / seconds
    return summary


def kalah_scenario(seconds: float, pairs: bool, games: int = 500) -> dict[str, Any]:
    argv = [str(BIN / "hub"), "serve", "kalah", "--time-ms", "100", "--no-record"]
    if pairs:
        argv += ["--opponent", "client"]
    clients = 2 * games if pairs else games
    specs = [{"game": "kalah", "clients": clients // 2} for _ in range(2)]
    name = f"kalah: {clients} clients in pairs" if pairs else f"kalah: {clients} clients vs the AI"
    summary = run_scenario(name, argv, specs, seconds)
    if pairs:  # both clients of a game saw it end; only the loser says "LOSER" after TIME
        summary["games"] //= 2
        summary["client_late"] += summary.pop("server_late")
    samples = summary["samples"]
    moves = len(samples["OK"]) + (0 if pairs else len(samples["reply"]))
    summary["moves/s"] = moves / seconds
    return summary


def report(summary: dict[str, Any]) -> None:
    print(f"\n== {summary['name']}, {summary['seconds']:g} s window")
    print(f"load average at the start / end: {summary['load'][0]:.2f} / {summary['load'][1]:.2f}")
    print(f"{'request':<16} {'samples':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for key, values in summary["samples"].items():
        values.sort()
        if not values:
            print(f"{key:<16} {0:>8}")
            continue
        print(
            f"{key:<16} {len(values):>8} {1000 * percentile(values, 0.5):>8.1f}"
            f" {1000 * percentile(values, 0.99):>8.1f} {1000 * values[-1]:>8.1f}"
        )
    for key, value in summary.items():
        if key in ("name", "seconds", "load", "samples"):
            continue
        if key == "errors":
            print(f"{'client errors':<16} {len(value)}" + (f": {value[:3]}" if value else ""))
        elif isinstance(value, float):
            print(f"{key:<16} {value:.1f}")
        else:
            print(f"{key:<16} {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--only", default="uqchess,kalah-ai,kalah-pairs")
    parser.add_argument("--kalah-games", type=int, default=500, help="games at once (500)")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.client:
        client_main(json.loads(options.client))
        return
    shared.raise_nofile()
    print(
        f"nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.2f},"
        f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    scenarios: dict[str, Callable[[], dict[str, Any]]] = {
        "uqchess": lambda: uqchess_scenario(options.seconds),
        "kalah-ai": lambda: kalah_scenario(options.seconds, False, options.kalah_games),
        "kalah-pairs": lambda: kalah_scenario(options.seconds, True, options.kalah_games),
    }
    failed = False
    for name in options.only.split(","):
        summary = scenarios[name]()
        report(summary)
        failed |= not summary["server alive"] or bool(summary["errors"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
