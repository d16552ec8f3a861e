#!/usr/bin/env python3
"""``hub match`` against fastchess, side by side in one run: the same Stockfish on both sides,
the same openings, time control, concurrency and number of games, played on a quiet machine
and again beside a CPU spinner; plies per second, games per second and time losses of each.
Usage: ``.venv/bin/python bench/fastchess.py [--fastchess PATH] [--runs N] [--tc TC:GAMES ...]
[--spinners N] [--conditions quiet,spin] [--settle S] [--max-plies N] [--keep DIR] [--quick]``
(about 15 minutes with the defaults on a quiet 2-core machine, more on a busy one).

fastchess (https://github.com/Disservin/fastchess) is the measuring stick, never a
dependency: build it yourself, outside this repository, and name the binary with
``--fastchess PATH`` or $FASTCHESS (default: ``fastchess`` on $PATH, else
/tmp/fastchess/fastchess)::

    git clone https://github.com/Disservin/fastchess /tmp/fastchess
    make -C /tmp/fastchess -j2     # 2-15 minutes on 2 cores; makes /tmp/fastchess/fastchess

Without it (or without Stockfish, ``--stockfish`` or $STOCKFISH, default
/usr/games/stockfish) the bench says so and does nothing, as bench/instructions.py does
without valgrind.

For each run, each time control (default ``1+0.01`` with 60 games and ``0.3+0.003`` with
40) and each condition (``quiet``, then ``spin``: ``--spinners N`` busy processes, default
one in all, started before the pair and stopped after it), the two tools play one after the
other, the order alternating from one pair to the next and from one run to the next (so with
an even ``--runs`` every configuration has each tool first equally often). Before each pair
the bench waits (``--settle S``, at most 60 s) for a second in which the machine's CPUs were
nearly idle: the machine may be shared.

* ``hub match chess SF SF --tc TC --concurrency 2 --games N --opening-file EPD --openings
  N/2 --max-plies P --db TMP --json``, where SF is ``STOCKFISH?Threads=1&Hash=16``; the
  games are recorded (in a temporary database), as a user's would be;
* ``fastchess -engine cmd=SF name=sf1 -engine cmd=SF name=sf2 -each tc=TC option.Threads=1
  option.Hash=16 -openings file=EPD format=epd order=sequential -rounds N/2 -repeat
  -concurrency 2 -maxmoves 150 -ratinginterval 0 -pgnout file=TMP latency=true``.

EPD is written by the bench: the first N/2 of the hub's built-in balanced lines
(hub/games/chess/openings.py) as positions, so both tools play exactly the same N/2 openings,
each twice with the colours swapped (the hub in its own shuffled order, fastchess in file
order). The ply cap is the same, P plies from the EPD position (``--max-plies``, default
100: fastchess's ``-maxmoves P/2``), after which the game is a draw by adjudication in
both. The cap is what lets one run decide: Stockfish spends the most time on a game's first
moves, so plies per second follows the lengths of the games played, and uncapped (P = 300,
the earlier runs of docs/performance.md) one tool's 30-game runs scatter by 7% from its
own game lengths alone; capped, nearly every game is P plies long in both tools and a run
repeats within about 1%, so what is left to compare is the referees.

Measured, per tool and pair: the command's wall time from spawn to exit (start-up included:
the hub's interpreter and its workers, fastchess's engines); the plies of every game, counted
by the same PGN reader for both (bench/pgn_plies.py: the hub's games exported with ``hub
games export --format pgn`` after the timed run, fastchess's from its ``-pgnout``), and plies
per second = all plies / wall time (games vary too much in length for games per second to
compare runs); time losses and other faults (the hub's ``--json`` standings; fastchess's PGN
``Termination`` tags); the CPU time of the tool's whole process tree (engines included); the
CPUs the spinners got, and those that other people's work took meanwhile (the machine's
busy time from /proc/stat less the tool's and the spinners'); the load average before,
between and after. Also the hub's own time per move, from reading an engine's ``bestmove``
to writing the opponent's ``go`` (`hub.chess.engine_client.TurnTimer`, switched on by
$HUB_UCI_LATENCY for the hub's run only). Nothing is asserted; results are in
docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
# bench/chess.py would shadow python-chess: this directory goes last on the path
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import chess  # noqa: E402
from pgn_plies import read_games, total_plies  # noqa: E402
from shared import TICK, cpu_seconds, load, machine, tree_env  # noqa: E402

from hub.games.chess.openings import OPENINGS  # noqa: E402

DEFAULT_STOCKFISH = "/usr/games/stockfish"
DEFAULT_PLAN = ("1+0.01:60", "0.3+0.003:40")
OPTIONS = {"Threads": "1", "Hash": "16"}
MAX_PLIES = 100
SPIN = """
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(1_000_000):
        pass
