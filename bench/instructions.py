#!/usr/bin/env python3
"""Instructions executed, counted by valgrind, this checkout against an earlier tree:
``.venv/bin/python bench/instructions.py [--before PATH]`` (about a minute; needs
``valgrind``, Debian's package of that name).

valgrind's cachegrind (without its cache simulation) counts every instruction a process
executes in user space. The count is exact and the same on every run whatever else the
machine does, so it shows a change of 1-2% that CPU time on a shared machine cannot (it does
not see the kernel's work, nor what waiting and cache misses cost). Each figure is one run
of the same interpreter with ``PYTHONPATH`` on the tree (the children inherit it), with
bytecode caches warmed by a first run:

1. a bare interpreter (``python -c pass``): what both trees pay;
2. importing ``clubhub``'s engine (``hub.games.clubs.hub``) after trio and attrs, which both
   trees import first: the cost of the hub's own modules;
3. a whole ``clubhub`` 4-player game to 50 on decks/ex.decks, run by the tree's own
   ``clubhub`` entry point (from its pyproject.toml): the hub's process, and the mean of its
   four ``clubber`` children (followed with ``--trace-children``).

No number is asserted; without valgrind it says so and does nothing; it fails only if a game
fails.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from shared import ROOT, tree_env

CLUBBER = str(Path(sys.executable).parent / "clubber")
VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def entry_point(tree: Path) -> tuple[str, str]:
    """The module and function of the tree's ``clubhub`` console script."""
    found = re.search(r'^clubhub = "([\w.]+):(\w+)"', (tree / "pyproject.toml").read_text(), re.M)
    if found is None:
        raise SystemExit(f"bench/instructions.py: no clubhub script in {tree}/pyproject.toml")
    return found[1], found[2]


def counts(tree: Path, code: str, args: list[str], children: bool = False) -> dict[str, int]:
    """Instructions per process (by its command line) of ``python -c code args`` on ``tree``."""
    env = tree_env(tree)  # (bytecode caches on: the warm-up run writes them)
    command = [sys.executable, "-c", code, *args]
    subprocess.run(command, env=env, cwd="/", capture_output=True, check=False)  # warm caches
    with tempfile.TemporaryDirectory() as logs:
        trace = ["--trace-children=yes"] if children else []
        done = subprocess.run(
            [*VALGRIND, *trace, f"--log-file={logs}/log.%p", *command],
            env=env,
            cwd="/",
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"bench/instructions.py: {command} failed on {tree}:\n{done.stderr!r}")
        found: dict[str, int] = {}
        for log in Path(logs).iterdir():
            text = log.read_text()
            name = re.search(r"Command: (\S+)", text)
            refs = re.search(r"I\s+refs:\s+([\d,]+)", text)
            if name and refs:
                key = Path(name[1]).name
                found[key] = found.get(key, 0) + int(refs[1].replace(",", ""))
        return found


def measure(tree: Path) -> dict[str, float]:
    python = Path(sys.executable).name
    bare = counts(tree, "pass", [])[python]
    base = counts(tree, "import attrs, trio", [])[python]
    engine = counts(tree, "import attrs, trio, hub.games.clubs.hub", [])[python]
    module, function = entry_point(tree)
    code = (
        f"import sys; from {module} import {function} as f; sys.argv[0] = 'clubhub'; sys.exit(f())"
    )
    game = counts(tree, code, [str(tree / "decks/ex.decks"), "50", *[CLUBBER] * 4], children=True)
    return {
        "bare": bare / 1e6,
        "engine": (engine - base) / 1e6,
        "hub": game[python] / 1e6,
        "clubber": game["clubber"] / 4 / 1e6,
    }


ROWS = [
    ("bare", "a bare interpreter (`python -c pass`)"),
    ("engine", "importing clubhub's engine after trio and attrs"),
    ("hub", "clubhub's process, a 4-player game to 50 on ex.decks"),
    ("clubber", "one clubber child in that game (mean of 4)"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    options = parser.parse_args()
    if shutil.which("valgrind") is None:  # (not an error: `make bench` goes on to the next)
        print("bench/instructions.py: skipped: it needs valgrind (apt-get install valgrind)")
        return
    trees = {"after": ROOT}
    if options.before is not None:
        trees = {"before": options.before.resolve(), "after": ROOT}
    os.environ["PYTHONHASHSEED"] = "0"  # set orders repeat from run to run (tree_env copies it)
    figures = {name: measure(tree) for name, tree in trees.items()}
    names = list(trees)
    print(f"Python {sys.version.split()[0]}; millions of instructions (valgrind)\n")
    header = ["figure", *names] + (["after/before"] if len(names) == 2 else [])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" + "---:|" * (len(header) - 1))
    for key, label in ROWS:
        values = [figures[name][key] for name in names]
        cells = [f"{value:.1f}" for value in values]
        if len(names) == 2:
            cells.append(f"{values[1] / values[0]:.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
