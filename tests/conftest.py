"""Shared fixtures and helpers: every test must leave no descendant process behind and records
games only in its own database (`records_database`, ``$HUB_DB``); `program`
finds an installed console script, `need_stockfish` finds Stockfish or skips (fails in CI)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
"""The directory of the installed console scripts (the venv's bin)."""


def descendants(pid: int) -> list[int]:
    """Every living (or zombie) process below ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if ")" not in stat:  # read empty while the process was going away
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


@pytest.fixture(autouse=True)
def no_leftover_processes() -> Iterator[None]:
    """Fail a test that leaves a child process (or zombie) of the test run behind."""
    before = set(descendants(os.getpid()))
    yield
    deadline = time.monotonic() + 10.0  # a bound on the wait, generous for a loaded machine
    while True:
        left = set(descendants(os.getpid())) - before
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not left, f"processes left behind: {sorted(left)}"


@pytest.fixture(autouse=True)
def records_database(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test's games go to a database of its own (``$HUB_DB``, inherited by the programs
    it runs), never to the user's ~/.local/share/hub/games.db; a test asks for this fixture
    for the path. Not in ``tmp_path``, whose contents some tests check."""
    path = tmp_path_factory.mktemp("records") / "games.db"
    monkeypatch.setenv("HUB_DB", str(path))
    return path


def stockfish_path() -> str | None:
    return shutil.which("stockfish") or (
        "/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK) else None
    )


def need_stockfish() -> str:
    """Stockfish's path; skip with a visible reason, or fail when HUB_REQUIRE_STOCKFISH=1."""
    path = stockfish_path()
    if path is None:
        message = "Stockfish is not installed (apt-get install stockfish)"
        if os.environ.get("HUB_REQUIRE_STOCKFISH") == "1":
            pytest.fail(message + " and HUB_REQUIRE_STOCKFISH=1")
        pytest.skip(message)
    return path


def program(name: str) -> str:
    """The path of an installed console script (tests run them as a user would)."""
    path = BIN / name
    assert path.exists(), f"{name} is not installed in {BIN}; run `make test`"
    return str(path)
