"""A plug-in that fails to load is said to have failed, with why, by every verb that names it
(``hub play|serve|match|demo GAME``), as ``hub games`` lists it; not "no game offers"."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import program

WHY = "the game 'broken' failed to load (brokengame:Game): ModuleNotFoundError: No module named"


@pytest.fixture
def broken_env(tmp_path: Path) -> dict[str, str]:
    """A plug-in installed as pip would (a dist-info with its entry point) whose module
    imports a module that is not there."""
    info = tmp_path / "broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hub.games]\nbroken = brokengame:Game\n")
    (tmp_path / "brokengame.py").write_text("import nosuchmodule\n")
    path = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


@pytest.mark.parametrize(
    "args",
    [
        ["play", "broken", "human", "ai"],
        ["serve", "broken"],
        ["match", "broken", "ai", "ai"],
        ["demo", "broken"],
    ],
)
def test_every_verb_says_the_game_failed_to_load_and_why(
    broken_env: dict[str, str], args: list[str]
) -> None:
    done = subprocess.run(
        [program("hub"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=broken_env,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"hub {args[0]}: {WHY} 'nosuchmodule'\n"


def test_a_game_that_is_not_installed_is_still_told_apart(broken_env: dict[str, str]) -> None:
    done = subprocess.run(
        [program("hub"), "play", "nosuch"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=broken_env,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("hub play: no game 'nosuch' offers 'play'; games that do: ")
