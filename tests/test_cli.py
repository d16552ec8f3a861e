"""The installed ``hub`` command: plug-in discovery and dispatch, run as a user would."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from tests.conftest import program


def hub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args], check=False, capture_output=True, text=True, timeout=60
    )


def test_games_lists_the_plugins() -> None:
    result = hub("games")
    assert result.returncode == 0
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert "clubs" in names
    assert names == sorted(names)


def test_help_and_errors() -> None:
    assert hub("--help").returncode == 0
    assert "hub games" in hub("--help").stdout
    assert hub().returncode == 2
    unknown = hub("frobnicate")
    assert unknown.returncode == 2 and "unknown command" in unknown.stderr
    missing = hub("play", "no-such-game")
    assert missing.returncode == 2 and "no game 'no-such-game'" in missing.stderr
    assert hub("play").returncode == 2


def test_play_clubs_is_clubhub() -> None:
    result = hub("play", "clubs")
    assert result.returncode == 1
    assert result.stderr == "Usage: clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]\n"


def test_demo_clubs_plays_a_three_player_game() -> None:
    result = hub("demo", "clubs")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("== clubs:")
    assert sum(line.startswith("Player (") for line in lines) % 3 == 0
    assert any(line.startswith("Winner(s): ") for line in lines)
    assert lines[-1] == "== clubs: clubhub exited with status 0"


@pytest.mark.parametrize(
    "args",
    [["serve", "kalah"], ["serve", "kalah", "--opponent", "human"], ["engine"], ["play", "chess"]],
)
def test_ctrl_c_exits_130_without_a_traceback(args: list[str]) -> None:
    process = subprocess.Popen(
        [program("hub"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        time.sleep(1.0)  # let it start; a SIGINT before trio runs is handled the same way
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130
    assert b"Traceback" not in err
