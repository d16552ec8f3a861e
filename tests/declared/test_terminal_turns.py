"""The person at the terminal sees the board once per move, also in a turn of several moves
(Nim from the docs: taking 3 stones moves again): the picture after their first move is the
one their next prompt draws, not printed twice."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import program
from tests.declared.test_a_game_from_the_docs import NIM


def install_nim(site: Path) -> dict[str, str]:
    """Nim installed as pip would, ahead of the worktree on the path."""
    site.mkdir()
    (site / "nimgame.py").write_text(NIM)
    info = site / "nimgame-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nimgame\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hub.games]\nnim = nimgame:Nim\n")
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def test_a_turn_of_two_moves_draws_the_board_once_after_each(tmp_path: Path) -> None:
    done = subprocess.run(
        [program("hub"), "play", "nim", "human", "ai:2", "--stones", "9", "--no-record"],
        input="1\n3\n1\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=install_nim(tmp_path / "site"),
    )
    assert done.returncode == 0, done.stderr
    lines = [line.rpartition("to move: ")[2] for line in done.stdout.splitlines()]
    assert lines[1:] == [
        "heap: ooooooooo (9)",
        "First (you) plays 1",
        "heap: oooooooo (8)",
        "Second (ai:2) plays 1",
        "heap: ooooooo (7)",
        "First (you) plays 3",  # and First moves again: the prompt's picture is the one
        "heap: oooo (4)",
        "First (you) plays 1",
        "heap: ooo (3)",
        "Second (ai:2) plays 3",
        "heap:  (0)",
        "Second (ai:2) wins",
    ]
