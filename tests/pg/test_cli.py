"""``hub games history|show|export|stats|ratings --db postgresql://...``: the very tests of
tests/records/test_cli.py on a PostgreSQL database holding the same games, and a rating list
computed from games stored there (the same list as from an SQLite file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from hub.records import RecordStore
from tests.records import test_cli as on_sqlite
from tests.records.helpers import shapes, tictactoe
from tests.records.test_ratings import run, simulate, write

pytestmark = pytest.mark.system


@pytest.fixture
def db(pg_url: str) -> str:
    """The games of tests/records/test_cli.py's ``db``, in PostgreSQL."""
    with RecordStore.open(pg_url) as store:
        for record in shapes():
            store.add(record)
        store.add(trio.run(tictactoe, "xena", "otto"), match_id="m" * 32, index=0)
    return pg_url


test_history = on_sqlite.test_history
test_show_chess = on_sqlite.test_show_chess
test_show_kalah_clubs_and_an_unknown_game = on_sqlite.test_show_kalah_clubs_and_an_unknown_game
test_export_jsonl = on_sqlite.test_export_jsonl
test_stats = on_sqlite.test_stats
test_export_the_games_named_by_id = on_sqlite.test_export_the_games_named_by_id
test_the_installed_command_reads_hub_db = on_sqlite.test_the_installed_command_reads_hub_db
test_the_installed_command_exports_one_game = on_sqlite.test_the_installed_command_exports_one_game


def test_ratings_from_postgresql_are_those_from_sqlite(
    capfd: pytest.CaptureFixture[str], pg_url: str, tmp_path: Path
) -> None:
    games = simulate(seed=5)
    write(tmp_path / "games.db", games)
    write(pg_url, games)  # type: ignore[arg-type]
    lists = []
    for db in (str(tmp_path / "games.db"), pg_url):
        status, out, err = run(capfd, "ratings", "chess", "--json", "--db", db)
        assert status == 0, err
        lists.append(json.loads(out))
    assert lists[0] == lists[1]
    assert len(lists[0]["players"]) == 5


def test_an_unreachable_database_is_one_line_and_status_1(
    capfd: pytest.CaptureFixture[str], postgres_server: object
) -> None:
    url = "postgresql://hub@%2Fnonexistent:1/games"
    status, out, err = run(capfd, "history", "--db", url)
    assert status == 1 and out == ""
    assert err.startswith(f"hub games: cannot use the records database {url}: ")
    assert len(err.splitlines()) == 1


def test_hub_match_records_in_postgresql_and_resumes_from_it(pg_url: str) -> None:
    """``hub match --db postgresql://...``: every game recorded with its match, the match's
    seed kept, and ``--resume`` of a finished match plays nothing and gives the same table."""
    from tests.tournament.test_cli import KIT
    from tests.tournament.test_cli import match_id as match_of
    from tests.tournament.test_cli import run as hub_match

    args = [KIT, "first", "random:3", "--games", "4", "--db", pg_url, "--json"]
    done = hub_match(*args)
    assert done.returncode == 0, done.stderr
    ident = match_of(done.stderr.splitlines()[0])
    with RecordStore.open(pg_url) as store:
        assert store.finished_indices(ident) == {0, 1, 2, 3}
        assert store.match_seed(ident) is not None
    again = hub_match(*args, "--resume", ident)
    assert again.returncode == 0, again.stderr
    assert "0 of 4 games to play" in again.stderr.splitlines()[0]
    assert json.loads(again.stdout)["standings"] == json.loads(done.stdout)["standings"]
