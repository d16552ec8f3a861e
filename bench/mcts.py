#!/usr/bin/env python3
"""The general game player's speed (issue 28): ``.venv/bin/python bench/mcts.py [--quick]``.

1. **Playouts per second** of `hub.core.play.mcts.choose` (one search of a fixed number of
   playouts, tree included, from the start and from a position 8 plies in): Connect Four
   6x7 on its rules alone; Kalah 6x4 with its cheap playout (`Search.playout`, random
   sowings on one list) and on its rules alone (every whole turn listed at every ply);
   clubs with 4 players, information-set MCTS from a seat's view (a fresh sample per
   iteration, whole games to 20 played out). Median of ``--repeat`` runs (3), each in
   this process, per second of wall time and per second of the process's CPU time.
2. **A time budget kept**: the wall time of a search given 50 ms and 500 ms (no playout
   limit) against the budget, Connect Four from the start: the worst of ``--repeat``.

Asserts nothing about speed; takes about 40 s (``--quick``: about 10 s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import shared  # noqa: E402

from hub.core.play.game import Search  # noqa: E402
from hub.core.play.mcts import Budget, choose, choose_from_view  # noqa: E402
from hub.games.clubs.game import ClubsGame  # noqa: E402
from hub.games.connect4 import ConnectFour  # noqa: E402
from hub.games.kalah.game import KalahGame  # noqa: E402


def advanced(game: Any, plies: int, seed: int = 1) -> Any:
    rng = random.Random(seed)
    state = game.start(rng)
    for _ in range(plies):
        state = game.apply(state, rng.choice(list(game.legal_moves(state))))
    return state


def rate(search: Callable[[int], object], playouts: int, repeat: int) -> tuple[float, float]:
    """Playouts per second of wall time and of this process's CPU time: the medians over
    ``repeat`` searches of ``playouts`` (on a loaded machine the CPU figure is the steadier)."""
    wall, cpu = [], []
    for run in range(repeat):
        began, used = time.perf_counter(), time.process_time()
        search(run)
        wall.append(playouts / (time.perf_counter() - began))
        cpu.append(playouts / max(1e-9, time.process_time() - used))
    return statistics.median(wall), statistics.median(cpu)


def perfect(game: Any, state: Any, playouts: int, search: Search | None) -> Callable[[int], object]:
    return lambda seed: choose(game, state, random.Random(seed), Budget(playouts), search=search)


def hidden(game: Any, state: Any, playouts: int) -> Callable[[int], object]:
    seat = game.to_move(state)
    view = game.view(state, seat)
    sample = type(game).search.sample
    return lambda seed: choose_from_view(
        game, view, seat, sample, random.Random(seed), Budget(playouts)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer playouts, one run each")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each search (3)")
    options = parser.parse_args()
    repeat = 1 if options.quick else options.repeat
    scale = 4 if options.quick else 1
    print(shared.machine())
    print(f"load: {shared.load()}")
    print()
    connect4, kalah, clubs = ConnectFour(), KalahGame(), ClubsGame(seats=4)
    rows: list[tuple[str, str, int, Callable[[int], object]]] = []
    for where, plies in (("start", 0), ("8 plies in", 8)):
        n = 4000 // scale
        rows.append(
            ("Connect Four 6x7", where, n, perfect(connect4, advanced(connect4, plies), n, None))
        )
    for where, plies in (("start", 0), ("8 turns in", 8)):
        state = advanced(kalah, plies)
        n = 4000 // scale
        rows.append(
            ("Kalah 6x4, its playout", where, n, perfect(kalah, state, n, KalahGame.search))
        )
        n = 400 // scale
        rows.append(("Kalah 6x4, rules only", where, n, perfect(kalah, state, n, None)))
    for where, plies in (("start", 0), ("8 cards in", 8)):
        n = 400 // scale
        rows.append(
            ("clubs, 4 players, from a view", where, n, hidden(clubs, advanced(clubs, plies), n))
        )
    print("### Playouts per second (median of", repeat, "runs)")
    print()
    print("| game | position | playouts a search | playouts/s (wall) | playouts/CPU-s |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, where, n, search in rows:
        wall, cpu = rate(search, n, repeat)
        print(f"| {name} | {where} | {n} | {wall:,.0f} | {cpu:,.0f} |", flush=True)
    print()
    print("### A time budget kept (Connect Four from the start, worst of", repeat, "runs)")
    print()
    print("| budget | wall time |")
    print("| ---: | ---: |")
    start = connect4.start(random.Random(0))
    for seconds in (0.05, 0.5):
        worst = 0.0
        for run in range(repeat):
            began = time.perf_counter()
            choose(connect4, start, random.Random(run), Budget(seconds=seconds))
            worst = max(worst, time.perf_counter() - began)
        print(f"| {seconds * 1000:.0f} ms | {worst * 1000:.1f} ms |", flush=True)
    print()
    print(f"load: {shared.load()}")


if __name__ == "__main__":
    main()