"""
"""A spinner: a busy loop that ends by itself soon after the bench does."""
STOP_WAIT = 10.0
"""Seconds a tool has to end its games after SIGTERM when the bench is stopped."""


def find_fastchess(given: str | None) -> str | None:
    """The fastchess binary: ``given``, else $FASTCHESS, else ``fastchess`` on $PATH, else
    /tmp/fastchess/fastchess; None when that is not an executable file."""
    path = given or os.environ.get("FASTCHESS") or shutil.which("fastchess")
    path = path or "/tmp/fastchess/fastchess"
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def write_epd(path: Path, count: int) -> int:
    """The first ``count`` built-in openings (at most all of them) as EPD lines; how many."""
    lines = []
    for name, moves in OPENINGS[: min(count, len(OPENINGS))]:
        board = chess.Board()
        for move in moves.split():
            board.push_uci(move)
        lines.append(board.epd(id=name))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


class Timed(NamedTuple):
    """A finished command: its wall seconds, the CPU seconds (user + system) of it and every
    process it started and reaped (the engines, the hub's workers), the CPU seconds the
    whole machine was busy meanwhile (whoever used them), its output."""

    seconds: float
    cpu: float
    busy: float
    stdout: str


def busy_seconds() -> float:
    """The CPU seconds all the machine's CPUs have been busy so far (/proc/stat's ``cpu``
    line: user, nice, system, irq and softirq; guest time is already in user, and steal is
    the hypervisor's)."""
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:7]) - fields[3] - fields[4]) / TICK


def settle(limit: float, threshold: float = 0.3) -> tuple[float, float]:
    """Wait, at most ``limit`` seconds, for a second in which the machine's CPUs were busy
    less than ``threshold`` CPUs in all (someone else's work ending); the seconds waited and
    the CPUs busy in the last second."""
    started = time.perf_counter()
    while True:
        before = busy_seconds()
        time.sleep(1.0)
        busy = busy_seconds() - before
        waited = time.perf_counter() - started
        if busy < threshold or waited >= limit:
            return waited, busy


