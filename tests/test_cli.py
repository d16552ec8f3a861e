"""The installed ``hub`` command: plug-in discovery and dispatch, run as a user would."""

from __future__ import annotations

import select
import signal
import subprocess

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


def test_games_lists_match_among_the_verbs() -> None:
    """Issue 20, item 6: the verbs listed per game include ``match`` where a game offers it."""
    lines = {line.split()[0]: line for line in hub("games").stdout.splitlines()}
    assert lines["kalah"].endswith(" [play, serve, match, demo]")
    assert lines["clubs"].endswith(" [play, serve, match, demo]")  # issue 17: hub serve clubs
    assert lines["chess"].endswith(" [play, match, demo, hub engine]")
    assert lines["uqchess"].endswith(" [serve, demo]")


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
    assert lines[1].startswith("== clubs 1/3:")
    assert sum(line.startswith("Player (") for line in lines) % 3 == 0
    assert any(line.startswith("Winner(s): ") for line in lines)
    assert lines[-1] == "   clubhub exited with status 0."


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
        assert process.stdin is not None and process.stdout and process.stderr
        # Ready when it has printed a first line (the Kalah server's port on stderr, the
        # engine's banner, the console's answer to this line): its trio loop runs then. A
        # SIGINT during the interpreter's start-up would kill it before any handler exists.
        process.stdin.write(b"isready\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout, process.stderr], [], [], 60)
        assert ready, "no first line within 60 s"
        assert ready[0].readline()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130
    assert b"Traceback" not in err
