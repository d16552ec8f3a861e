"""One hub under load (issue 27, "Load"): N concurrent Connect Four games between JSON bots.

    .venv/bin/python bench/hub_load.py [--games 1000,2000] [--serve all,connect4]
        [--seconds S] [--ramp S] [--clients K] [--servers M --db postgresql://...]

For each N in ``--games`` and each server in ``--serve``, the bench starts ``hub serve``
(``all``: every installed game at one port, the hello names ``"game":"connect4"``;
``connect4``: ``hub serve connect4``, for comparison) as a child, with its limits raised for
the load (``--max-connections`` above 2N, ``--max-per-address 0``, ``RLIMIT_NOFILE`` at the
hard limit) and its records in a fresh SQLite file (``--db`` names a PostgreSQL database
instead; ``--servers 2`` then starts two processes on it, each given half the bots).
2N TCP bots in ``--clients`` load-generator processes of their own (many bots per
process) connect gradually over ``--ramp`` seconds, in pairs: each says hello with
``"opponent":"any"``, so the two of a pair play each other, and plays seeded random legal
moves after a jittered think of about ``--think`` seconds (uniform in 0.5x..1.5x), game
after game on the same connection, under the server's default time control (60+1).

Measured over a window of ``--seconds`` that opens once every bot has connected: for each bot
move, the time from sending it to receiving the server's ``moved`` for it (p50/p99/max),
moves per second, the server's CPU (``/proc/PID/stat``) and its CPU per move, the time it
was ready to run but waited for a CPU (``/proc/PID/schedstat``: the machine's share of the
delay), its memory (``VmRSS``, ``VmHWM``), the load generators' CPU, and the failures: refused
or failed connections, server errors, time losses, and games that ended otherwise than by
the rules. Nothing is asserted about speed (bench/, not tests/); the script exits 1 if a
server died or a bot failed.
"""

from __future__ import annotations

import argparse
import errno
import heapq
import itertools
import json
import os
import random
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# bench/ holds a chess.py of its own: keep it from shadowing the python-chess package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(HERE))

import shared  # noqa: E402
import trio  # noqa: E402

BIN = Path(sys.executable).parent
SETTLE_SECONDS = 3.0
"""After the last bot connected, before the window opens: the last games get going."""


# -- pure helpers ---------------------------------------------------------------------------


