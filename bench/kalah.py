"""Kalah benchmarks, measured side by side in one run (about two minutes; --quick: ~30 s).

1. AI search speed: nodes per second and depth reached in a fixed time, from set positions,
   the pure-Python search (before) beside the C search (after); 1b. the top level as first
   player against every level on Kalah(6,4); 1c. time losses at 100 ms a move, quiet and
   beside a CPU spinner.
2. Match results: AI levels against each other and against the greedy baseline, with the
   pie rule on, on seeded random layouts, each layout played twice with sides swapped.
3. Perfect play: the share of the AI's moves that an exhaustive solver rates optimal, from
   positions of random games on small boards.
4. Load: concurrent games the server sustains at 100 ms per move (a ``hub serve kalah``
   child process with the level-9 AI; instant random clients in this process): games
   finished, the server's losses on time, and its reply latency.
5. Referee overhead: the same server with the level-1 AI (a one-turn search, well under a
   millisecond) and no time limit, so that what is measured is the server's own work per
   move (the game loop, the protocol, the worker-thread hop): moves per second and replies.

Usage: .venv/bin/python bench/kalah.py [--quick]
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from hub.core.io.lines import LineStream
from hub.games.kalah.ai import LEVEL_DEPTH, LEVEL_NODES, NATIVE, KalahSearch, greedy
from hub.games.kalah.protocol import format_move, parse_info, parse_move
from hub.games.kalah.rules import (
    KalahState,
    Move,
    legal_moves,
    new_game,
    outcome,
    play,
    random_layout,
)
from hub.games.kalah.solver import Solver

QUICK = "--quick" in sys.argv[1:]


def positions(holes: int, seeds: int, count: int, seed: int) -> list[KalahState]:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_game(holes, seeds)
        for _ in range(rng.randint(2, 8)):
            if state.over:
                break
            state = play(state, rng.choice(legal_moves(state)))
        if not state.over:
            found.append(state)
    return found


def bench_speed() -> None:
    seconds = 0.5 if QUICK else 1.0
    print(f"== 1. search speed ({seconds:g} s budget per position, level 9, fresh table)")
    print("   before: the pure-Python search (the fallback); after: the C search, the same")
    print("   moves (tests/kalah/test_ai_strength.py); nodes per second of wall and of CPU time")
    if not NATIVE:
        print("   (the C search is not built here: pip install -e . builds it)")
    print(
        f"{'board':>6} {'search':>7} {'nodes/s':>9} {'cpu n/s':>9} {'depth':>6} {'nodes':>9}"
        f" {'x':>5}"
    )
    for holes, seeds in ((6, 4), (6, 6), (9, 10)):
        before = 0.0
        for native in (False, True) if NATIVE else (False,):
            rates, cpu_rates, depths, counts = [], [], [], []
            for state in positions(holes, seeds, 3 if QUICK else 5, holes * seeds):
                cpu = time.process_time()
                result = KalahSearch(holes, state.total, native=native).run(state, budget=seconds)
                cpu = time.process_time() - cpu
                rates.append(result.nodes / result.elapsed)
                cpu_rates.append(result.nodes / max(cpu, 1e-6))
                depths.append(result.depth)
                counts.append(result.nodes)
            rate = statistics.mean(rates)
            before = before or rate
            print(
                f"{holes}x{seeds:<4} {'C' if native else 'Python':>7} {rate:>9.0f}"
                f" {statistics.mean(cpu_rates):>9.0f} {statistics.mean(depths):>6.1f}"
                f" {statistics.mean(counts):>9.0f} {rate / before:>5.1f}"
            )


def bench_top_level() -> None:
    nodes = 300_000
    print(f"\n== 1b. Kalah(6,4), pie rule off: level 9 first ({nodes} nodes a turn) against")
    print("   every level second (its depth, the same nodes); the solved value is +8")
    print(f"{'second':>7} {'margin':>7} {'won':>4}")
    for low in range(1, 10):
        state = new_game(6, 4)
        searches = (KalahSearch(6, state.total), KalahSearch(6, state.total))
        depths = (LEVEL_DEPTH[9], LEVEL_DEPTH[low])
        while not state.over:
            mover = state.mover or 0
            move = searches[mover].run(state, max_depth=depths[mover], max_nodes=nodes).move
            state = play(state, move)
        margin = state.store(0) - state.store(1)
        print(f"{'ai:' + str(low):>7} {margin:>+7} {'yes' if margin > 0 else 'NO':>4}")


def bench_clock() -> None:
    """``hub match kalah ai:9 ai:9 --time-ms 100`` quiet and beside a CPU spinner: time
    losses (the goal is none) and the games' wall time."""
    games = 4 if QUICK else 10
    print(f"\n== 1c. keeping to the clock: hub match kalah ai:9 ai:9 --time-ms 100, {games} games")
    print(f"{'beside':>12} {'games':>6} {'time losses':>12} {'wall s':>7}")
    hub = str(Path(sys.executable).parent / "hub")
    match = [hub, "match", "kalah", "ai:9", "ai:9", "--time-ms", "100"]
    for spinners in (0, 1):
        spinning = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(spinners)
        ]
        try:
            started = time.perf_counter()
            done = subprocess.run(
                [*match, "--games", str(games), "--no-record", "--json"],
                capture_output=True,
                text=True,
                check=True,
            )
            wall = time.perf_counter() - started
        finally:
            for spinner in spinning:
                spinner.kill()
                spinner.wait()
        report = json.loads(done.stdout)
        losses = sum(row["timeouts"] for row in report["standings"])
        beside = "a spinner" if spinners else "nothing"
        print(f"{beside:>12} {report['scored']:>6} {losses:>12} {wall:>7.1f}")


