"""``hub play clubs`` records the finished game (``--db PATH``) unless ``--no-record``;
``clubhub`` (its command line and output are the spec's) only when ``$HUB_DB`` is set."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hub.core.model.referee import Termination
from tests.clubs.helpers import SPEC_EXAMPLE, clubhub, env_with, run
from tests.conftest import program
from tests.records.stored import stored_records

pytestmark = pytest.mark.e2e

ARGS = ["deck.decks", "10", "clubber", "clubber"]
UNABLE = "unable to open database file"


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A directory holding the spec's worked example deck as ``deck.decks``."""
    shutil.copy(SPEC_EXAMPLE / "one-sorted-deck.decks", tmp_path / "deck.decks")
    return tmp_path


def spec_stdout() -> bytes:
    return (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes()


def hub_play_clubs(table: Path, *args: str) -> tuple[int, bytes, bytes]:
    result = run([program("hub"), "play", "clubs", *args], cwd=table, env=env_with())
    return result.triple()


def test_hub_play_clubs_records_the_game_in_the_database_given(
    table: Path, records_database: Path
) -> None:
    path = table / "games" / "clubs.db"
    assert hub_play_clubs(table, "--db", str(path), *ARGS) == (0, spec_stdout(), b"")
    (record,) = stored_records(path)
    assert record.game == "clubs" and record.termination is Termination.NORMAL
    assert record.players[0].name == "clubber" and len(record.players) == 2
    assert not records_database.exists()


def test_hub_play_clubs_records_by_default_and_not_with_no_record(
    table: Path, records_database: Path
) -> None:
    assert hub_play_clubs(table, *ARGS) == (0, spec_stdout(), b"")
    assert [record.game for record in stored_records(records_database)] == ["clubs"]
    records_database.unlink()
    assert hub_play_clubs(table, *ARGS, "--no-record") == (0, spec_stdout(), b"")
    assert not records_database.exists()
    usage = hub_play_clubs(table, *ARGS, "--db")
    assert usage == (1, b"", b"hub play clubs: --db needs a path\n")


def test_clubhub_records_only_with_hub_db(table: Path, records_database: Path) -> None:
    with_db = clubhub(*ARGS, cwd=table, env=env_with())
    assert with_db.triple() == (0, spec_stdout(), b"")
    assert [record.game for record in stored_records(records_database)] == ["clubs"]
    records_database.unlink()
    without = clubhub(*ARGS, cwd=table, env=env_with(HUB_DB=""))
    assert without.triple() == (0, spec_stdout(), b"")
    assert not records_database.exists()
    assert sorted(path.name for path in table.iterdir()) == ["deck.decks"]


def test_an_unusable_database_is_one_line_and_the_game_goes_on(table: Path) -> None:
    result = clubhub(*ARGS, cwd=table, env=env_with(HUB_DB=str(table)))
    reason = f"cannot record games in {table} ({UNABLE}); playing on without recording"
    assert result.triple() == (0, spec_stdout(), f"clubhub: {reason}\n".encode())
