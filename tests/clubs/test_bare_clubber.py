"""A bare ``clubber`` seat in ``hub play clubs`` (where a bare program is a JSON bot, as in
every game's ``hub play``) gets a clear message: how to seat a clubs program
(``clubs:clubber``), not only "disconnect"; ``hub match clubs clubber`` seats it as one."""

from __future__ import annotations

import subprocess

from tests.conftest import program


def hub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_bare_clubber_seat_is_told_how_to_seat_a_clubs_program() -> None:
    done = hub("play", "clubs", "ai", "clubber", "--no-record")
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]  # (the pipe may close before or after the welcome)
    assert last.startswith("A (ai:1) wins (B (clubber): disconnect; ")
    assert last.endswith("; not a JSON bot? a clubs program is seated as clubs:clubber)")


def test_seated_as_the_message_says_it_plays() -> None:
    done = hub("play", "clubs", "ai", "clubs:clubber", "--winscore", "5", "--no-record")
    assert done.returncode == 0, done.stderr
    assert " wins " in done.stdout.splitlines()[-1] and "disconnect" not in done.stdout


def test_hub_match_seats_a_bare_clubber_as_a_clubs_program() -> None:
    done = hub("match", "clubs", "clubber", "ai", "--games", "2", "--winscore", "5", "--no-record")
    assert done.returncode == 0, done.stderr
    assert "clubs, 2 of 2 games scored, 0 aborted, complete" in done.stdout
