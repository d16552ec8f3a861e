"""Where the records live: an SQLite file (the default, one machine) or a PostgreSQL database
(several ``hub`` processes, on one machine or several), behind the one small connection
interface `Database` that `hub.records.store` and its migrations are written against.

* A *location* (`Location`) is a `pathlib.Path` (SQLite) or a `PostgresUrl`
  (``postgresql://user@host:port/dbname`` or ``postgres://...``, any libpq URL); `location`
  tells them apart from the text of ``--db`` or ``$HUB_DB``.
* SQL is written once, in SQLite's spelling with ``?`` parameters; `PostgresDatabase`
  translates the parameters to psycopg's ``%s``. Where the two dialects differ (column types,
  case-insensitive comparison, JSON), the store asks `Dialect` for the fragment.
* psycopg (PostgreSQL's driver) is imported only when a PostgreSQL location is opened, so a
  command that records in SQLite does not pay for it; `database_errors` lists the exception
  classes of the drivers that are loaded.

A `Database` is one connection in autocommit mode (the store opens its own transactions with
`Database.transaction`): use it from one thread at a time.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import sqlite3
import sys
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    import psycopg

BUSY_SECONDS = 10.0
"""How long a write waits for another process's transaction (SQLite's lock) before it fails,
and how long a PostgreSQL connection is given to open."""

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

SCHEMA_LOCK = 0x6875625F7265  # "hub_re": the advisory lock key of PostgreSQL migrations
"""PostgreSQL's ``pg_advisory_xact_lock`` key that serialises migrations across processes."""


@attrs.frozen
class PostgresUrl:
    """A PostgreSQL database by its libpq URL. Shown (`str`) without its password, which a
    log line or an error message must never print."""

    url: str = attrs.field(repr=False)

    def __str__(self) -> str:
        parts = urllib.parse.urlsplit(self.url)
        if parts.password is not None:
            user = parts.username or ""
            host = parts.netloc.rpartition("@")[2]
            parts = parts._replace(netloc=f"{user}:***@{host}")
        if "password" in urllib.parse.parse_qs(parts.query):  # (?password=... too)
            query = [
                f"{key}={'***' if key == 'password' else urllib.parse.quote(value, safe='/%')}"
                for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
            ]
            parts = parts._replace(query="&".join(query))
        return urllib.parse.urlunsplit(parts)

    def __repr__(self) -> str:
        return f"PostgresUrl({str(self)!r})"


Location = pathlib.Path | PostgresUrl
"""Where a store is: an SQLite file or a PostgreSQL database."""


def is_postgres(text: str | os.PathLike[str]) -> bool:
    """Whether ``text`` (a ``--db`` value) names a PostgreSQL database."""
    return isinstance(text, str) and text.startswith(POSTGRES_SCHEMES)


def location(text: str | os.PathLike[str] | PostgresUrl) -> Location:
    """The location ``text`` names: a `PostgresUrl` for a ``postgresql://`` (or
    ``postgres://``) URL, else an SQLite file path (``~`` expanded)."""
    if isinstance(text, PostgresUrl):
        return text
    if is_postgres(text):
        return PostgresUrl(str(text))
    return pathlib.Path(text).expanduser()


def exists(where: Location) -> bool:
    """Whether records may be there: an SQLite file that exists, or any PostgreSQL database
    (opening it says whether it can be reached)."""
    return isinstance(where, PostgresUrl) or where.exists()


def one_line(error: BaseException) -> str:
    """An error's text on one line (libpq's messages have several: a hint on the next)."""
    return " ".join(str(error).split())


def database_errors(*also: type[Exception]) -> tuple[type[Exception], ...]:
    """The exception classes of a database that cannot be used (unreachable, refused, locked,
    corrupt): SQLite's, and psycopg's once it is loaded (no psycopg error can be raised before
    it is imported: so call this in the ``except`` clause, which is evaluated when an error
    is raised), and ``also``'s."""
    errors: tuple[type[Exception], ...] = (sqlite3.Error, *also)
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        errors += (psycopg.Error,)
    return errors


@attrs.frozen
class Dialect:
    """The SQL fragments that differ between SQLite and PostgreSQL."""

    name: str
    float_type: str
    """A Unix time: SQLite's REAL is 8 bytes, PostgreSQL's only 4."""
    key_type: str
    """A game id: PostgreSQL compares in code-point order only with the "C" collation (the
    prefix range of `hub.records.store.RecordStore.ids` needs it)."""
    row_number: str
    """A column ``rowid`` (PostgreSQL has none of its own): the order of insertion that
    breaks ties of ``ended_at``."""
    without_rowid: str
    nocase_index: str
    """``{}``: a column, indexed without regard to case."""
    nocase_equal: str
    """``{}``: a column equal to a parameter without regard to case."""
    summary_from: str
    """The four JSON columns of a summary (scores, detail, the fault's termination, the final
    state as JSON text) and the FROM clause of ``games``."""


SQLITE = Dialect(
    name="sqlite",
    float_type="REAL",
    key_type="TEXT",
    row_number="",
    without_rowid=" WITHOUT ROWID",
    nocase_index="{} COLLATE NOCASE",
    nocase_equal="{} = ? COLLATE NOCASE",
    summary_from="""json_extract(record, '$.scores'), json_extract(record, '$.detail'),
           json_extract(fault, '$.termination'),
           json_quote(json_extract(record, '$.final_state'))
    FROM games""",
)

