#!/usr/bin/env python3
"""``hub match`` against fastchess, side by side: the same Stockfish on both sides, the same
openings, time control and concurrency; games per second, time losses and the hub's own time
per move. Usage: ``FASTCHESS=/tmp/fastchess/fastchess .venv/bin/python bench/fastchess.py
[--quick] [--runs N] [--tc TC:GAMES ...]`` (about 1 minute per run with the defaults).

fastchess (https://github.com/Disservin/fastchess) is the measuring stick, never a
dependency: build it yourself and name the binary in $FASTCHESS (default
/tmp/fastchess/fastchess)::

    git clone https://github.com/Disservin/fastchess /tmp/fastchess
    make -C /tmp/fastchess -j2          # a few minutes; makes /tmp/fastchess/fastchess

Without it (or without Stockfish, $STOCKFISH, default /usr/games/stockfish) the bench says
so and does nothing, as bench/instructions.py does without valgrind.

For each time control (default ``1+0.01`` with 20 games and ``0.3+0.003`` with 40) and each
run, the two tools play one after the other:

* ``hub match chess SF SF --tc TC --concurrency 2 --games N --opening-file EPD --openings
  N/2 --max-plies 300 --db TMP --json``, where SF is ``STOCKFISH?Threads=1&Hash=16``; the
  games are recorded (in a temporary database), as a user's would be;
* ``fastchess -engine cmd=SF name=sf1 -engine cmd=SF name=sf2 -each tc=TC option.Threads=1
  option.Hash=16 -openings file=EPD format=epd order=sequential -rounds N/2 -repeat
  -concurrency 2 -maxmoves 150 -pgnout file=TMP latency=true``.

EPD is written by the bench: the first N/2 of the hub's built-in balanced lines
(hub/games/chess/openings.py) as positions, so both tools play exactly the same N/2 openings,
each twice with the colours swapped (the hub in its own shuffled order, fastchess in file
order). The ply cap is the same (300 plies, a draw).

Measured: each command's wall time from spawn to exit (start-up included: the hub's
interpreter and its workers, fastchess's engines) and games per second from it; time losses
and other faults (the hub's ``--json`` standings; fastchess's PGN ``Termination`` tags); the
hub's own time per move, from reading an engine's ``bestmove`` to writing the opponent's
``go`` (`hub.chess.engine_client.TurnTimer`, switched on by $HUB_UCI_LATENCY for the hub's
run only), and the figure fastchess reports as latency (per move: the time it measured from
``go`` to ``bestmove`` less the time the engine reported in its last ``info``, in ms: the
pipes, the engine's own overhead and fastchess's reading). Nothing is asserted; results
are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
# bench/chess.py would shadow python-chess: this directory goes last on the path
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import chess  # noqa: E402
from shared import load, machine  # noqa: E402

from hub.games.chess.openings import OPENINGS  # noqa: E402

DEFAULT_FASTCHESS = "/tmp/fastchess/fastchess"
DEFAULT_STOCKFISH = "/usr/games/stockfish"
DEFAULT_PLAN = ("1+0.01:20", "0.3+0.003:40")
OPTIONS = {"Threads": "1", "Hash": "16"}
MAX_PLIES = 300


def write_epd(path: Path, count: int) -> int:
    """The first ``count`` built-in openings (all, cycled, if more) as EPD lines; how many."""
    lines = []
    for name, moves in OPENINGS[: min(count, len(OPENINGS))]:
        board = chess.Board()
        for move in moves.split():
            board.push_uci(move)
        lines.append(board.epd(id=name))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(f"bench/fastchess.py: {command[0]} exited {done.returncode}")
    return seconds, done.stdout


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    return {
        "n": len(ordered),
        "median": statistics.median(ordered),
        "p90": at(0.9),
        "p99": at(0.99),
        "max": ordered[-1],
    }


def run_hub(tc: str, games: int, openings: int, epd: Path, work: Path, sf: str) -> dict[str, Any]:
    spec = f"{sf}?" + "&".join(f"{name}={value}" for name, value in OPTIONS.items())
    latency = work / "hub-latency.txt"
    latency.unlink(missing_ok=True)
    env = dict(os.environ, HUB_UCI_LATENCY=str(latency))
    env.pop("HUB_DB", None)
    command = [
        str(Path(sys.executable).parent / "hub"),
        "match",
        "chess",
        spec,
        spec,
        "--tc",
        tc,
        "--concurrency",
        "2",
        "--games",
        str(games),
        "--opening-file",
        str(epd),
        "--openings",
        str(openings),
        "--max-plies",
        str(MAX_PLIES),
        "--db",
        str(work / f"hub-{time.monotonic_ns()}.db"),
        "--json",
    ]
    seconds, stdout = timed(command, env, work)
    report = json.loads(stdout)
    standings = report["standings"]
    samples: list[list[float]] = [[], []]
    if latency.exists():
        for line in latency.read_text().splitlines():
            before, after = line.split()
            samples[0].append(int(before) / 1000)
            samples[1].append(int(after) / 1000)
    return {
        "seconds": seconds,
        "match_seconds": report["seconds"],
        "games": report["scored"],
        "aborted": len(report["aborted"]),
        "time_losses": sum(line["timeouts"] for line in standings),
        "other_faults": sum(line["illegal"] + line["crashes"] for line in standings),
        "own_us": percentiles(samples[1]),
        "own_before_write_us": percentiles(samples[0]),
    }


TERMINATION = re.compile(r'^\[Termination "([^"]*)"\]', re.M)
LATENCY = re.compile(r"latency=(-?[\d.]+)(ms|s)")


def run_fastchess(
    binary: str, tc: str, games: int, epd: Path, work: Path, sf: str
) -> dict[str, Any]:
    pgn = work / f"fastchess-{time.monotonic_ns()}.pgn"
    options = [f"option.{name}={value}" for name, value in OPTIONS.items()]
    command = [
        binary,
        "-engine",
        f"cmd={sf}",
        "name=sf1",
        "-engine",
        f"cmd={sf}",
        "name=sf2",
        "-each",
        f"tc={tc}",
        *options,
        "-openings",
        f"file={epd}",
        "format=epd",
        "order=sequential",
        "-rounds",
        str(games // 2),
        "-repeat",
        "-concurrency",
        "2",
        "-maxmoves",
        str(MAX_PLIES // 2),
        "-ratinginterval",
        "0",
        "-pgnout",
        f"file={pgn}",
        "latency=true",
    ]
    seconds, _stdout = timed(command, dict(os.environ), work)
    text = pgn.read_text(encoding="utf-8", errors="replace") if pgn.exists() else ""
    terminations = TERMINATION.findall(text)
    latency = [float(value) * (1000 if unit == "s" else 1) for value, unit in LATENCY.findall(text)]
    return {
        "seconds": seconds,
        "games": len(terminations),
        "aborted": 0,
        "time_losses": sum(t == "time forfeit" for t in terminations),
        "other_faults": sum(
            t not in ("normal", "adjudication", "time forfeit") for t in terminations
        ),
        "latency_ms": percentiles(latency),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each tool per TC (1)")
    parser.add_argument("--quick", action="store_true", help="0.3+0.003 only, 20 games")
    parser.add_argument(
        "--tc", action="append", metavar="TC:GAMES", help=f"default {' and '.join(DEFAULT_PLAN)}"
    )
    args = parser.parse_args()
    binary = os.environ.get("FASTCHESS", DEFAULT_FASTCHESS)
    sf = os.environ.get("STOCKFISH", DEFAULT_STOCKFISH)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"no fastchess at {binary} (set FASTCHESS; see this script's docstring): skipped")
        return 0
    if shutil.which(sf) is None:
        print(f"no Stockfish at {sf} (set STOCKFISH): skipped")
        return 0
    plan = args.tc or (["0.3+0.003:20"] if args.quick else list(DEFAULT_PLAN))
    print(f"hub match against fastchess: {machine()}")
    print(f"Stockfish {sf} {' '.join(f'{k}={v}' for k, v in OPTIONS.items())}, concurrency 2")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hub-fastchess-") as tmp:
        work = Path(tmp)
        for item in plan:
            tc, _, count = item.partition(":")
            games = int(count or 20)
            epd = work / "openings.epd"
            openings = write_epd(epd, games // 2)
            for run in range(1, args.runs + 1):
                before = load()
                hub = run_hub(tc, games, openings, epd, work, sf)
                middle = load()
                fast = run_fastchess(binary, tc, games, epd, work, sf)
                after = load()
                rows.append((tc, run, hub, fast, f"{before} / {middle} / {after}"))
                own, mine = hub["own_us"], hub["own_before_write_us"]
                lat = fast["latency_ms"]
                print(
                    f"{tc} run {run}: hub {hub['games']} games in {hub['seconds']:.2f} s "
                    f"({hub['games'] / hub['seconds']:.2f}/s; match {hub['match_seconds']:.2f} s), "
                    f"{hub['time_losses']} time losses; fastchess {fast['games']} in "
                    f"{fast['seconds']:.2f} s ({fast['games'] / fast['seconds']:.2f}/s), "
                    f"{fast['time_losses']} time losses; hub's own time per move median "
                    f"{mine.get('median', float('nan')):.0f} us to the write, "
                    f"{own.get('median', float('nan')):.0f} us with it "
                    f"(n={own.get('n', 0)}); fastchess latency median "
                    f"{lat.get('median', float('nan')):.1f} ms; load {before} / {middle} / {after}",
                    flush=True,
                )
    print()
    print(
        "| TC | run | tool | games | wall s | games/s | time losses | other faults "
        "| hub's own time per move (median / p90 / p99 / max), fastchess's latency "
        "| load avg before / between / after |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---|---|")
    for tc, run, hub, fast, loads in rows:
        own, mine = hub["own_us"], hub["own_before_write_us"]
        own_text = (
            f"{mine['median']:.0f} / {mine['p90']:.0f} / {mine['p99']:.0f} / {mine['max']:.0f} "
            f"µs to the write; {own['median']:.0f} / {own['p90']:.0f} / {own['p99']:.0f} / "
            f"{own['max']:.0f} µs with it (n={own['n']})"
            if own
            else "-"
        )
        lat = fast["latency_ms"]
        lat_text = (
            f"latency {lat['median']:g} / {lat['p90']:g} / {lat['p99']:g} / {lat['max']:g} ms"
            if lat
            else "-"
        )
        for name, data, text in (("hub match", hub, own_text), ("fastchess", fast, lat_text)):
            print(
                f"| {tc} | {run} | {name} | {data['games']} | {data['seconds']:.2f} "
                f"| {data['games'] / data['seconds']:.2f} | {data['time_losses']} "
                f"| {data['other_faults'] + data['aborted']} | {text} | {loads} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
