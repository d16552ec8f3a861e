"""``clubhub`` and ``hub match clubs`` against players that misbehave at the process level:
stdout closed while running, SIGTERM ignored, children that keep the pipes open (crashing or
not). Statuses and messages are clubs.md's; docs/matches.md's for ``hub match``. Every case
checks that no process is left (the autouse fixture for our descendants, pid files for the
grandchildren, which are reparented away from us)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clubs.helpers import DATA, SPEC_EXAMPLE, TIMEOUT, clubhub, simulate_file
from tests.conftest import program
from tests.faults.helpers import bad_program, gone

SORTED = SPEC_EXAMPLE / "one-sorted-deck.decks"
QUIT = b"Player quit\n"
FAKE_PLAYER = [sys.executable, "-S", str(DATA / "fake_player.py")]


@pytest.mark.parametrize(
    ("faults", "report"),
    [
        (["dash-close-stdout"], b""),  # exits 0 once its stdin closes
        (["ignore-term", "dash-close-stdout"], b"Player B terminated due to signal 9\n"),
    ],
    ids=["exits-at-eof", "ignores-everything"],
)
def test_a_player_that_closes_stdout_and_keeps_running(
    faults: list[str], report: bytes, tmp_path: Path
) -> None:
    """Its closed stdout is "Player quit" (6) at B's first turn, while it still runs; it is
    sent ``end`` and, if it ignores that too, SIGKILLed after the 2 s of clubs.md."""
    bad = bad_program(tmp_path, "bad", *faults)
    expected = simulate_file(SORTED, 2, 10, ["standard", "first"])
    result = clubhub(SORTED, "10", program("clubber"), bad)
    assert result.triple() == (6, expected.stdout_before_turn(1, 0), report + QUIT)


def test_a_player_whose_child_keeps_the_pipes_open_plays_normally(tmp_path: Path) -> None:
    """B starts a grandchild that holds its stdin/stdout (and ignores SIGTERM), then runs
    clubber: the game is normal (0) and the grandchild does not outlive the game."""
    pidfile = tmp_path / "grandchild"
    bad = bad_program(tmp_path, "bad", f"fork:{pidfile}", real=[program("clubber")])
    expected = simulate_file(SORTED, 2, 10, ["standard", "standard"])
    result = clubhub(SORTED, "10", program("clubber"), bad)
    assert result.triple() == (0, expected.hub_stdout(), b"")
    assert gone(int(pidfile.read_text())), "the player's child outlived the game"


def test_hub_match_scores_a_player_whose_child_keeps_the_pipes_open_after_it_crashed(
    tmp_path: Path, records_database: Path
) -> None:
    """B crashes at its third card but its grandchild keeps B's stdout open, so no end of
    input comes: the per-card time limit ends each game (B loses on TIMEOUT), both games are
    recorded, the match goes on to its end (0) and every grandchild is killed."""
    pids = tmp_path / "pids"
    pids.mkdir()
    bad = tmp_path / "bad"
    inner = [*FAKE_PLAYER, "auto*2", "exit:3"]
    bad.write_text(
        f"#!/bin/sh\nexec {sys.executable} -S {Path(__file__).with_name('bad_program.py')} "
        f'fork:{pids}/$$ -- {" ".join(inner)} "$@"\n'
    )
    bad.chmod(0o755)
    argv = [program("hub"), "match", "clubs", "clubber", str(bad), "--games", "2"]
    argv += ["--time-ms", "500", "--deck", str(SORTED), "--winscore", "10", "--json"]
    done = subprocess.run(argv, capture_output=True, timeout=TIMEOUT * 3, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["games"], report["scored"], report["aborted"]) == (2, 2, [])
    assert [row["losses"] for row in report["standings"]] == [0, 2]
    with sqlite3.connect(records_database) as db:
        rows = db.execute("SELECT termination, fault FROM games").fetchall()
    assert [termination for termination, _ in rows] == ["timeout", "timeout"], rows
    grandchildren = [int(path.read_text()) for path in pids.iterdir()]
    assert len(grandchildren) == 2
    assert all(gone(pid) for pid in grandchildren), "a player's child outlived its game"