def ai_move(state: KalahState, level: int, budget: float) -> Move:
    if level == 0:
        return greedy(state)
    search = KalahSearch(state.holes, state.total)
    nodes = LEVEL_NODES.get(level)
    return search.run(state, budget=budget, max_depth=LEVEL_DEPTH[level], max_nodes=nodes).move


def match(a: int, b: int, games: int, budget: float) -> tuple[float, float]:
    """Score of ``a`` against ``b`` (win 1, tie 0.5) and the mean seed margin for ``a``."""
    points = 0.0
    margins = []
    rng = random.Random(a * 100 + b)
    layout = random_layout(6, 4, rng)
    for game in range(games):
        if game and game % 2 == 0:
            layout = random_layout(6, 4, rng)
        state = new_game(6, 4, pie=True, layout=layout)
        seat_of_a = game % 2  # sides alternate on each layout
        while not state.over:
            level = a if state.mover == seat_of_a else b
            state = play(state, ai_move(state, level, budget))
        result = outcome(state)
        assert result is not None
        points += 1.0 if result.winners == {seat_of_a} else 0.5 if len(result.winners) == 2 else 0
        margins.append(result.scores[seat_of_a] - result.scores[1 - seat_of_a])
    return points / games, statistics.mean(margins)


def bench_matches() -> None:
    games = 6 if QUICK else 12
    budget = 0.02 if QUICK else 0.03
    print(f"\n== 2. matches: 6x4, pie rule, {games} games per pairing on seeded random layouts,")
    print(f"   sides alternating, {budget * 1000:g} ms per turn (level 0 = greedy baseline)")
    print(f"{'pairing':>14} {'score':>7} {'margin':>7} {'seconds':>8}")
    for a, b in ((1, 0), (3, 0), (5, 0), (9, 0), (5, 3), (9, 5)):
        started = time.perf_counter()
        score, margin = match(a, b, games, budget)
        took = time.perf_counter() - started
        print(f"{f'L{a} vs L{b}':>14} {score:>7.0%} {margin:>+7.1f} {took:>8.1f}")


def bench_optimal() -> None:
    count = 40 if QUICK else 120
    print(f"\n== 3. optimal moves against an exhaustive solver ({count} positions, 4x3/5x2/6x3,")
    print("   at most 12 seeds left in the holes; 20 ms per turn)")
    rng = random.Random(3)
    solver = Solver()
    states: list[KalahState] = []
    configs = [(4, 3), (5, 2), (6, 3)]
    while len(states) < count:
        holes, seeds = configs[len(states) % 3]
        state = new_game(holes, seeds, pie=rng.random() < 0.5)
        while not state.over and sum(state.side(0)) + sum(state.side(1)) > 12:
            state = play(state, rng.choice(legal_moves(state)))
        if not state.over and len(legal_moves(state)) > 1:
            states.append(state)
    print(f"{'player':>8} {'optimal':>8} {'seeds lost/move':>16}")
    for level in (0, 1, 3, 5, 9):
        best = 0
        lost = 0
        for state in states:
            values = solver.move_values(state)
            got = values[ai_move(state, level, 0.02)]
            best += got == max(values.values())
            lost += max(values.values()) - got
        name = "greedy" if level == 0 else f"L{level}"
        print(f"{name:>8} {best / len(states):>8.0%} {lost / len(states):>16.2f}")


def _server_won(state: KalahState, me: int) -> float:
    return float(state.store(1 - me) > state.store(me))


async def _localhost(port: int) -> trio.abc.Stream:
    return await trio.open_tcp_stream("localhost", port)


async def _finish(lines: LineStream, line: str, stats: dict[str, list[float]]) -> None:
    """After ``TIME``: the next result says who was late (``LOSER``: this client)."""
    while line not in ("WINNER", "LOSER", "TIE"):
        line = await lines.receive_line()  # a late move may come before the result
    stats["client_late" if line == "LOSER" else "server_late"].append(1)


