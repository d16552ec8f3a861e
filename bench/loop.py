#!/usr/bin/env python3
"""The game loop's own cost, this checkout against an earlier tree, side by side in one run:
``.venv/bin/python bench/loop.py [--before PATH] [--rounds N]``.

``--before PATH`` names a checkout of an earlier commit (``git worktree add /tmp/before
bd972de``, the last commit before the core match loop); each figure is measured in a fresh
process of the same interpreter with ``PYTHONPATH`` on that tree, alternately with this
checkout, ``--rounds`` times, and the medians and the ratio after/before are printed as a
Markdown table for docs/performance.md. Without it only this checkout is measured.

Figures:

1. **clubs, bytecode steps per card**: the Python bytecode instructions executed in the hub
   process (trio included) while clubhub's own ``run`` referees a whole 4-player game to 50
   on decks/ex.decks with real ``clubber`` children (which inherit ``PYTHONPATH``, so each
   tree's own player runs). The count is exact and the same on every run whatever the
   machine's load, so it shows a few percent that CPU time on a shared machine cannot;
2. **clubs, hub CPU per game** (ms, user + system of this process, the same game untraced:
   the median of 3 after a warm-up game);
3. **Kalah, steps and CPU per move**: 40 games on seeded random 6x4 layouts between two
   instant scripted local players through the tree's game loop, with no time limit and with
   1000 ms per move (a timed local player runs in a task of its own, with a late grace);
   CPU after a warm-up pass.

No number is asserted; the script fails only if a game does not finish normally.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WINSCORE = "50"
KALAH_GAMES = 40
KALAH_LIMITS = (0, 1000)

WORKER = r"""
import collections, json, os, random, resource, sys, time
import trio

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def counting(counter):
    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            counter[0] += 1
        return tracer
    return tracer

def clubs(root, clubber):
    from hub.core.io.output import Output
    from hub.games.clubs import hub
    config = hub.parse_command_line([f"{root}/decks/ex.decks", "50", *[clubber] * 4])
    null = os.open(os.devnull, os.O_WRONLY)
    cards = []
    real_new_game = hub.new_game
    def new_game(*args, **kwargs):
        state = real_new_game(*args, **kwargs)
        cards.append(state)
        return state
    hub.new_game = new_game
    async def game(trace):
        counter = [0]
        if trace:
            sys.settrace(counting(counter))
        try:
            status = await hub.run(config, Output(null), Output(2))
        finally:
            sys.settrace(None)
        assert status == 0, status
        return counter[0]
    trio.run(game, False)  # warm-up: first-use imports and caches
    spent = []
    for _ in range(3):
        start = cpu()
        trio.run(game, False)
        spent.append(cpu() - start)
    steps = trio.run(game, True)
    return {"clubs_cpu_ms": sorted(spent)[1] * 1000, "clubs_steps": steps}

def kalah(limit):
    from hub.games.kalah.rules import legal_moves, new_game, random_layout
    rng = random.Random(1)
    states = [new_game(6, 4, layout=random_layout(6, 4, rng)) for _ in range(GAMES)]
    class Scripted:
        name = "scripted"
        def __init__(self, seat):
            self.seat = seat
        async def choose(self, state, limit_ms):
            moves = legal_moves(state)
            return moves[(sum(state.board) + self.seat) % len(moves)]
    try:
        from hub.core.play.vocabulary import BaseSeat
        from hub.core.model.values import PlayerInfo
        from hub.games.kalah.seats import new_match
        try:  # the match played by the declaration (new_match's first argument)
            import inspect
            from hub.games.kalah.game import KalahGame
            rules = (KalahGame(),) if "game" in inspect.signature(new_match).parameters else ()
        except ImportError:
            rules = ()
        class Seat(BaseSeat):
            def __init__(self, seat):
                self.player = PlayerInfo("scripted", "ai")
                self.late_grace = 5.0
                self.scripted = Scripted(seat)
            async def choose(self, turn):  # a local seat as the Kalah server's (late grace)
                return await self.scripted.choose(turn.state, 0)
        async def one(state):
            seats = [Seat(0), Seat(1)]
            result = await new_match(*rules, state, seats, [limit] * 2).run()
            assert result.fault is None
            return len(result.moves)
    except ImportError:  # before the core match loop: Kalah's own run_game
        from hub.games.kalah.game import LocalSeat, run_game
        async def one(state):
            seats = [LocalSeat(Scripted(0)), LocalSeat(Scripted(1))]
            record = await run_game(state, seats, [limit] * 2)
            assert record.fault is None
            return len(record.moves)
    async def games(trace):
        counter, moves = [0], 0
        if trace:
            sys.settrace(counting(counter))
        for state in states:
            moves += await one(state)
        sys.settrace(None)
        return moves, counter[0]
    trio.run(games, False)  # warm-up
    start = cpu()
    moves, _ = trio.run(games, False)
    spent = cpu() - start
    _, steps = trio.run(games, True)
    return {f"kalah{limit}_us": spent / moves * 1e6, f"kalah{limit}_steps": steps / moves,
            "kalah_moves": moves}

