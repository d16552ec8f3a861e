"""Shared pieces of the ``hub match`` tests: the tic-tac-toe kit's reference, deliberately
broken player programs, a fake record store, and running ``hub match`` as a user would."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import attrs

from hub.core.model.events import GameRecord
from hub.tournament.schedule import Schedule, make_schedule
from tests.examples.tictactoe import PLAYER
from tests.examples.tictactoe_kit import kit

KIT = "tests.examples.tictactoe_kit:kit"
ROOT = Path(__file__).resolve().parents[2]

FIRST_FREE = PLAYER
"""Takes the first free cell (the example game's own player program)."""
CRASH = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"
"""Reads its first line and exits."""
HANG = "import sys, time\nfor line in sys.stdin:\n    time.sleep(3600)\n"
"""Never answers."""
GARBAGE = """
import sys
for line in sys.stdin:
    if line.startswith("go"):
        print("middle!", flush=True)
"""


def script(directory: Path, name: str, body: str) -> str:
    """An executable Python script; returns its path."""
    path = directory / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def schedule(players: list[str], games: int, *, time_ms: int = 1000, seed: int = 1) -> Schedule:
    settings = {"time_ms": time_ms}
    return make_schedule(
        match_id="m" * 32,
        game=KIT,
        players=players,
        settings=settings,
        games=games,
        seed=seed,
        openings=kit.openings(settings, (games + 1) // 2, seed),
    )


@attrs.define
class FakeStore:
    """`hub.runner.Recorder` in memory."""

    added: list[tuple[GameRecord, str | None, int | None]] = attrs.Factory(list)

    def add(
        self, record: GameRecord, *, match_id: str | None = None, index: int | None = None
    ) -> None:
        self.added.append((record, match_id, index))


def environment() -> dict[str, str]:
    """The environment for child processes that must import the tests' kit."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env
