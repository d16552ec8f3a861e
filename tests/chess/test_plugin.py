"""The chess plug-in as the ``hub`` command sees it: listed, playable, a tool, a demo."""

from __future__ import annotations

import subprocess

from hub.core.commands.plugin import discover
from tests.chess.helpers import TIMEOUT, run_program
from tests.conftest import program


def test_the_plugin_offers_play_demo_and_hub_engine() -> None:
    plugin = discover()["chess"]
    assert plugin.play is not None and plugin.demo is not None
    assert set(plugin.tools) == {"engine"}
    assert plugin.serve is None


def test_hub_games_lists_chess() -> None:
    result = run_program(["games"], b"")
    line = next(line for line in result.stdout.decode().splitlines() if line.startswith("chess "))
    assert line.endswith("[play, match, demo, hub engine]")


def test_demo_shows_a_session_and_the_engine() -> None:
    result = subprocess.run(
        [program("hub"), "demo", "chess"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "> move d8 h4\n" in out or "> move Qh4\n" in out
    assert "Checkmate! Black wins!\n" in out
    assert "Black plays " in out
    assert "Final Score:\nWhite: 0\nBlack: 2\n" in out
    assert "\nbestmove " in out
    assert out.endswith("   hub engine exited with status 0.\n")
