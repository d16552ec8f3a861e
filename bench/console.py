#!/usr/bin/env python3
"""The chess console's cost per command, this checkout against an earlier tree, side by side:
``.venv/bin/python bench/console.py [--before PATH] [--rounds N]``.

Three scripted inputs are piped into the console (``hub play chess --seed 1 --no-record``: the
tree's own console ``main``, run in a fresh process of this interpreter with ``PYTHONPATH`` on the
tree), alternately for each tree, ``--rounds`` times; the figure is the process's CPU time
(user + system, from the operating system's accounting of the reaped child), median of the
rounds, and per command after subtracting the run with empty input (start-up and the final
score):

* ``move e2 e4`` / ``undo``, 2,000 times (every ``undo`` ends a game's `Match` and starts
  another);
* 400 plies of knights going back and forth (the repetition notice on every move);
* 50 games of ``computer1`` against itself, 40 ``move`` commands and ``resign`` each (each
  computer move is searched in a worker thread).

No number is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INPUTS = {
    "move/undo x 2,000": "game human human\n" + "move e2 e4\nundo\n" * 2000,
    "knight shuffle, 400 plies": "game human human\n"
    + "move g1 f3\nmove g8 f6\nmove f3 g1\nmove f6 g8\n" * 100,
    "50 games computer1 v computer1": ("game computer1 computer1\n" + "move\n" * 40 + "resign\n")
    * 50,
    "empty input": "",
}


def console_module(tree: Path) -> str:
    """Where the tree keeps the console (it moved to its own plug-in in issue 8, and became
    a package in issue 17)."""
    chess = tree / "hub/games/chess"
    if (chess / "console.py").exists() or (chess / "console/__init__.py").exists():
        return "hub.games.chess.console"
    return "hub.games.uqchess.console"


def console_args(tree: Path) -> list[str]:
    """``--seed 1``, and ``--no-record`` where the console records its games (the earlier
    trees had no records: like is compared with like, and no database is touched)."""
    module = tree / console_module(tree).replace(".", "/")
    files = sorted(module.glob("*.py")) if module.is_dir() else [module.with_suffix(".py")]
    source = "".join(path.read_text() for path in files)
    return ["--seed", "1", *(["--no-record"] if "no_record" in source else [])]


def cpu_of(tree: Path, text: str) -> float:
    """Seconds of CPU of one console process fed ``text``."""
    args = console_args(tree)
    code = f"import sys; from {console_module(tree)} import main; sys.exit(main({args!r}))"
    env = dict(os.environ, PYTHONPATH=str(tree))
    before = os.times()
    subprocess.run(
        [sys.executable, "-c", code],
        input=text.encode(),
        env=env,
        cwd="/",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--rounds", type=int, default=5, help="alternating runs (default: 5)")
    options = parser.parse_args()
    trees = {"after": ROOT}
    if options.before is not None:
        trees = {"before": options.before.resolve(), "after": ROOT}
    runs: dict[tuple[str, str], list[float]] = {}
    for _ in range(options.rounds):
        for label, text in INPUTS.items():
            for name, tree in trees.items():
                runs.setdefault((name, label), []).append(cpu_of(tree, text))
    load = os.getloadavg()
    print(
        f"{options.rounds} alternating runs per tree, load average {load[0]:.1f} {load[1]:.1f} "
        f"{load[2]:.1f}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}\n"
    )
    names = list(trees)
    commands = {label: text.count("\n") for label, text in INPUTS.items()}
    header = ["input (CPU s, median)", *names]
    header += [f"{name}: ms per command" for name in names]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" + "---:|" * (len(header) - 1))
    for label in INPUTS:
        medians = [statistics.median(runs[(name, label)]) for name in names]
        cells = [f"{value:.2f}" for value in medians]
        for name, value in zip(names, medians, strict=True):
            empty = statistics.median(runs[(name, "empty input")])
            count = commands[label]
            cells.append(f"{(value - empty) / count * 1000:.2f}" if count else "")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