def percentile(ordered: list[float], share: float) -> float:
    """The nearest-rank percentile of an ascending list: the smallest value with at least
    ``share`` of the values at or below it (``share`` in 0..1; an empty list has none)."""
    if not ordered:
        raise ValueError("no values")
    rank = max(1, -(-len(ordered) * share // 1))  # ceil(n * share), at least the first
    return ordered[min(len(ordered), int(rank)) - 1]


def summary_ms(values: list[float]) -> tuple[float, float, float]:
    """p50, p99 and max of seconds, in milliseconds."""
    ordered = sorted(values)
    return (
        1000 * percentile(ordered, 0.5),
        1000 * percentile(ordered, 0.99),
        1000 * ordered[-1],
    )


def ramp_offsets(pairs: int, ramp: float) -> list[float]:
    """When each pair of bots connects, in seconds from the start of the ramp: evenly spread
    over ``ramp`` seconds, so the server never sees a burst of every connection at once."""
    return [ramp * index / pairs for index in range(pairs)]


# -- the load generator (a process of its own) ----------------------------------------------


class Lines:
    """Newline-delimited messages from a trio stream."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""
        self.ready: list[bytes] = []

    async def receive(self) -> dict[str, Any]:
        while not self.ready:
            data = await self.stream.receive_some(65536)
            if not data:
                raise EOFError("the server closed the connection")
            *complete, self.buffer = (self.buffer + data).split(b"\n")
            self.ready.extend(complete)
        message: dict[str, Any] = json.loads(self.ready.pop(0))
        return message

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(json.dumps(message, separators=(",", ":")).encode() + b"\n")


class Tally:
    """What a load generator measures, whichever loop runs its bots: each move's latency
    (inside the window, or in the ramp before it), how games ended, time losses, failures and
    connections; `result` is the dict a generator prints."""

    def __init__(self, begin: float, stop: float) -> None:
        self.begin, self.stop = begin, stop  # the window, on the generator's clock
        self.latencies: list[float] = []
        self.when: list[float] = []
        self.ramp_latencies: list[float] = []
        self.failures: Counter[str] = Counter()
        self.terminations: Counter[str] = Counter()
        self.time_losses = 0
        self.connected = 0

    def moved(self, latency: float, now: float) -> None:
        """A bot's ``moved`` for its own move came ``latency`` seconds after it sent it."""
        if self.begin <= now <= self.stop:
            self.latencies.append(latency)
            self.when.append(now - self.begin)
        elif now < self.begin:
            self.ramp_latencies.append(latency)

    def ended(self, message: dict[str, Any], seat: int) -> None:
        """A bot in ``seat`` was told its game's ``end``."""
        termination = message.get("termination", "?")
        self.terminations[termination] += 1
        if termination == "timeout" and seat not in message.get("winners", []):
            self.time_losses += 1

    def result(self) -> dict[str, Any]:
        return {
            "latencies": self.latencies,
            "when": self.when,
            "ramp_latencies": self.ramp_latencies,
            "failures": dict(self.failures),
            "terminations": dict(self.terminations),
            "time_losses": self.time_losses,
            "connected": self.connected,
        }


async def generator(spec: dict[str, Any]) -> dict[str, Any]:
    """Play ``spec["pairs"]`` pairs of bots until the window closes, measuring inside it."""
    offset = time.time() - trio.current_time()  # wall clock = trio clock + offset
    begin, stop = spec["begin"] - offset, spec["stop"] - offset
    start = spec["start"] - offset
    tally = Tally(begin, stop)
    failures = tally.failures
    think = spec["think"]

    async def bot(index: int, port: int, at: float) -> None:
        rng = random.Random(spec["seed"] * 1_000_003 + index)
        await trio.sleep_until(at)
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
        except OSError as error:
            failures[f"connect: {error.strerror or error}"] += 1
            return
        tally.connected += 1
        lines = Lines(stream)
        hello = {"type": "hello", "name": f"b{index}", "game": "connect4", "opponent": "any"}
        try:
            await lines.receive()  # welcome
            while trio.current_time() < stop:
                await lines.send(hello)
                seat = -1
                sent: tuple[str, float] | None = None
                while True:
                    message = await lines.receive()
                    kind = message.get("type")
                    if kind == "turn":
                        await trio.sleep(think * rng.uniform(0.5, 1.5))
                        move = rng.choice(message["legal"])
                        sent = (move, time.monotonic())
                        await lines.send({"move": move})
                    elif kind == "moved":
                        if sent is not None and message["seat"] == seat:
                            tally.moved(time.monotonic() - sent[1], trio.current_time())
                            sent = None
                    elif kind == "start":
                        seat = message["seat"]
                    elif kind == "end":
                        tally.ended(message, seat)
                        break
                    elif kind == "error":
                        failures[f"server error: {message.get('error')}"] += 1
                        return
        except (EOFError, OSError, trio.BrokenResourceError) as error:
            if trio.current_time() < stop:
                failures[f"{type(error).__name__}: {error}"] += 1
        finally:
            await stream.aclose()

    with trio.move_on_at(stop):
        async with trio.open_nursery() as nursery:
            for pair, (at, port) in enumerate(zip(spec["offsets"], spec["ports"], strict=True)):
                for side in (0, 1):
                    index = spec["first"] + 2 * pair + side
                    nursery.start_soon(bot, index, port, start + at)
    return tally.result()


class LeanBot:
    """One bot of `lean_generator`: its socket, what it has read and where its game is."""

    __slots__ = ("buffer", "index", "outgoing", "rng", "seat", "sent", "sock")

    def __init__(self, index: int, sock: socket.socket, rng: random.Random) -> None:
        self.index = index
        self.sock = sock
        self.rng = rng
        self.buffer = b""
        self.outgoing = b""
        self.seat = -1
        self.sent = 0.0  # when our last move was sent (0: none awaiting its moved)


def lean_generator(spec: dict[str, Any]) -> dict[str, Any]:
    """`generator`'s bots on one `selectors` loop with no framework: the same hellos, thinks,
    moves and measurements, at a fraction of trio's CPU per message (sockets stay registered;
    no task switches). On two cores shared with the server, what the generator spends is taken
    from the server; bots on other machines would cost it nothing."""
    clock = time.monotonic
    offset = time.time() - clock()  # wall clock = monotonic + offset
    begin, stop, start = (spec[key] - offset for key in ("begin", "stop", "start"))
    think = spec["think"]
    tally = Tally(begin, stop)
    failures = tally.failures
    selector = selectors.DefaultSelector()
    timers: list[tuple[float, int, str, Any]] = []  # (when, tie, what, whom)
    ties = itertools.count()
    hello_of: dict[int, bytes] = {}

    for pair, (at, port) in enumerate(zip(spec["offsets"], spec["ports"], strict=True)):
        for side in (0, 1):
            index = spec["first"] + 2 * pair + side
            heapq.heappush(timers, (start + at, next(ties), "connect", (index, port)))

    def send(bot: LeanBot, data: bytes) -> None:
        if not bot.outgoing:
            try:
                done = bot.sock.send(data)
            except BlockingIOError:
                done = 0
            data = data[done:]
            if not data:
                return
            selector.modify(bot.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, bot)
        bot.outgoing += data

    def drop(bot: LeanBot, why: str | None) -> None:
        if why is not None and clock() < stop:
            failures[why] += 1
        selector.unregister(bot.sock)
        bot.sock.close()

    def line(bot: LeanBot, raw: bytes) -> bool:
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "turn":
            delay = think * bot.rng.uniform(0.5, 1.5)
            heapq.heappush(timers, (clock() + delay, next(ties), "move", (bot, message["legal"])))
        elif kind == "moved":
            if bot.sent and message["seat"] == bot.seat:
                now = clock()
                tally.moved(now - bot.sent, now)
                bot.sent = 0.0
        elif kind == "start":
            bot.seat = message["seat"]
        elif kind == "end":
            tally.ended(message, bot.seat)
            if clock() < stop:
                bot.seat, bot.sent = -1, 0.0
                send(bot, hello_of[bot.index])
        elif kind == "error":
            drop(bot, f"server error: {message.get('error')}")
            return False
        elif kind == "welcome":
            send(bot, hello_of[bot.index])
        return True

    while True:
        now = clock()
        if now >= stop:
            break
        while timers and timers[0][0] <= now:
            _at, _tie, what, whom = heapq.heappop(timers)
            if what == "move":
                bot, legal = whom
                if bot.sock.fileno() < 0:
                    continue
                bot.sent = clock()
                send(bot, b'{"move":' + json.dumps(bot.rng.choice(legal)).encode() + b"}\n")
                continue
            index, port = whom
            sock = socket.socket()
            sock.setblocking(False)
            error = sock.connect_ex(("127.0.0.1", port))
            if error not in (0, errno.EINPROGRESS):
                failures[f"connect: {os.strerror(error)}"] += 1
                sock.close()
                continue
            bot = LeanBot(index, sock, random.Random(spec["seed"] * 1_000_003 + index))
            hello = {"type": "hello", "name": f"b{index}", "game": "connect4", "opponent": "any"}
            hello_of[index] = json.dumps(hello, separators=(",", ":")).encode() + b"\n"
            tally.connected += 1
            selector.register(sock, selectors.EVENT_READ, bot)
        timeout = min(timers[0][0] if timers else stop, stop) - clock()
        for key, events in selector.select(max(0.0, timeout)):
            bot = key.data
            if events & selectors.EVENT_WRITE:
                try:
                    done = bot.sock.send(bot.outgoing)
                except BlockingIOError:
                    done = 0
                except OSError as error:
                    drop(bot, f"{type(error).__name__}: {error}")
                    continue
                bot.outgoing = bot.outgoing[done:]
                if not bot.outgoing:
                    selector.modify(bot.sock, selectors.EVENT_READ, bot)
            if not events & selectors.EVENT_READ:
                continue
            try:
                data = bot.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError as error:
                drop(bot, f"{type(error).__name__}: {error}")
                continue
            if not data:
                drop(bot, "EOFError: the server closed the connection")
                continue
            *complete, bot.buffer = (bot.buffer + data).split(b"\n")
            for raw in complete:
                if not line(bot, raw):
                    break
    for key in list(selector.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]
    return tally.result()


def generator_main(spec: dict[str, Any]) -> None:
    shared.raise_nofile()
    os.nice(spec.get("nice", 0))
    if spec.get("kind", "lean") == "lean":
        result = lean_generator(spec)
    else:
        result = trio.run(generator, spec)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["cpu"] = usage.ru_utime + usage.ru_stime
    json.dump(result, sys.stdout)


# -- the bench process ----------------------------------------------------------------------


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.send_signal(signal.SIGINT)  # a second signal adjourns what still runs
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def run(options: argparse.Namespace, serve: str, games: int) -> dict[str, Any]:
    """One scenario: ``games`` concurrent games on ``options.servers`` server processes."""
    with tempfile.TemporaryDirectory() as scratch:
        db = options.db or str(Path(scratch) / "games.db")
        limits = ["--max-connections", str(2 * games + 512), "--max-per-address", "0"]
        if serve == "all":
            argv = [str(BIN / "hub"), "serve", "--drain", "5"]
        else:
            argv = [str(BIN / "hub"), "serve", "connect4"]
        argv += ["--port", "0", "--db", db, *limits]
        servers = []
        try:
            for index in range(options.servers):
                servers.append(shared.start_server(argv, Path(scratch) / f"server{index}.err"))
            ports = [port for _server, port in servers]
            pids = [server.pid for server, _port in servers]
            offsets = ramp_offsets(games, options.ramp)
            start = time.time() + 1.0
            begin = start + options.ramp + SETTLE_SECONDS
            stop = begin + options.seconds
            generators = []
            share = -(-games // options.clients)
            for index in range(options.clients):
                first_pair = index * share
                chunk = range(first_pair, min(games, first_pair + share))
                spec = {
                    "offsets": [offsets[pair] for pair in chunk],
                    "ports": [ports[pair % len(ports)] for pair in chunk],
                    "first": 2 * first_pair,
                    "start": start,
                    "begin": begin,
                    "stop": stop,
                    "think": options.think,
                    "seed": options.seed,
                    "nice": options.generator_nice,
                    "kind": options.generator_kind,
                }
                generators.append(
                    subprocess.Popen(
                        [sys.executable, __file__, "--generator"],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                    )
                )
                assert generators[-1].stdin is not None
                generators[-1].stdin.write(json.dumps(spec).encode())
                generators[-1].stdin.close()
            time.sleep(max(0.0, begin - time.time()))
            load0 = shared.load()
            cpu0 = [shared.cpu_seconds(pid) for pid in pids]
            wait0 = [shared.run_queue_wait(pid) for pid in pids]
            time.sleep(max(0.0, stop - time.time()))
            cpu1 = [shared.cpu_seconds(pid) for pid in pids]
            wait1 = [shared.run_queue_wait(pid) for pid in pids]
            memory = [shared.proc_memory(pid) for pid in pids]
            load1 = shared.load()
            outputs = [generator.stdout.read() for generator in generators if generator.stdout]
            for generator in generators:
                generator.wait(120)
            alive = all(server.poll() is None for server, _port in servers)
        finally:
            for server, _port in servers:
                stop_server(server)
    results = [json.loads(output) for output in outputs]
    latencies = [value for result in results for value in result["latencies"]]
    worst: dict[int, float] = {}
    for result in results:
        for at, latency in zip(result["when"], result["latencies"], strict=True):
            worst[int(at)] = max(worst.get(int(at), 0.0), latency)
    failures: Counter[str] = Counter()
    terminations: Counter[str] = Counter()
    for result in results:
        failures.update(result["failures"])
        terminations.update(result["terminations"])
    seconds = options.seconds
    server_cpu = sum(cpu1) - sum(cpu0)
    return {
        "name": f"{'hub serve' if serve == 'all' else 'hub serve connect4'}"
        f" x{options.servers}, {games:,} games",
        "load": (load0, load1),
        "alive": alive,
        "bots connected": sum(result["connected"] for result in results),
        "moves": len(latencies),
        "moves/s": len(latencies) / seconds,
        "latency": summary_ms(latencies) if latencies else None,
        "ramp latency": summary_ms(
            [value for result in results for value in result["ramp_latencies"]] or [0.0]
        ),
        "seconds of the window whose worst move took over 50 ms": sorted(
            second for second, latency in worst.items() if latency > 0.05
        ),
        "server CPU %": [100 * (b - a) / seconds for a, b in zip(cpu0, cpu1, strict=True)],
        "server waited for a CPU %": [
            100 * (b - a) / seconds for a, b in zip(wait0, wait1, strict=True)
        ],
        "server CPU per move µs": 1e6 * server_cpu / max(1, len(latencies)),
        "VmRSS / VmHWM MiB": [(m["VmRSS"] / 1024, m["VmHWM"] / 1024) for m in memory],
        "generator CPU s": [round(result["cpu"], 1) for result in results],
        "generator": f"{options.generator_kind}, nice {options.generator_nice}",
        "failures": dict(failures),
        "time losses": sum(result["time_losses"] for result in results),
        "game ends seen by the bots (two a game)": dict(terminations),
    }


def report(summary: dict[str, Any]) -> None:
    print(f"\n== {summary['name']}", flush=True)
    for key, value in summary.items():
        if key == "name":
            continue
        shown = value
        if isinstance(value, float):
            shown = f"{value:.1f}"
        elif isinstance(value, tuple | list) and value and isinstance(value[0], float):
            shown = " / ".join(f"{v:.1f}" for v in value)
        elif isinstance(value, list) and value and isinstance(value[0], tuple):
            shown = ", ".join(" / ".join(f"{v:.0f}" for v in pair) for pair in value)
        elif isinstance(value, tuple):
            shown = " -> ".join(map(str, value))
        print(f"  {key:<40} {shown}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="1000", help="games at once, comma-separated (1000)")
    parser.add_argument("--serve", default="all", help="all (every game), connect4, or both")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window (30)")
    parser.add_argument("--ramp", type=float, default=20.0, help="seconds to connect (20)")
    parser.add_argument("--clients", type=int, default=2, help="load generator processes (2)")
    parser.add_argument("--servers", type=int, default=1, help="server processes (1)")
    parser.add_argument("--db", help="the records database (default: a fresh SQLite file)")
    parser.add_argument("--think", type=float, default=1.0, help="a bot's mean think (1 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--generator-nice",
        type=int,
        default=0,
        help="niceness of the load generators (0); e.g. 10 stands for clients on other "
        "machines: the server then has the CPUs first, and the generators' own waits for a "
        "CPU count in the latency they measure",
    )
    parser.add_argument(
        "--generator-kind",
        choices=("lean", "trio"),
        default="lean",
        help="the load generators' loop: lean (selectors, the default: the least CPU taken "
        "from the server) or trio (a task per bot, the bench's first generator)",
    )
    parser.add_argument("--generator", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.generator:
        generator_main(json.load(sys.stdin))
        return
    if options.servers > 1 and not (options.db or "").startswith("postgresql://"):
        parser.error("--servers above 1 needs a shared PostgreSQL database (--db postgresql://)")
    shared.raise_nofile()
    when = time.strftime("%F %H:%M UTC", time.gmtime())
    print(f"{shared.machine()}; load average {shared.load()}; {when}")
    serves = ["all", "connect4"] if options.serve == "both" else options.serve.split(",")
    failed = False
    for games in [int(n) for n in options.games.split(",")]:
        for serve in serves:
            summary = run(options, serve, games)
            report(summary)
            failed |= not summary["alive"] or bool(summary["failures"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