def timed(command: list[str], env: dict[str, str], cwd: Path) -> Timed:
    """Run ``command`` to its end."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = busy_seconds()
    started = time.perf_counter()
    with subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:  # the bench stopped (SIGTERM, Ctrl-C): let the tool clean up
            process.terminate()
            try:
                process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    seconds = time.perf_counter() - started
    busy = busy_seconds() - busy
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        sys.stderr.write(stderr[-4000:])
        raise SystemExit(f"bench/fastchess.py: {command[0]} exited {process.returncode}")
    cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return Timed(seconds, cpu, busy, stdout)


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    return {"n": len(ordered), "median": statistics.median(ordered), "p90": at(0.9)}


def run_hub(
    tc: str, games: int, openings: int, epd: Path, work: Path, sf: str, max_plies: int
) -> dict[str, Any]:
    spec = f"{sf}?" + "&".join(f"{name}={value}" for name, value in OPTIONS.items())
    latency = work / "hub-latency.txt"
    latency.unlink(missing_ok=True)
    db = work / f"hub-{time.monotonic_ns()}.db"
    env = dict(tree_env(ROOT), HUB_UCI_LATENCY=str(latency))
    hub = str(Path(sys.executable).parent / "hub")
    command = [
        *(hub, "match", "chess", spec, spec, "--tc", tc, "--concurrency", "2"),
        *("--games", str(games), "--opening-file", str(epd), "--openings", str(openings)),
        *("--max-plies", str(max_plies), "--db", str(db), "--json"),
    ]
    run = timed(command, env, work)
    report = json.loads(run.stdout)
    standings = report["standings"]
    pgn = timed([hub, "games", "export", "--format", "pgn", "--db", str(db)], env, work).stdout
    played = read_games(pgn)
    own: list[float] = []
    if latency.exists():
        own = [int(line.split()[1]) / 1000 for line in latency.read_text().splitlines()]
    return {
        "seconds": run.seconds,
        "cpu": run.cpu,
        "busy": run.busy,
        "match_seconds": report["seconds"],
        "games": report["scored"],
        "plies": total_plies(played),
        "aborted": len(report["aborted"]),
        "time_losses": sum(line["timeouts"] for line in standings),
        "other_faults": sum(line["illegal"] + line["crashes"] for line in standings),
        "own_us": percentiles(own),
    }


def run_fastchess(
    binary: str, tc: str, games: int, epd: Path, work: Path, sf: str, max_plies: int
) -> dict[str, Any]:
    pgn = work / f"fastchess-{time.monotonic_ns()}.pgn"
    options = [f"option.{name}={value}" for name, value in OPTIONS.items()]
    command = [
        *(binary, "-engine", f"cmd={sf}", "name=sf1", "-engine", f"cmd={sf}", "name=sf2"),
        *("-each", f"tc={tc}", *options),
        *("-openings", f"file={epd}", "format=epd", "order=sequential"),
        *("-rounds", str(games // 2), "-repeat", "-concurrency", "2"),
        *("-maxmoves", str(max_plies // 2), "-ratinginterval", "0"),
        *("-pgnout", f"file={pgn}", "latency=true"),
    ]
    run = timed(command, dict(os.environ), work)
    played = read_games(pgn.read_text(encoding="utf-8", errors="replace"))
    terminations = [game.tags.get("Termination", "") for game in played]
    return {
        "seconds": run.seconds,
        "cpu": run.cpu,
        "busy": run.busy,
        "games": len(played),
        "plies": total_plies(played),
        "aborted": 0,
        "time_losses": terminations.count("time forfeit"),
        "other_faults": sum(
            t not in ("normal", "adjudication", "time forfeit") for t in terminations
        ),
    }


class Spinners:
    """``count`` busy processes (each a Python loop, ``nice`` 0) for the length of a
    ``with``; ``share`` is then the CPUs they got on average (1.0: one whole CPU)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.share = 0.0
        self._procs: list[subprocess.Popen[bytes]] = []
        self._started = 0.0

    def __enter__(self) -> Spinners:
        self._procs = [
            subprocess.Popen([sys.executable, "-S", "-c", SPIN]) for _ in range(self.count)
        ]
        self._started = time.perf_counter()
        return self

    def cpu(self) -> float:
        """The CPU seconds the spinners have had so far."""
        return sum(cpu_seconds(proc.pid) for proc in self._procs)

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self._started
        self.share = self.cpu() / wall if wall > 0 else 0.0
        for proc in self._procs:
            proc.kill()
            proc.wait()


def rate(data: dict[str, Any]) -> float:
    """Plies per second of wall time."""
    return float(data["plies"] / data["seconds"])


def others(data: dict[str, Any]) -> float:
    """The CPUs that processes neither of the tool nor of the spinners kept busy on average
    during the tool's run (other people's work; also any process the tool failed to reap)."""
    return float(data["others"] / data["seconds"])


