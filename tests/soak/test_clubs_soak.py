"""Soak (issue 11): clubs games in a row leave no process and no file descriptor behind.

Each game is ``clubhub``'s own `main` run in this process (so that a descriptor leaked
inside clubhub shows in /proc/self/fd here), with real ``clubber`` children, 2, 3 or 4 of
them in turn, on each deck file of decks/ in turn, to 20 points. Every game must end
normally (exit 0, ``Winner(s):``); every 50 games, and at the end, this process has no
child (zombies included) and exactly the descriptors it had after the first game.
`make test`: 20 games; `make soak` (HUB_SOAK=long): 1,000."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest

from hub.games.clubs.hub import main as clubhub
from tests.conftest import our_descendants, program
from tests.soak.helpers import report, size

pytestmark = pytest.mark.soak

DECKS = sorted((Path(__file__).parents[2] / "decks").glob("*.decks"))
CHECK_EVERY = 50


def open_fds() -> list[str]:
    found = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the directory's own, closed as we list it
            found.append(f"{fd.name} -> {os.readlink(fd)}")
    return sorted(found)


def play(number: int, capfd: pytest.CaptureFixture[str]) -> None:
    players = 2 + number % 3
    deck = DECKS[number % len(DECKS)]
    status = clubhub([str(deck), "20", *[program("clubber")] * players])
    out, err = capfd.readouterr()
    assert status == 0, (deck.name, players, err)
    assert "Winner(s):" in out


def test_clubs_games_leave_no_process_or_descriptor(capfd: pytest.CaptureFixture[str]) -> None:
    count = size(20, 1000)
    play(0, capfd)  # anything opened once for good (imports, the records database's path)
    fds = open_fds()
    began = time.monotonic()
    for number in range(1, count + 1):
        play(number, capfd)
        if number % CHECK_EVERY == 0 or number == count:
            assert our_descendants() == [], f"processes left after game {number}"
            # none opened and kept (one an earlier test left may close meanwhile: the
            # records writer's abandoned thread in tests/records/test_writer.py)
            assert sorted(set(open_fds()) - set(fds)) == [], f"descriptors after game {number}"
    seconds = time.monotonic() - began
    with capfd.disabled():
        report(
            f"clubs: {count} games in {seconds:.0f} s ({count / seconds:.1f}/s), "
            f"{len(fds)} descriptors before and after, no child left"
        )
