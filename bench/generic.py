#!/usr/bin/env python3
"""The games on the generic path (the game declaration) against the hand-written tree they
replaced, side by side in one run (issue 17):
``.venv/bin/python bench/generic.py --baseline PATH [--rounds N | --quick]``.

``--baseline PATH`` names a checkout of the hand-written tree, e.g. ``git worktree add
/tmp/base17 3e45cc2`` (the commit before "kalah: the game declaration"). Both trees run in
fresh processes of this interpreter with ``PYTHONPATH`` on the tree (bench/shared.py's
``tree_env``; the players and servers they start inherit it). Each round measures, for each
tree in turn (the tree that goes first alternates from round to round, so that a drift of
the machine's load falls on both):

1. **Kalah server**: ``hub serve kalah --level 1 --time-ms T`` for 200 whole games from 50
   random clients at once (bench/kalah_server_cpu.py's clients, the level-1 AI, a one-turn
   search, so that the server's own work shows), T = 0 (untimed) and T = 1000 (a timed AI
   seat): moves per second (wall time from the port's announcement) and the server's CPU per
   move. Each server records its games, as by default, into a fresh database of its own;
2. **clubs**: the wall time of a whole ``clubhub`` 4-player game to 50 on decks/ex.decks with
   four ``clubber`` players (each tree's own programs), ``--clubs`` games per tree a round;
3. **UQChess**: ``uqchessserver``'s CPU per human move, 200 human-against-human games from
   100 clients at once (bench/uqchess_server_cpu.py's clients; needs Stockfish, which the
   server starts and no game asks).

``--instructions`` counts instead, with valgrind (Debian's package of that name), the
instructions each server executes per move: the difference between a run of 20 and one of
120 games (10 and 60 for UQChess) over the difference in moves, so that start-up cancels
out. That holds only if both runs start alike: a first, uncounted run of each server on each
tree writes the bytecode caches (bench/shared.py's ``PYCACHE``) that both counted runs then
read (without it, the short run, which comes first, also compiled every module it imported:
hundreds of millions of instructions that came off the difference and made a count per move
too small, even negative); and ``PYTHONHASHSEED`` is fixed, so that set orders repeat. The
count is the same whatever the machine's load (it leaves out the kernel's work and what
waiting costs); bench/instructions.py counts ``clubhub``'s and ``clubber``'s the same way.
It takes about 4 minutes on a quiet machine, 7 under a load of 8.

Every figure is a cost (a rate is turned into time per move), and each round gives a paired
ratio generic/hand-written for it; printed: the median of each tree's figures, the median of
the paired ratios and a distribution-free interval for it (order statistics of the paired
ratios, by the sign test: at least 90% confidence where the rounds allow it). A ratio over
1.05 is the generic path costing more than 5% more. No number is asserted; a failed game
fails the script. The default (10 rounds) takes about 5 minutes on a loaded 2-core
machine, ``--quick`` (2 rounds) about a minute.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
# bench/chess.py would shadow python-chess: this folder goes last on sys.path
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import kalah_server_cpu  # noqa: E402
import uqchess_server_cpu  # noqa: E402
from shared import ROOT, Served, load, machine, tree_env  # noqa: E402

NAMES = ("hand-written", "generic")
DECK = ROOT / "decks" / "ex.decks"
KALAH_GAMES = 200


def clubs_game(tree: Path) -> float:
    """Wall seconds of one whole ``clubhub`` 4-player game to 50 (start-up included)."""
    bin_dir = Path(sys.executable).parent
    argv = [str(bin_dir / "clubhub"), str(DECK), "50", *[str(bin_dir / "clubber")] * 4]
    began = time.perf_counter()
    done = subprocess.run(argv, env=tree_env(tree), cwd="/", capture_output=True, check=False)
    wall = time.perf_counter() - began
    if done.returncode != 0 or b"Winner(s): " not in done.stdout:
        raise SystemExit(f"bench/generic.py: clubhub of {tree} failed: {done.stderr!r}")
    return wall


def kalah(time_ms: int) -> Callable[[Path], dict[str, float]]:
    def measure(tree: Path) -> dict[str, float]:
        done = kalah_server_cpu.served(tree, time_ms, KALAH_GAMES)
        return {
            f"kalah{time_ms}_wall": done.wall / done.moves * 1e6,
            f"kalah{time_ms}_cpu": done.cpu / done.moves * 1e6,
        }

    return measure


def clubs(games: int) -> Callable[[Path], dict[str, float]]:
    def measure(tree: Path) -> dict[str, float]:
        return {"clubs_wall": statistics.median(clubs_game(tree) * 1000 for _ in range(games))}

    return measure


def uqchess(tree: Path) -> dict[str, float]:
    return {"uqchess_cpu": uqchess_server_cpu.measure(tree)}


ROWS: list[tuple[str, str, Callable[[float], str]]] = [
    *[
        row
        for time_ms, limit in ((0, "no time limit"), (1000, "1000 ms per move"))
        for row in (
            (
                f"kalah{time_ms}_wall",
                f"Kalah server, {limit}: moves/s (shown as a rate; the ratio is of time per move)",
                lambda us: f"{1e6 / us:.0f}",
            ),
            (
                f"kalah{time_ms}_cpu",
                f"Kalah server, {limit}: server CPU per move, µs",
                lambda us: f"{us:.0f}",
            ),
        )
    ],
    ("clubs_wall", "clubs: whole `clubhub` 4-player game to 50, wall ms", lambda ms: f"{ms:.0f}"),
    ("uqchess_cpu", "UQChess: server CPU per human move, µs", lambda us: f"{us:.0f}"),
]


VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def counted(run: Callable[[list[str]], Served]) -> tuple[int, int]:
    """(moves, instructions) of one server run under valgrind."""
    with tempfile.TemporaryDirectory() as logs:
        log = Path(logs) / "valgrind.log"
        done = run([*VALGRIND, f"--log-file={log}"])
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
    if found is None:
        raise SystemExit(f"bench/generic.py: no instruction count in valgrind's log of {run}")
    return done.moves, int(found[1].replace(",", ""))


def instructions(trees: dict[str, Path]) -> None:
    """Instructions per move of each server, each tree, in one table."""
    servers: dict[str, Callable[[Path, int, list[str]], Served]] = {
        "Kalah server, no time limit": lambda tree, games, under: kalah_server_cpu.served(
            tree, 0, games, under
        ),
        "UQChess server, human against human": lambda tree, games, under: uqchess_server_cpu.served(
            tree, games // 2, under
        ),
    }
    # The same string hashes in every run (set and dict orders, hence the work, repeat);
    # tree_env copies this process's environment into every server's.
    os.environ["PYTHONHASHSEED"] = "0"
    for tree in trees.values():  # warm-up, not counted: see the docstring
        for server in servers.values():
            server(tree, 2, [])
    print(f"{machine()}; load average {load()}; thousands of instructions per move (valgrind)\n")
    print("| server | " + " | ".join(trees) + " | generic/hand-written |")
    print("|---|---:|---:|---:|")
    for label, server in servers.items():
        per_move = []
        for tree in trees.values():
            (moves, few), (more_moves, many) = (
                counted(partial(server, tree, games)) for games in (20, 120)
            )
            per_move.append((many - few) / (more_moves - moves) / 1000)
        cells = " | ".join(f"{value:.0f}" for value in per_move)
        print(f"| {label} | {cells} | {per_move[1] / per_move[0]:.3f} |")


def sign_interval(ratios: list[float], confidence: float = 0.9) -> tuple[float, float, float]:
    """A distribution-free interval for the median of ``ratios``: the k-th smallest and the
    k-th largest, for the largest k whose coverage (by the binomial distribution of how many
    fall below the median) is at least ``confidence``; with too few ratios for that, the
    smallest and the largest. Returns (low, high, coverage)."""
    ordered = sorted(ratios)
    n = len(ordered)

    def coverage(k: int) -> float:  # P(k-th smallest <= median <= k-th largest)
        return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n

    k = 1
    while k + 1 <= n // 2 and coverage(k + 1) >= confidence:
        k += 1
    return ordered[k - 1], ordered[n - k], coverage(k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="the hand-written tree")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default: 10)")
    parser.add_argument("--clubs", type=int, default=3, help="clubs games per tree a round")
    parser.add_argument("--quick", action="store_true", help="2 rounds (about a minute)")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions per move (valgrind)"
    )
    options = parser.parse_args()
    if options.baseline is None:  # (make bench runs every script without arguments)
        print("bench/generic.py: nothing to compare without --baseline PATH, a checkout of the")
        print("hand-written tree (git worktree add /tmp/base17 3e45cc2)")
        return
    rounds = options.rounds or (2 if options.quick else 10)
    trees = dict(zip(NAMES, (options.baseline.resolve(), ROOT), strict=True))
    if options.instructions:
        instructions(trees)
        return
    measures = [kalah(0), kalah(1000), clubs(options.clubs), uqchess]
    began, load_before = time.perf_counter(), load()
    for tree in trees.values():  # warm-up: bytecode caches, first-use costs; not counted
        clubs_game(tree)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in NAMES}
    for number in range(rounds):
        order = NAMES if number % 2 == 0 else NAMES[::-1]
        figures: dict[str, dict[str, float]] = {name: {} for name in NAMES}
        for measure in measures:
            for name in order:
                figures[name].update(measure(trees[name]))
        for name in NAMES:
            runs[name].append(figures[name])
        print(f"round {number + 1}/{rounds} done, load {load()}", file=sys.stderr)
    took = time.perf_counter() - began
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"{machine()}; {now}; {rounds} rounds in {took:.0f} s; load average {load_before} "
        f"before, {load()} after\n`{' '.join([Path(sys.executable).name, *sys.argv])}`\n"
    )
    print(
        "| figure | hand-written (median) | generic (median) | generic/hand-written, "
        "median of paired ratios | interval |"
    )
    print("|---|---:|---:|---:|---|")
    for key, label, shown in ROWS:
        before = [run[key] for run in runs[NAMES[0]]]
        after = [run[key] for run in runs[NAMES[1]]]
        ratios = [b / a for a, b in zip(before, after, strict=True)]
        low, high, covered = sign_interval(ratios)
        print(
            f"| {label} | {shown(statistics.median(before))} | {shown(statistics.median(after))}"
            f" | {statistics.median(ratios):.3f} | {low:.3f}-{high:.3f} ({covered:.0%}) |"
        )
    for key, _, _ in ROWS:
        print(
            f"<!-- {key}: "
            + "; ".join(
                f"{name} " + " ".join(f"{run[key]:.0f}" for run in runs[name]) for name in NAMES
            )
            + " -->"
        )


if __name__ == "__main__":
    main()
