"""What several bench scripts share: the machine's description, a process's CPU time, its
wait for a CPU and its memory, a server started as a child, and the environment that runs an
earlier tree side by side with this checkout.

A script imports it as ``shared`` with this folder *last* on ``sys.path``
(``sys.path.append``), since bench/chess.py must not hide python-chess.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

import trio

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")
PYCACHE = Path(tempfile.gettempdir()) / "hub-bench-pycache"
"""Bytecode caches for every tree the benches run (the prefix mirrors each source's absolute
path, so trees never share a cache); without them, an environment that sets
``PYTHONDONTWRITEBYTECODE`` would charge every start-up with compiling hub's sources."""


def machine() -> str:
    """``MODEL, N CPUs, Python X.Y.Z``."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def load() -> str:
    """The load averages over 1, 5 and 15 minutes, as /proc/loadavg gives them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def cpu_seconds(pid: int) -> float:
    """User + system CPU a running process has used so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def run_queue_wait(pid: int) -> float:
    """Seconds the process's threads have been ready to run but waited for a CPU
    (/proc/PID/task/*/schedstat): the machine's share of any delay, not the process's own."""
    return (
        sum(
            int((task / "schedstat").read_text().split()[1])
            for task in Path(f"/proc/{pid}/task").iterdir()
        )
        / 1e9
    )


def proc_memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM in KiB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0])
    return found


def raise_nofile() -> None:
    """This process's open-file limit at its hard limit (a load generator's many sockets)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_server(
    argv: list[str], log: Path, timeout: float = 60.0
) -> tuple[subprocess.Popen[bytes], int]:
    """The server, and the port it prints alone on a line of its stderr (``log``)."""
    with log.open("wb") as err:
        server = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if line.strip().isdigit():
                return server, int(line)
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    server.wait()
    raise SystemExit(f"{' '.join(argv)} did not start: {log.read_text()}")


def before_and_after(description: str, rounds: int = 3) -> tuple[dict[str, Path], int]:
    """The command line of a script that measures this checkout against an earlier tree
    (``--before PATH``, ``--rounds N``): the trees by name, ``before`` first, and the
    rounds; without ``--before``, this checkout alone."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--rounds", type=int, default=rounds)
    options = parser.parse_args()
    trees = {"after": ROOT}
    if options.before is not None:
        trees = {"before": options.before.resolve(), "after": ROOT}
    return trees, options.rounds


def tree_env(tree: Path, db: Path | None = None) -> dict[str, str]:
    """The environment for running ``tree``'s code with this interpreter: ``PYTHONPATH`` on
    the tree (the programs it starts inherit it), bytecode caches on, and the records
    database ``db`` (``$HUB_DB``; None: unset, so a command that records only when it is set,
    as ``clubhub`` and ``uqchessserver``, records nothing). Run the commands with ``cwd`` out
    of any tree (``/``): ``python -m`` and ``-c`` put the working directory first on
    ``sys.path``."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(PYCACHE))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("HUB_DB", None)
    if db is not None:
        env["HUB_DB"] = str(db)
    return env


class Served(NamedTuple):
    """What a server did for a bench's clients: the moves they made, and the wall and CPU
    seconds (the server's user + system time) from its announcement of its port."""

    moves: int
    wall: float
    cpu: float


def serve(argv: list[str], env: dict[str, str], play: Callable[[int], Awaitable[int]]) -> Served:
    """Start the server ``argv``, which announces its port as the last word of its first
    line on stderr; run ``play(port)`` (the moves made) under trio; stop the server."""
    server = subprocess.Popen(
        argv, env=env, cwd="/", stderr=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().split()[-1])
        start, began = cpu_seconds(server.pid), time.perf_counter()
        moves = trio.run(play, port)
        wall = time.perf_counter() - began
        return Served(moves, wall, cpu_seconds(server.pid) - start)
    finally:
        server.terminate()
        server.wait()
