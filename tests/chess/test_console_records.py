"""``hub play chess`` records every finished game (``--db PATH``), unless ``--no-record``."""

from __future__ import annotations

from pathlib import Path

from hub.core.referee import Termination
from hub.games.chess.console import ConsoleOptions, parse_options
from tests.chess.helpers import run_program
from tests.records.stored import stored_records

FOOLS_MATE = b"game human human\nmove f2 f3\nmove e7 e5\nmove g2 g4\nmove d8 h4\n"
UNABLE = "unable to open database file"


def test_record_options() -> None:
    assert ConsoleOptions().record_path is not None  # recording is the default
    assert parse_options(["--db", "~/x.db"]) == ConsoleOptions(db="~/x.db")
    assert ConsoleOptions(db="~/x.db").record_path == Path.home() / "x.db"
    assert parse_options(["--no-record", "--gui"]) == ConsoleOptions(gui=True, no_record=True)
    assert ConsoleOptions(no_record=True).record_path is None
    for bad in (["--db"], ["--db", ""], ["--db", "a", "--db", "b"], ["--no-record"] * 2):
        assert parse_options(bad) is None, bad


def test_a_console_game_is_recorded_in_the_database_given(
    tmp_path: Path, records_database: Path
) -> None:
    path = tmp_path / "console.db"
    # a second game, cut by the end of input, is aborted: not recorded
    done = run_program(["play", "chess", "--db", str(path)], FOOLS_MATE + b"game human human\n")
    assert done.returncode == 0 and b"Checkmate" in done.stdout, done
    (record,) = stored_records(path)
    assert record.game == "chess" and record.termination is Termination.NORMAL
    assert [move.move for move in record.moves] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert record.winners == (1,)
    assert not records_database.exists()


def test_by_default_into_hub_db_and_not_at_all_with_no_record(records_database: Path) -> None:
    assert run_program(["play", "chess"], FOOLS_MATE).returncode == 0
    assert [record.game for record in stored_records(records_database)] == ["chess"]
    records_database.unlink()
    assert run_program(["play", "chess", "--no-record"], FOOLS_MATE).returncode == 0
    assert not records_database.exists()


def test_an_unusable_database_is_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    done = run_program(["play", "chess", "--classic", "--db", str(tmp_path)], FOOLS_MATE)
    assert done.returncode == 0
    assert done.stdout == run_program(["play", "chess", "--classic"], FOOLS_MATE).stdout
    reason = f"cannot record games in {tmp_path} ({UNABLE}); playing on without recording"
    assert done.stderr.decode() == f"hub play chess: {reason}\n"