POSTGRESQL = Dialect(
    name="postgresql",
    float_type="DOUBLE PRECISION",
    key_type='TEXT COLLATE "C"',
    row_number="\n            rowid       BIGINT GENERATED ALWAYS AS IDENTITY,",
    without_rowid="",
    nocase_index="lower({})",
    nocase_equal="lower({}) = lower(?)",
    summary_from="""nullif((parsed.r -> 'scores')::text, 'null'), parsed.r ->> 'detail',
           fault::json ->> 'termination', (parsed.r -> 'final_state')::text
    FROM games CROSS JOIN LATERAL (SELECT games.record::json AS r) AS parsed""",
)


class Rows(Protocol):
    """What a query answers: rows one at a time or all at once (a DB-API cursor)."""

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(Protocol):
    """One connection to a records database, in autocommit mode."""

    dialect: Dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement (``?`` parameters)."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        ...

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """One write transaction: committed at the end of the block, rolled back on any
        error."""
        ...

    def lock_schema(self) -> None:
        """In a transaction: wait until no other process is migrating the schema."""
        ...

    def schema_version(self) -> int:
        """How many migrations have been applied."""
        ...

    def set_schema_version(self, version: int) -> None:
        """In a transaction: record that ``version`` migrations have been applied."""
        ...

    def close(self) -> None: ...


class SqliteDatabase:
    """An SQLite file: autocommit (we BEGIN ourselves), WAL, FULL sync, a busy timeout,
    foreign keys on (`open`)."""

    dialect = SQLITE

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SqliteDatabase:
        """Creates the file and its directories if needed."""
        path = pathlib.Path(path).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000):d}")
            _use_wal(db)
            db.execute("PRAGMA synchronous = FULL")
            db.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            db.close()
            raise
        return cls(db)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        return self.connection.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.connection.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` (take the write lock now, waiting up to the busy timeout)
        ... ``COMMIT``, or ``ROLLBACK`` on any error."""
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def lock_schema(self) -> None:
        """(``BEGIN IMMEDIATE`` has taken the only write lock already.)"""

    def schema_version(self) -> int:
        version: int = self.connection.execute("PRAGMA user_version").fetchone()[0]
        return version

    def set_schema_version(self, version: int) -> None:
        self.connection.execute(f"PRAGMA user_version = {version:d}")

    def close(self) -> None:
        self.connection.close()


def _use_wal(db: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another connection holds the lock.

    Switching a new database to WAL needs its exclusive lock, and SQLite can answer "database
    is locked" at once, without waiting out the busy timeout, when another process is
    switching or creating the same file (two programs recording to one new database at the
    same moment): so it is retried, with a growing pause, for up to `BUSY_SECONDS`."""
    deadline = time.monotonic() + BUSY_SECONDS
    pause = 0.001
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _postgres_sql(sql: str) -> str:
    """SQLite's ``?`` parameters as psycopg's ``%s`` (a literal ``%`` doubled). The store's
    SQL has no ``?`` or ``%`` inside a string literal."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresDatabase:
    """A PostgreSQL database through psycopg 3, in autocommit mode (the store opens its own
    transactions). The schema version is the one row of the table ``hub_schema``; migrations
    are serialised by an advisory lock (`SCHEMA_LOCK`). A commit returns once PostgreSQL has
    made it durable (its default ``synchronous_commit = on``)."""

    dialect = POSTGRESQL

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self.connection = connection

    @classmethod
    def open(cls, url: PostgresUrl) -> PostgresDatabase:
        """Connect; an `OSError` (as for a file that cannot be opened) if psycopg is not
        installed."""
        try:
            import psycopg
        except ImportError as exc:
            raise OSError(
                f"PostgreSQL needs psycopg: pip install 'psycopg[binary]' ({exc})"
            ) from exc

        options: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in url.url:
            options["connect_timeout"] = int(BUSY_SECONDS)
        return cls(psycopg.connect(url.url, **options))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        if not params:
            return self.connection.execute(sql.encode())  # (no parameters: no % to escape)
        return self.connection.execute(_postgres_sql(sql).encode(), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.connection.cursor() as cursor:
            cursor.executemany(_postgres_sql(sql).encode(), rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self.connection.transaction():
            yield

    def lock_schema(self) -> None:
        self.connection.execute(b"SELECT pg_advisory_xact_lock(%d)" % SCHEMA_LOCK)
        self.connection.execute(b"CREATE TABLE IF NOT EXISTS hub_schema (version INTEGER)")

    def schema_version(self) -> int:
        (table,) = self.connection.execute(b"SELECT to_regclass('hub_schema')").fetchone() or (
            None,
        )
        if table is None:
            return 0
        row = self.connection.execute(b"SELECT max(version) FROM hub_schema").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    def set_schema_version(self, version: int) -> None:
        self.connection.execute(b"DELETE FROM hub_schema")
        self.connection.execute(b"INSERT INTO hub_schema (version) VALUES (%d)" % version)

    def close(self) -> None:
        self.connection.close()


def open_database(where: Location) -> Database:
    """A connection to the database at ``where`` (an SQLite file is created if need be)."""
    if isinstance(where, PostgresUrl):
        return PostgresDatabase.open(where)
    return SqliteDatabase.open(where)