def spread(values: list[float]) -> str:
    """``median (min-max)`` of ``values``, or the one value."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def stopped(signum: int, _frame: object) -> None:
    """SIGTERM: unwind, so the running tool is stopped and the spinners and the temporary
    directory go."""
    raise SystemExit(128 + signum)


def main() -> int:
    parser = argparse.ArgumentParser(
        description="hub match against fastchess, side by side: plies per second and time "
        "losses of each, quiet and beside a CPU spinner (see this script's docstring)"
    )
    parser.add_argument("--fastchess", metavar="PATH", help="the fastchess binary")
    parser.add_argument("--stockfish", metavar="PATH", help=f"default {DEFAULT_STOCKFISH}")
    parser.add_argument("--runs", type=int, default=2, help="pairs of each configuration (2)")
    parser.add_argument("--spinners", type=int, default=1, help="busy processes in 'spin' (1)")
    parser.add_argument(
        "--conditions", default="quiet,spin", help="quiet, spin or both (quiet,spin)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=60.0,
        metavar="S",
        help="before each pair, wait up to S seconds for a second with the CPUs idle (60)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep the games (hub's databases, fastchess's PGN files) in DIR",
    )
    parser.add_argument("--quick", action="store_true", help="0.3+0.003 only, 10 games, 1 run")
    parser.add_argument(
        "--max-plies",
        type=int,
        default=MAX_PLIES,
        metavar="N",
        help=f"a game is a draw after N plies from its opening, in both tools (even; {MAX_PLIES})",
    )
    parser.add_argument(
        "--tc", action="append", metavar="TC:GAMES", help=f"default {' and '.join(DEFAULT_PLAN)}"
    )
    args = parser.parse_args()
    if args.max_plies < 2 or args.max_plies % 2:
        parser.error("--max-plies: an even number of plies, 2 or more (fastchess counts moves)")
    signal.signal(signal.SIGTERM, stopped)
    binary = find_fastchess(args.fastchess)
    sf = args.stockfish or os.environ.get("STOCKFISH", DEFAULT_STOCKFISH)
    if binary is None:
        print(
            "no fastchess binary (--fastchess PATH, $FASTCHESS, fastchess on $PATH or "
            "/tmp/fastchess/fastchess; see this script's docstring to build one): skipped"
        )
        return 0
    if shutil.which(sf) is None:
        print(f"no Stockfish at {sf} (--stockfish or $STOCKFISH): skipped")
        return 0
    plan = args.tc or (["0.3+0.003:10"] if args.quick else list(DEFAULT_PLAN))
    runs = 1 if args.quick else args.runs
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    print(f"hub match against fastchess: {machine()}, {platform.platform()}")
    print(f"fastchess {binary}; Stockfish {sf} " + " ".join(f"{k}={v}" for k, v in OPTIONS.items()))
    print(f"concurrency 2; 'spin': {args.spinners} busy process(es) in all; load {load()}")
    print(f"games capped at {args.max_plies} plies from the opening (a draw) in both tools")
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if args.keep is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hub-fastchess-")))
        else:
            work = args.keep
            work.mkdir(parents=True, exist_ok=True)
        for run in range(1, runs + 1):
            position = 0
            for item in plan:
                tc, _, count = item.partition(":")
                games = int(count or 20)
                epd = work / "openings.epd"
                openings = write_epd(epd, games // 2)
                for condition in conditions:
                    # each configuration alternates from run to run, neighbours within a run
                    hub_first = (run + position) % 2 == 1
                    position += 1
                    waited, idle = settle(args.settle)
                    spinners = Spinners(args.spinners if condition == "spin" else 0)
                    loads = [load()]
                    results: dict[str, dict[str, Any]] = {}
                    with spinners:
                        for tool in ("hub", "fastchess") if hub_first else ("fastchess", "hub"):
                            spun = spinners.cpu()
                            if tool == "hub":
                                result = run_hub(tc, games, openings, epd, work, sf, args.max_plies)
                            else:
                                result = run_fastchess(
                                    binary, tc, games, epd, work, sf, args.max_plies
                                )
                            result["spin"] = spinners.cpu() - spun
                            result["others"] = result["busy"] - result["cpu"] - result["spin"]
                            results[tool] = result
                            loads.append(load())
                    row = {
                        "tc": tc,
                        "condition": condition,
                        "run": run,
                        "first": "hub" if hub_first else "fastchess",
                        "spin_share": spinners.share,
                        "settled": f"{waited:.0f} s, {idle:.2f}",
                        "loads": " / ".join(text.split()[0] for text in loads),
                        **results,
                    }
                    rows.append(row)
                    hub, fast = results["hub"], results["fastchess"]
                    own = hub["own_us"]
                    print(
                        f"{tc} {condition} run {run} ({row['first']} first): hub "
                        f"{hub['games']} games, {hub['plies']} plies in {hub['seconds']:.2f} s "
                        f"({rate(hub):.1f} plies/s, match {hub['match_seconds']:.2f} s), "
                        f"{hub['time_losses']} time losses; fastchess {fast['games']} games, "
                        f"{fast['plies']} plies in {fast['seconds']:.2f} s ({rate(fast):.1f} "
                        f"plies/s), {fast['time_losses']} time losses; hub/fastchess "
                        f"{rate(hub) / rate(fast):.2f}; hub's own time per move median "
                        f"{own.get('median', float('nan')):.0f} us; spinners "
                        f"{spinners.share:.2f} CPU; others' CPUs {others(hub):.2f} (hub), "
                        f"{others(fast):.2f} (fastchess); settled {row['settled']}; "
                        f"load {row['loads']}",
                        flush=True,
                    )
    print_tables(rows)
    return 0


def print_tables(rows: list[dict[str, Any]]) -> None:
    print()
    print(
        "| TC | load | run | first | tool | games | plies | wall s | plies/s | games/s "
        "| tool CPU s | spinner CPUs | others' CPUs | time losses | other faults "
        "| idle wait, CPUs busy before | load avg (1 min) |"
    )
    print("|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for row in rows:
        for tool in ("hub", "fastchess"):
            data = row[tool]
            print(
                f"| {row['tc']} | {row['condition']} | {row['run']} | {row['first']} | {tool} "
                f"| {data['games']} | {data['plies']} | {data['seconds']:.2f} | {rate(data):.1f} "
                f"| {data['games'] / data['seconds']:.2f} | {data['cpu']:.1f} "
                f"| {data['spin'] / data['seconds']:.2f} | {others(data):.2f} "
                f"| {data['time_losses']} | {data['other_faults'] + data['aborted']} "
                f"| {row['settled']} | {row['loads']} |"
            )
    print()
    print(
        "| TC | load | pairs | hub plies/s | fastchess plies/s | hub/fastchess "
        "| time losses hub / fastchess | games each |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    keys = dict.fromkeys((row["tc"], row["condition"]) for row in rows)
    for tc, condition in keys:
        group = [row for row in rows if (row["tc"], row["condition"]) == (tc, condition)]
        hub = [rate(row["hub"]) for row in group]
        fast = [rate(row["fastchess"]) for row in group]
        ratios = [h / f for h, f in zip(hub, fast, strict=True)]
        losses = (
            sum(row["hub"]["time_losses"] for row in group),
            sum(row["fastchess"]["time_losses"] for row in group),
        )
        games = sorted(
            {row["hub"]["games"] for row in group} | {row["fastchess"]["games"] for row in group}
        )
        print(
            f"| {tc} | {condition} | {len(group)} | {spread(hub)} | {spread(fast)} "
            f"| {spread(ratios)} | {losses[0]} / {losses[1]} | {', '.join(map(str, games))} |"
        )
    print()
    print(
        "Pooled (all of a configuration's plies over all its seconds, each tool):\n\n"
        "| TC | load | hub plies / s | fastchess plies / s | hub/fastchess |\n"
        "|---|---|---:|---:|---:|"
    )
    for tc, condition in keys:
        group = [row for row in rows if (row["tc"], row["condition"]) == (tc, condition)]
        pooled = {
            tool: (
                sum(row[tool]["plies"] for row in group),
                sum(row[tool]["seconds"] for row in group),
            )
            for tool in ("hub", "fastchess")
        }
        (hp, hs), (fp, fs) = pooled["hub"], pooled["fastchess"]
        print(
            f"| {tc} | {condition} | {hp} / {hs:.1f} ({hp / hs:.2f}) "
            f"| {fp} / {fs:.1f} ({fp / fs:.2f}) | **{(hp / hs) / (fp / fs):.3f}** |"
        )


if __name__ == "__main__":
    sys.exit(main())
