"""clubhub's first steps before the engine is imported (hub/games/clubs/launch.py): the
arguments checked in the spec's order, the players started at once, and ended and reaped if
the game never begins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from hub.core.io.process import ChildProcess
from hub.games.clubs.launch import (
    CommandLineError,
    EarlyStart,
    HubExit,
    abandon,
    check_arguments,
    first_steps,
)
from hub.games.clubs.table import adopt_players, start_players
from tests.conftest import program

DECKS = str(Path(__file__).resolve().parents[2] / "decks" / "ex.decks")


@pytest.mark.parametrize(
    ("args", "status"),
    [
        ([], HubExit.USAGE),
        ([DECKS, "0", "a", "b"], HubExit.SCORE),
        (["/nonexistent/decks", "10", "a", "b"], HubExit.DECKFILE),
        ([__file__, "10", "a", "b"], HubExit.DECK),
    ],
)
def test_arguments_are_checked_in_the_order_of_the_exit_table(
    args: list[str], status: HubExit
) -> None:
    with pytest.raises(CommandLineError) as caught:
        check_arguments(args)
    assert caught.value.status is status
    assert first_steps(args) == status  # the spec's status, and nothing is started


def test_help_starts_nothing() -> None:
    assert first_steps(["--help"]) is None  # argparse renders it, in the engine's module


def test_players_start_at_once_and_the_game_adopts_them() -> None:
    clubber = program("clubber")
    early = started([DECKS, "10", clubber, clubber, clubber])
    assert early is not None and early.failure is None
    assert [player.args for player in early.players] == [[clubber, "3", label] for label in "ABC"]

    async def adopt() -> list[int]:
        children = adopt_players(early)
        failure = await start_players([clubber] * 3, children, 5.0, early=early)
        assert failure is None  # every player sent its '-'
        for child in children:
            child.lines.queue_line("end")
            await child.lines.flush()
        return [(await child.reap()).code or 0 for child in children]

    assert trio.run(adopt) == [0, 0, 0]
    assert all(player.returncode == 0 for player in early.players)


def test_a_program_that_cannot_start_is_the_start_failure_of_its_seat() -> None:
    clubber = program("clubber")
    early = started([DECKS, "10", clubber, "/nonexistent/player"])
    assert early is not None and len(early.players) == 1
    assert early.failure is not None and early.failure[0] == 1

    async def adopt() -> str:
        children = adopt_players(early)
        failure = await start_players([clubber, "/nonexistent/player"], children, 5.0, early=early)
        assert failure is not None and failure.seat == 1
        await ChildProcess.close_pipes(children[0])
        await children[0].reap()
        return failure.detail

    assert trio.run(adopt).startswith("could not be started: /nonexistent/player: ")


def test_abandon_ends_and_reaps_players_that_never_played(tmp_path: Path) -> None:
    """A clubber ends at ``end``; a player that ignores it is SIGKILLed after the grace."""
    deaf = tmp_path / "deaf"
    deaf.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    deaf.chmod(0o755)
    early = started([DECKS, "10", program("clubber"), str(deaf)])
    assert early is not None and early.failure is None
    abandon(early, grace=0.5)
    assert early.players[0].returncode == 0  # it read end
    assert early.players[1].returncode == -9  # SIGKILL after the grace
    for player in early.players:
        with pytest.raises(ChildProcessError):
            os.waitpid(player.pid, os.WNOHANG)  # reaped


def test_the_installed_clubhub_plays_with_players_started_early() -> None:
    clubber = program("clubber")
    done = subprocess.run(
        [program("clubhub"), DECKS, "20", clubber, clubber],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("Winner(s): ")


def test_a_refused_command_line_is_answered_before_the_engine_is_imported() -> None:
    """clubhub's spec message and status come from the light module alone (no trio)."""
    code = (
        "import sys\n"
        "from hub.games.clubs.launch import first_steps\n"
        f"status = first_steps([{DECKS!r}, 'x', 'a', 'b'])\n"
        "assert 'trio' not in sys.modules and 'attrs' not in sys.modules\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (HubExit.SCORE, b"Invalid score\n")


def started(args: list[str]) -> EarlyStart:
    early = first_steps(args)
    assert isinstance(early, EarlyStart)
    return early
