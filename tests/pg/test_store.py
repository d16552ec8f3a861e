"""RecordStore on a real PostgreSQL: the same behaviours as on SQLite (the very tests of
tests/records/test_store.py, run on a PostgreSQL store), then what only PostgreSQL has to
show: its schema version and lock, several processes migrating and writing one database at
once, a writer killed with SIGKILL, and URLs that never show their password."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import psycopg
import pytest

from hub.records import RecordStore, SchemaTooNew
from hub.records.database import PostgresUrl, location
from hub.records.store import MIGRATIONS, SCHEMA_VERSION
from tests.records import test_store as on_sqlite
from tests.records.helpers import chess_record

pytestmark = pytest.mark.system


@pytest.fixture
def store(pg_url: str) -> Iterator[RecordStore]:
    with RecordStore.open(pg_url) as opened:
        yield opened


# The store's behaviours, written once (tests/records/test_store.py), on PostgreSQL.
test_every_shape_round_trips = on_sqlite.test_every_shape_round_trips
test_summaries_newest_first_and_filters = on_sqlite.test_summaries_newest_first_and_filters
test_prefixes = on_sqlite.test_prefixes
test_add_is_idempotent_and_learns_the_match = on_sqlite.test_add_is_idempotent_and_learns_the_match
test_finished_indices_and_match_queries = on_sqlite.test_finished_indices_and_match_queries
test_a_game_played_on_replaces_its_adjourned_record = (
    on_sqlite.test_a_game_played_on_replaces_its_adjourned_record
)
test_a_summary_says_the_result_in_the_same_words_as_the_record = (
    on_sqlite.test_a_summary_says_the_result_in_the_same_words_as_the_record
)


def test_the_schema_version_is_kept_in_hub_schema(pg_url: str) -> None:
    with RecordStore.open(pg_url) as store:
        store.keep_match_seed("m", 2**70)
        store.keep_match_seed("m", 5)  # the first one kept stays
        assert store.match_seed("m") == 2**70
        assert store.match_seed("other") is None
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT version FROM hub_schema").fetchall() == [(SCHEMA_VERSION,)]
        types = dict(
            db.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = 'games'"
            ).fetchall()
        )
    assert types["ended_at"] == "double precision"  # not PostgreSQL's 4-byte REAL
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_times_keep_their_fractions(store: RecordStore) -> None:
    record = chess_record(ended=1_700_000_000.123456)
    store.add(record)
    [summary] = store.games()
    assert summary.ended_at == 1_700_000_000.123456
    assert store.get(record.game_id) == record


def test_a_newer_schema_is_refused(pg_url: str) -> None:
    RecordStore.open(pg_url).close()
    with psycopg.connect(pg_url) as db:
        db.execute("UPDATE hub_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(SchemaTooNew, match="newer hub"):
        RecordStore.open(pg_url)


def test_an_unreachable_server_is_a_psycopg_error(postgres_server: object) -> None:
    with pytest.raises(psycopg.OperationalError):
        RecordStore.open("postgresql://hub@/no_such_database?host=/nonexistent&port=1")


def test_a_url_is_shown_without_its_password() -> None:
    url = location("postgresql://hub:s3cret@db.example:5432/games?sslmode=require")
    assert isinstance(url, PostgresUrl)
    assert str(url) == "postgresql://hub:***@db.example:5432/games?sslmode=require"
    assert "s3cret" not in repr(url)
    assert str(location("postgres://hub@db/games")) == "postgres://hub@db/games"
    assert location("postgresql:/x") != location("postgresql://x")  # a path, not a URL


def test_two_processes_migrate_and_write_one_new_database_at_once(pg_url: str) -> None:
    children = [on_sqlite.writer(pg_url, name, 60) for name in ("one", "two")]  # type: ignore[arg-type]
    try:
        for child in children:
            out, _ = child.communicate(timeout=60)
            assert child.returncode == 0
            assert len(out.split()) == 60
    finally:
        for child in children:
            child.kill()
            child.wait()
    with RecordStore.open(pg_url) as store:
        assert store.count() == 120
        assert len(store.games(player="one")) == len(store.games(player="two")) == 60
    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM hub_schema").fetchone() == (1,)


def test_sigkill_loses_no_game_reported_written(pg_url: str) -> None:
    child = on_sqlite.writer(pg_url, "k", 0)  # type: ignore[arg-type]
    assert child.stdout is not None
    reported = [child.stdout.readline().strip() for _ in range(40)]
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate(timeout=30)
    reported += rest.split()
    assert child.returncode == -signal.SIGKILL
    with RecordStore.open(pg_url) as store:
        stored = {game.game_id for game in store.games()}
        assert set(reported) <= stored
        assert len(stored) - len(reported) <= 1  # at most the one committed, not yet printed
        for game_id in reported[-3:]:
            assert store.get(game_id) == chess_record(game_id=game_id, white="k")