async def _load_client(
    port: int,
    rng: random.Random,
    stats: dict[str, list[float]],
    open_stream: Callable[[int], Awaitable[trio.abc.Stream]] = _localhost,
) -> None:
    """One random client for one game: ``latency`` from its ``OK`` to the opponent's move,
    ``ok`` from its move to the server's ``OK``; who ran out of time, if anyone."""
    stream = await open_stream(port)
    async with stream:
        lines = LineStream(stream, stream)
        await lines.receive_line()  # WELCOME
        info = parse_info(await lines.receive_line())
        await lines.send_line("READY")
        state = new_game(info.holes, info.seeds, pie=False)
        me = 0 if info.first else 1
        await lines.receive_line()  # BEGIN
        waiting_since = trio.current_time()
        while True:
            if state.mover == me:
                move = rng.choice(legal_moves(state))
                sent = trio.current_time()
                await lines.send_line(format_move(move))
                line = await lines.receive_line()
                if line == "TIME":
                    await _finish(lines, line, stats)
                    return
                stats["ok"].append(trio.current_time() - sent)
                state = play(state, move)
                waiting_since = trio.current_time()
                if state.over:
                    stats["results"].append(_server_won(state, me))
                    return
                continue
            line = await lines.receive_line()
            if line == "TIME":
                await _finish(lines, line, stats)
                return
            if line in ("WINNER", "LOSER", "TIE"):
                stats["results"].append(float(line == "LOSER"))
                return
            stats["latency"].append(trio.current_time() - waiting_since)
            state = play(state, parse_move(line, info.holes))
            await lines.send_line("OK")
            if state.over:
                await lines.receive_line()
                stats["results"].append(_server_won(state, me))
                return
            waiting_since = trio.current_time()


async def _load(
    concurrency: int, games: int, level: int = 9, time_ms: int = 100
) -> dict[str, list[float]]:
    hub = str(Path(sys.executable).parent / "hub")
    # Every client comes from 127.0.0.1: lift the per-address cap (default 128; 400 clients
    # once died with PeerClosed at WELCOME) and allow every connection the bench makes.
    options = [
        "--time-ms",
        str(time_ms),
        "--level",
        str(level),
        "--max-connections",
        "1000",
        "--max-per-address",
        "0",
    ]
    process = subprocess.Popen(
        [hub, "serve", "kalah", *options],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        port = int(process.stderr.readline())
        began = time.perf_counter()
        stats: dict[str, list[float]] = {
            "results": [],
            "server_late": [],
            "client_late": [],
            "latency": [],
            "ok": [],
        }
        rng = random.Random(concurrency)
        limiter = trio.Semaphore(concurrency)

        async def one() -> None:
            async with limiter:
                await _load_client(port, rng, stats)

        async with trio.open_nursery() as nursery:
            for _ in range(games):
                nursery.start_soon(one)
        stats["wall"] = [time.perf_counter() - began]  # once the server listens
        return stats
    finally:
        process.kill()
        process.communicate()


def bench_load() -> None:
    print("\n== 4. server load: 6x4, 100 ms per move, level-9 AI, random clients")
    print(
        f"{'games at once':>14} {'games':>6} {'wall s':>7} {'late':>5} {'AI won':>7}"
        f" {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
    )
    for concurrency in (1, 10, 50) if QUICK else (1, 10, 50, 100, 200, 400):
        games = max(2, concurrency)
        started = time.perf_counter()
        stats = trio.run(_load, concurrency, games)
        wall = time.perf_counter() - started
        latency = sorted(stats["latency"]) or [0.0]
        p50 = latency[len(latency) // 2] * 1000
        p99 = latency[min(len(latency) - 1, int(len(latency) * 0.99))] * 1000
        won = sum(stats["results"]) / max(1, len(stats["results"]))
        print(
            f"{concurrency:>14}"
            f" {len(stats['results']) + len(stats['server_late']) + len(stats['client_late']):>6}"
            f" {wall:>7.1f} {len(stats['server_late']):>5} {won:>7.0%} {p50:>7.0f} {p99:>7.0f}"
            f" {latency[-1] * 1000:>7.0f}"
        )


def bench_overhead() -> None:
    print("\n== 5. referee overhead: 6x4, no time limit, level-1 AI (one-turn search), random")
    print("   clients; the server's own work per move (wall: from the port's announcement)")
    print(
        f"{'games at once':>14} {'games':>6} {'moves':>6} {'wall s':>7}"
        f" {'moves/s':>8} {'p50 ms':>7}"
    )
    for concurrency in (1, 50) if QUICK else (1, 50, 200):
        games = 20 if concurrency == 1 else 2 * concurrency
        stats = trio.run(_load, concurrency, games, 1, 0)
        (wall,) = stats["wall"]
        latency = sorted(stats["latency"]) or [0.0]
        moves = len(stats["latency"])
        print(
            f"{concurrency:>14} {len(stats['results']):>6} {moves:>6} {wall:>7.2f}"
            f" {moves / wall:>8.0f} {latency[len(latency) // 2] * 1000:>7.1f}"
        )


def main() -> None:
    bench_speed()
    bench_top_level()
    bench_clock()
    bench_matches()
    bench_optimal()
    bench_load()
    bench_overhead()


if __name__ == "__main__":
    main()
