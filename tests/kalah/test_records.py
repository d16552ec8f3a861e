"""``hub serve kalah`` records every finished game (``--db PATH``), unless ``--no-record``;
a database it cannot open costs one line on stderr and the games go on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kalah.test_e2e import Wire, finish, hub_server, worked_example_1
from tests.records.stored import stored_records

pytestmark = pytest.mark.e2e

UNABLE = "unable to open database file"
ARGS = ["--holes", "4", "--seeds", "1", "--pie", "--first", "client", "--script", "P,2"]


def play_worked_example_1(*extra: str) -> tuple[int, str]:
    """Worked example 1 against ``hub serve kalah ARGS EXTRA --games 1``: status, stdout."""
    with hub_server(*ARGS, *extra, "--games", "1") as (process, port):
        worked_example_1(Wire(port))
        return finish(process)


def test_a_served_game_is_recorded_in_the_database_given(
    tmp_path: Path, records_database: Path
) -> None:
    path = tmp_path / "served.db"
    status, out = play_worked_example_1("--db", str(path))
    assert status == 0 and out.endswith("AI won 3-5\n")
    (record,) = stored_records(path)
    assert record.game == "kalah" and len(record.moves) == 4 and record.winners == (1,)
    assert not records_database.exists()  # --db, not $HUB_DB


def test_by_default_into_hub_db_and_not_at_all_with_no_record(records_database: Path) -> None:
    assert play_worked_example_1()[0] == 0
    assert [record.game for record in stored_records(records_database)] == ["kalah"]
    records_database.unlink()
    assert play_worked_example_1("--no-record")[0] == 0
    assert not records_database.exists()


def test_an_unusable_database_is_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    with hub_server(*ARGS, "--db", str(tmp_path), "--games", "1") as (process, port):
        worked_example_1(Wire(port))
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0 and out.endswith("AI won 3-5\n")
    reason = f"cannot record games in {tmp_path} ({UNABLE}); playing on without recording"
    assert err == f"hub serve kalah: {reason}\n"


LOCAL = ["--holes", "3", "--seeds", "2", "--level", "1"]


def play_local_game(*extra: str) -> None:
    """A whole local game of two AIs (``hub play kalah --ai``) to its end."""
    import subprocess

    from tests.conftest import program

    done = subprocess.run(
        [program("hub"), "play", "kalah", "--ai", "--quiet", *LOCAL, *extra],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_local_game_is_recorded_too(tmp_path: Path, records_database: Path) -> None:
    path = tmp_path / "local.db"
    play_local_game("--db", str(path))
    (record,) = stored_records(path)
    assert record.game == "kalah" and record.moves and len(record.players) == 2
    play_local_game("--no-record")
    assert not records_database.exists()
    play_local_game()
    assert [record.game for record in stored_records(records_database)] == ["kalah"]