root, clubber = sys.argv[1], sys.argv[2]
figures = clubs(root, clubber)
for limit in LIMITS:
    figures.update(kalah(limit))
print(json.dumps(figures))
"""
WORKER = WORKER.replace("GAMES", str(KALAH_GAMES)).replace("LIMITS", repr(KALAH_LIMITS))


def measure(tree: Path) -> dict[str, float]:
    """One worker process on ``tree``; its figures."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    clubber = str(Path(sys.executable).parent / "clubber")
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(tree), clubber],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=tree,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench/loop.py: the worker on {tree} failed:\n{done.stderr}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def per_unit(figures: dict[str, float], cards: float) -> dict[str, float]:
    """The figures quoted: steps per card, and the rest as measured."""
    quoted = dict(figures)
    quoted["clubs_steps"] = figures["clubs_steps"] / cards
    return quoted


ROWS: list[tuple[str, str, str]] = [
    ("clubs_steps", "clubs: bytecode steps per card in the hub", "{:.0f}"),
    ("clubs_cpu_ms", "clubs: hub CPU per 4-player game, ms", "{:.1f}"),
    *[
        row
        for limit in KALAH_LIMITS
        for row in (
            (f"kalah{limit}_steps", f"Kalah, {limit or 'no'} ms limit: steps per move", "{:.0f}"),
            (f"kalah{limit}_us", f"Kalah, {limit or 'no'} ms limit: CPU µs per move", "{:.1f}"),
        )
    ],
]
CARDS_PER_GAME = 676
"""Cards in the 4-player game to 50 on decks/ex.decks (the rules fix it; checked by
bench/clubs.py, which counts them)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="alternating runs (default: 5)")
    options = parser.parse_args()
    trees: dict[str, Path] = {"after": ROOT}
    if options.before is not None:
        trees = {"before": options.before.resolve(), "after": ROOT}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(options.rounds):
        for name, tree in trees.items():
            runs[name].append(per_unit(measure(tree), CARDS_PER_GAME))
    load = os.getloadavg()
    python = sys.version.split()[0]
    print(
        f"{options.rounds} alternating runs per tree, load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f}, {os.cpu_count()} CPUs, Python {python}\n"
    )
    names = list(trees)
    header = ["figure (median)", *names] + (["after/before"] if len(names) == 2 else [])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" + "---:|" * (len(header) - 1))
    for key, label, fmt in ROWS:
        medians = [statistics.median(run[key] for run in runs[name]) for name in names]
        cells = [fmt.format(value) for value in medians]
        if len(names) == 2:
            cells.append(f"{medians[1] / medians[0]:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
    spread: dict[str, Any] = {
        name: [round(run["clubs_cpu_ms"], 1) for run in runs[name]] for name in names
    }
    print(f"\nclubs hub CPU per game, every run (ms): {spread}")


if __name__ == "__main__":
    main()
