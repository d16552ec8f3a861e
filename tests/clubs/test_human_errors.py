"""``hub play clubs`` says in words which player or file went wrong and what to do, after the
spec's one line; ``clubhub`` prints only the spec's line (its stderr is the contract)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hub.core.model.referee import Termination
from hub.games.clubs.hub import Config, start_failure_text
from hub.games.clubs.table import StartFailure
from tests.clubs.helpers import DECKS, env_with, run
from tests.conftest import program

NO_VENV = {**os.environ, "PATH": "/usr/bin:/bin"}
"""A PATH without the venv's bin: ``clubber`` is not on it."""
EX = str(DECKS / "ex.decks")


def hub_play(*args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    return run([program("hub"), "play", "clubs", *args, "--no-record"], env=env).triple()


def test_a_missing_program_is_named_with_what_to_do() -> None:
    status, out, err = hub_play(EX, "10", "clubber", "nosuch", env=NO_VENV)
    assert (status, out) == (5, b"")
    assert err == (
        b"Unable to start subprocess\n"
        b"hub play clubs: cannot start player B 'nosuch': not found on PATH"
        b" (give a path, or activate the venv)\n"
    )


def test_clubhub_keeps_the_spec_message_alone() -> None:
    result = run([program("clubhub"), EX, "10", "clubber", "nosuch"], env=NO_VENV)
    assert result.triple() == (5, b"", b"Unable to start subprocess\n")


def test_clubhub_treats_human_as_a_program_name() -> None:
    result = run([program("clubhub"), EX, "10", "human", "clubber"], env=env_with())
    assert result.triple() == (5, b"", b"Unable to start subprocess\n")


def test_hub_play_clubs_finds_clubber_without_the_venv_on_path() -> None:
    status, out, err = hub_play(
        str(DECKS / "sorted.decks"), "10", "clubber", "clubber", env=NO_VENV
    )
    assert (status, err) == (0, b"")
    assert out.endswith(b"scores 12,1\nWinner(s): B\n")


def test_a_bad_deck_file_is_named_with_its_line(tmp_path: Path) -> None:
    deck = tmp_path / "bad.decks"
    deck.write_text("# a comment\n2S,3S\nZZ,4S\n")
    status, out, err = hub_play(str(deck), "10", "clubber", "clubber")
    assert (status, out) == (4, b"")
    said = f"hub play clubs: deck file {deck}: line 3: 'ZZ' is not a card\n"
    assert err == b"Error reading deck\n" + said.encode()
    clubhub = run([program("clubhub"), str(deck), "10", "clubber", "clubber"], env=env_with())
    assert clubhub.triple() == (4, b"", b"Error reading deck\n")


def test_a_deck_file_that_cannot_be_read_and_a_bad_score(tmp_path: Path) -> None:
    missing = tmp_path / "missing.decks"
    status, _, err = hub_play(str(missing), "10", "clubber", "clubber")
    assert status == 3
    assert (
        err
        == (
            f"Unable to access deckfile\nhub play clubs: cannot read deck file {missing}:"
            " No such file or directory\n"
        ).encode()
    )
    status, _, err = hub_play(EX, "ten", "clubber", "clubber")
    assert status == 2
    assert err == (
        b"Invalid score\nhub play clubs: winscore must be a whole number of at least 1, not 'ten'\n"
    )


def test_only_one_person_can_sit_at_the_table() -> None:
    status, out, err = hub_play(EX, "10", "human", "clubber", "human")
    assert (status, out) == (1, b"")
    assert err == b"hub play clubs: only one human can take a seat (each hand is secret)\n"


CONFIG = Config(decks=(), winscore=10, programs=("clubber", "./bot", "sleepy"), explain=True)


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (
            StartFailure(1, Termination.DISCONNECT, "could not be started: ./bot: [Errno 2]"),
            "cannot start player B './bot': not an executable file (check the path and its mode)",
        ),
        (
            StartFailure(0, Termination.DISCONNECT, "ended before sending '-'"),
            "player A 'clubber' ended before sending '-': is it a clubs player? (it must send '-'"
            " first)",
        ),
        (
            StartFailure(2, Termination.MALFORMED, "sent b'x', not '-'"),
            "player C 'sleepy' sent b'x', not '-': is it a clubs player? (it must send '-' first)",
        ),
        (
            StartFailure(2, Termination.TIMEOUT, "sent no '-' within 5 s"),
            "player C 'sleepy' sent no '-' within 5 s: is it a clubs player?"
            " (CLUBHUB_START_TIMEOUT allows more)",
        ),
    ],
)
def test_start_failures_in_words(failure: StartFailure, expected: str) -> None:
    assert start_failure_text(CONFIG, failure) == expected
