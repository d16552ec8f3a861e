"""hub.records.database without a server: which text names which database, a URL shown
without its password, SQLite's parameters in psycopg's spelling, errors on one line."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from hub.records.database import (
    PostgresUrl,
    _postgres_sql,
    database_errors,
    exists,
    location,
    one_line,
)
from hub.records.options import db_path_from


def test_a_url_names_postgresql_and_anything_else_a_file() -> None:
    assert location("postgresql://hub@db/games") == PostgresUrl("postgresql://hub@db/games")
    assert location("postgres://db/games") == PostgresUrl("postgres://db/games")
    assert location("~/games.db") == Path.home() / "games.db"
    assert location("postgresql:games.db") == Path("postgresql:games.db")  # not a URL
    assert location(Path("x.db")) == Path("x.db")


def test_db_and_hub_db_take_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUB_DB", "postgresql://hub@db/from-env")
    assert db_path_from(None) == PostgresUrl("postgresql://hub@db/from-env")
    assert db_path_from("postgresql://hub@db/chosen") == PostgresUrl("postgresql://hub@db/chosen")
    monkeypatch.setenv("HUB_DB", "/tmp/x.db")
    assert db_path_from(None) == Path("/tmp/x.db")


def test_a_password_is_never_shown() -> None:
    url = PostgresUrl("postgresql://hub:s3cret@db.example:5432/games?sslmode=require")
    assert str(url) == "postgresql://hub:***@db.example:5432/games?sslmode=require"
    assert "s3cret" not in repr(url) and "s3cret" not in f"{url}"
    assert str(PostgresUrl("postgresql://:pw@db/games")) == "postgresql://:***@db/games"
    assert str(PostgresUrl("postgresql://hub@db/games")) == "postgresql://hub@db/games"
    hidden = PostgresUrl("postgresql://hub@db/games?sslmode=require&password=s3cret")
    assert str(hidden) == "postgresql://hub@db/games?sslmode=require&password=***"


def test_parameters_in_psycopg_spelling() -> None:
    assert _postgres_sql("SELECT ? WHERE x = ? AND y LIKE '5%'") == (
        "SELECT %s WHERE x = %s AND y LIKE '5%%'"
    )


def test_a_postgresql_database_may_always_hold_records(tmp_path: Path) -> None:
    assert exists(PostgresUrl("postgresql://db/games"))
    assert not exists(tmp_path / "missing.db")


def test_errors_are_sqlites_and_psycopgs_once_loaded() -> None:
    assert sqlite3.Error in database_errors()
    assert OSError in database_errors(OSError)
    import psycopg  # (once loaded, its errors count)

    assert psycopg.Error in database_errors()
    assert one_line(RuntimeError("connection failed\n\tIs the server running?")) == (
        "connection failed Is the server running?"
    )


def test_without_psycopg_a_url_is_an_os_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from hub.records import RecordStore

    monkeypatch.setitem(sys.modules, "psycopg", None)  # (import psycopg raises ImportError)
    with pytest.raises(OSError, match=r"PostgreSQL needs psycopg: pip install 'psycopg\[binary\]'"):
        RecordStore.open("postgresql://hub@db/games")
