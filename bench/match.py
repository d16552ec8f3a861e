"""``hub match`` throughput: games per second at 10 ms per move, K = 1, K = 2 and on Ray.

The same match (same openings, same players) is run three times, side by side:

1. in-process, one game at a time (the default);
2. ``--concurrency 2``: two worker processes speaking JSON lines;
3. ``--cluster ray``: a private local Ray with 2 CPUs, two tasks at a time (Ray's start-up
   and shutdown are timed separately; they are paid once per match).

The game is Kalah (``ai:9`` against ``ai:9``, ``--time-ms 10``, random layouts) when its match
kit is installed, else the tic-tac-toe example with ``busy:10`` players (10 ms of CPU per
move); the output says which. Every finished game is counted (none recorded). Results are in
docs/performance.md.

Worker processes and Ray tasks include their start-up (loading hub and the kit, about a
second on a loaded 2-core machine) in their time; Ray's own cluster start is shown apart.

Usage: .venv/bin/python bench/match.py [--quick] [--games N] [--tictactoe]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tic-tac-toe fallback lives in tests/examples
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

from shared import machine  # noqa: E402

from hub.core.play.kit import TournamentKit  # noqa: E402
from hub.tournament.runner import Backend, InProcess, TournamentRunner, WorkerPool  # noqa: E402
from hub.tournament.schedule import make_schedule, rounds_for  # noqa: E402
from hub.tournament.worker import KitError, load_kit  # noqa: E402

TICTACTOE = "tests.examples.tictactoe_kit:kit"


def choose_game(tictactoe: bool) -> tuple[str, TournamentKit, list[str], list[str]]:
    """(kit reference, kit, players, the game's options): Kalah if it has a match kit."""
    if not tictactoe:
        try:
            return "kalah", load_kit("kalah"), ["ai:9", "ai:9"], ["--time-ms", "10", "--random"]
        except KitError:
            pass
    return TICTACTOE, load_kit(TICTACTOE), ["busy:10", "busy:10"], ["--time-ms", "1000"]


def run(backend: Backend, plan: Any) -> tuple[float, int, int]:
    """Seconds, games scored and games aborted of one match on ``backend``."""
    runner = TournamentRunner(plan, backend)
    started = time.perf_counter()
    trio.run(runner.run)
    seconds = time.perf_counter() - started
    return seconds, runner.report.tally.games, len(runner.report.aborted)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games (40)")
    parser.add_argument("--games", type=int, default=None, help="games per run (default 200)")
    parser.add_argument(
        "--tictactoe", action="store_true", help="the tic-tac-toe example even if Kalah is there"
    )
    args = parser.parse_args()
    games = args.games or (40 if args.quick else 200)
    ref, kit, players, game_options = choose_game(args.tictactoe)
    kit_parser = argparse.ArgumentParser()
    kit.add_options(kit_parser)
    settings = kit.settings(kit_parser.parse_args(game_options))
    plan = make_schedule(
        match_id="bench",
        game=ref,
        players=players,
        settings=settings,
        games=games,
        seed=1,
        openings=kit.openings(settings, rounds_for(games, len(players)), 1),
    )
    print(f"hub match throughput: {ref}, {' vs '.join(players)} {' '.join(game_options)}")
    print(f"machine: {machine()}; {games} games per run")
    rows: list[tuple[str, float, int, int]] = []
    seconds, scored, aborted = run(InProcess(kit), plan)
    rows.append(("K=1 in-process", seconds, scored, aborted))
    seconds, scored, aborted = run(WorkerPool(ref, 2), plan)
    rows.append(("K=2 worker processes", seconds, scored, aborted))
    note = ""
    try:
        from hub.tournament.ray_backend import RayBackend

        ray = RayBackend(ref, slots=2)
        started = time.perf_counter()
        ray.start()
        start_up = time.perf_counter() - started
        try:
            seconds, scored, aborted = run(ray, plan)
        finally:
            started = time.perf_counter()
            ray.stop()
            shutdown = time.perf_counter() - started
        rows.append(("K=2 Ray (local, 2 CPUs)", seconds, scored, aborted))
        note = f"Ray start-up {start_up:.1f} s and shutdown {shutdown:.1f} s, once per match"
    except ImportError:
        note = "Ray is not installed (pip install 'hub[cluster]'): no Ray run"
    print(f"{'backend':<26}{'games':>6}{'aborted':>9}{'seconds':>9}{'games/s':>9}")
    for name, seconds, scored, aborted in rows:
        print(f"{name:<26}{scored:>6}{aborted:>9}{seconds:>9.2f}{scored / seconds:>9.2f}")
    print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
