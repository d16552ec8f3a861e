"""The records database: every finished game in one SQLite file (the default), or in one
PostgreSQL database shared by several processes (hub.records.database: one store, two backends).

One row of ``games`` per game holds the whole record as JSON (`hub.core.model.events.to_json`, so
nothing is lost and the record format can evolve) beside the columns the queries need; the
``players`` table indexes every seat's player by name and by identity (hub.core.model.identity)
for ``--player``. See docs/records.md.

* **Versioned schema.** ``PRAGMA user_version`` is the number of `MIGRATIONS` applied; opening
  a database applies the missing ones in order, each in its own ``BEGIN IMMEDIATE``
  transaction that re-reads the version first, so several processes opening one old file at
  once migrate it exactly once. A database from a newer hub is refused (`SchemaTooNew`).
* **Crash safety.** WAL journal with ``synchronous=FULL``: once `RecordStore.add` returns,
  the game survives the process being killed and also an OS crash or power loss (the WAL is
  fsynced at every commit); a transaction cut short leaves no trace.
* **Several writers.** Every write is one short ``BEGIN IMMEDIATE`` transaction and every
  connection waits up to `hub.records.database.BUSY_SECONDS` for the lock, so hub processes
  can record into one file at once; readers never wait for writers (WAL).

The same on PostgreSQL (`hub.records.database.PostgresDatabase`): the version is kept in the
table ``hub_schema`` and migrations are serialised by an advisory lock; a commit is durable when
it returns; any number of processes write at once. The SQL below is written once; where the
dialects differ, `Dialect` gives the fragment.

A `RecordStore` is one connection: use it from one thread at a time (it may move between
threads, as `record_games` moves it between trio's worker threads).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

from hub.core.model.events import GameRecord, record_from_json, to_json
from hub.core.model.identity import identity_of, seat_identities
from hub.core.model.referee import Termination
from hub.core.model.values import JSON, PlayerInfo
from hub.records.database import Database, Location, SqliteDatabase, location, open_database

Migration = Callable[[Database], None]
"""One step of the schema, written for both dialects (``db.dialect``)."""


class SchemaTooNew(sqlite3.DatabaseError):
    """The database was written by a newer hub (its schema version is unknown here)."""


def default_db_path() -> pathlib.Path:
    """``$HUB_DB`` if set, else ``$XDG_DATA_HOME/hub/games.db`` (``~/.local/share/hub/...``)."""
    explicit = os.environ.get("HUB_DB")
    if explicit:
        return pathlib.Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return pathlib.Path(data_home).expanduser() / "hub" / "games.db"


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _seats(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


@attrs.frozen
class GameSummary:
    """One line of a listing: a game without its moves and states."""

    game_id: str
    game: str
    players: tuple[str, ...] = attrs.field(converter=_names)
    result: str
    termination: str
    moves: int
    started_at: float
    ended_at: float
    match_id: str | None
    index: int | None
    winners: tuple[int, ...] = attrs.field(default=(), converter=_seats)
    """The winning seats (every seat of a draw), as in `GameRecord.winners`."""
    identities: tuple[str, ...] = attrs.field(default=(), converter=_names)
    """Each seat's player identity, two seats of one identity told apart by their seat
    (`hub.core.model.identity.seat_identities`)."""
    scores: tuple[float, ...] = attrs.field(default=(), converter=tuple)
    """Each seat's score in the game's own points (`GameRecord.scores`: stores, cards)."""
    detail: str = ""
    """How the rules ended it (`GameRecord.detail`: ``checkmate``)."""
    fault: str | None = None
    """The `Termination` value of the seat's fault that ended it, if one did."""
    final_state: JSON = None
    """The record's final state view (what names the seats at the end: Kalah's pie)."""


@attrs.frozen
class StoredGame:
    """A whole record as stored, with the match it belongs to (if any)."""

    record: GameRecord
    match_id: str | None = None
    index: int | None = None


# -- schema ------------------------------------------------------------------------------------


def _create_games(db: Database) -> None:
    """Version 1: the games, each with its whole record, and the indexes of the listings."""
    d = db.dialect
    db.execute(
        f"""
        CREATE TABLE games ({d.row_number}
            game_id     {d.key_type} PRIMARY KEY,
            game        TEXT NOT NULL,
            players     TEXT NOT NULL,   -- JSON: [{{"name", "kind", "spec"}} per seat]
            settings    TEXT NOT NULL,   -- JSON object
            result      TEXT NOT NULL,   -- GameRecord.result_text(): 1-0, 0-1, 1/2-1/2, ...
            winners     TEXT NOT NULL,   -- JSON: [seat, ...]
            termination TEXT NOT NULL,   -- Termination value: normal, timeout, ...
            fault       TEXT,            -- JSON FaultInfo or NULL
            moves       INTEGER NOT NULL,
            started_at  {d.float_type} NOT NULL,   -- Unix time
            ended_at    {d.float_type} NOT NULL,
            match_id    TEXT,
            match_index INTEGER,
            record      TEXT NOT NULL,   -- JSON: to_json(record), the whole game
            version     INTEGER NOT NULL -- GameRecord.version of ``record``
        )
        """
    )
    db.execute("CREATE INDEX games_by_end ON games (ended_at)")
    db.execute("CREATE INDEX games_by_game ON games (game, ended_at)")
    db.execute("CREATE INDEX games_by_match ON games (match_id, match_index)")


def _create_players(db: Database) -> None:
    """Version 2: every seat's player, indexed by name (case-insensitive) for ``--player``;
    derived data, filled from the records already stored."""
    d = db.dialect
    db.execute(
        f"""
        CREATE TABLE players (
            game_id {d.key_type} NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
            seat    INTEGER NOT NULL,
            name    TEXT NOT NULL,
            kind    TEXT NOT NULL,
            spec    TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        ){d.without_rowid}
        """
    )
    db.execute(f"CREATE INDEX players_by_name ON players ({d.nocase_index.format('name')})")
    rows = db.execute("SELECT game_id, players FROM games").fetchall()
    for game_id, players in rows:
        db.executemany(
            "INSERT INTO players (game_id, seat, name, kind, spec) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [
                (game_id, seat, player["name"], player.get("kind", ""), player.get("spec", ""))
                for seat, player in enumerate(json.loads(players))
            ],
        )


def _add_identities(db: Database) -> None:
    """Version 3: each seat's player identity (hub.core.model.identity) beside its name, indexed
    for ``--player``; filled from the records already stored (an older record's players have
    none: theirs is derived from kind, spec and name, `identity_of`)."""
    db.execute("ALTER TABLE players ADD COLUMN identity TEXT NOT NULL DEFAULT ''")
    index = db.dialect.nocase_index.format("identity")
    db.execute(f"CREATE INDEX players_by_identity ON players ({index})")
    rows = db.execute("SELECT game_id, game, players FROM games").fetchall()
    for game_id, game, players in rows:
        db.executemany(
            "UPDATE players SET identity = ? WHERE game_id = ? AND seat = ?",
            [(row[5], game_id, row[1]) for row in _player_rows(game_id, game, json.loads(players))],
        )


def _create_matches(db: Database) -> None:
    """Version 4: each ``hub match``'s seed (`RecordStore.keep_match_seed`), which stays in
    the database: a game's record shows only its own seeds, from which no other game's
    deal follows, and ``--resume`` reads the match's seed here."""
    db.execute(
        f"""
        CREATE TABLE matches (
            match_id TEXT PRIMARY KEY,
            seed     TEXT NOT NULL  -- (any size of integer, as text)
        ){db.dialect.without_rowid}
        """
    )


def _create_names(db: Database) -> None:
    """Version 5: the registered names (bots' and people's: hub.records.identities), each
    with the SHA-256 of its token, never the token; ``key`` is the name in lower case (one
    name whatever its case, in both dialects)."""
    d = db.dialect
    db.execute(
        f"""
        CREATE TABLE names (
            key        TEXT NOT NULL PRIMARY KEY,   -- the name in lower case
            name       TEXT NOT NULL,   -- as registered
            kind       TEXT NOT NULL,   -- bot (hub bots add) or person (the lobby page)
            token_hash TEXT NOT NULL,   -- hex SHA-256 of the token
            created_at {d.float_type} NOT NULL    -- Unix time
        ){d.without_rowid}
        """
    )


MIGRATIONS: tuple[Migration, ...] = (
    _create_games,
    _create_players,
    _add_identities,
    _create_matches,
    _create_names,
)
"""Migration N (from 0) takes a database from version N to N + 1; only ever append. Each is
written for both dialects (`hub.records.database.Dialect`)."""

SCHEMA_VERSION = len(MIGRATIONS)

_INSERT_GAME = """
    INSERT INTO games (game_id, game, players, settings, result, winners, termination, fault,
                       moves, started_at, ended_at, match_id, match_index, record, version)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (game_id) DO UPDATE SET
        match_id = coalesce(games.match_id, excluded.match_id),
        match_index = coalesce(games.match_index, excluded.match_index)
"""
_INSERT_PLAYER = (
    "INSERT INTO players (game_id, seat, name, kind, spec, identity) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)


def _summary_select(db: Database) -> str:
    return f"""
    SELECT game_id, game, players, result, termination, moves, started_at, ended_at,
           match_id, match_index, winners,
           {db.dialect.summary_from}
    """


PlayerRow = tuple[str, int, str, str, str, str]
"""game_id, seat, name, kind, spec, identity."""


def _player_info(player: JSON) -> PlayerInfo:
    return PlayerInfo(
        player["name"], player.get("kind", ""), player.get("spec", ""), player.get("identity", "")
    )


def _player_rows(game_id: str, game: str, players: Sequence[JSON]) -> list[PlayerRow]:
    rows = []
    for seat, player in enumerate(players):
        info = _player_info(player)
        rows.append((game_id, seat, info.name, info.kind, info.spec, identity_of(info, game)))
    return rows


def _dumps(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


PLAYED_ON = "adjourned_at"
"""The record setting of an adjourned game played on (hub.declared.adjourned): its record
replaces the adjourned one, an aborted row of the same id (one game, every move)."""
_REPLACE_ADJOURNED = (
    "DELETE FROM players WHERE game_id IN "
    "(SELECT game_id FROM games WHERE game_id = ? AND termination = ?)",
    "DELETE FROM games WHERE game_id = ? AND termination = ?",
)


@attrs.frozen
class _Row:
    """A record made ready for the database (JSON done outside the transaction)."""

    game: tuple[Any, ...]
    players: list[PlayerRow]
    replaces: bool = False
    """An adjourned game played on (`PLAYED_ON`): the aborted row of its id is removed first."""


def _row(record: GameRecord, match_id: str | None, index: int | None) -> _Row:
    data = to_json(record)
    game = (
        record.game_id,
        record.game,
        _dumps(data["players"]),
        _dumps(data["settings"]),
        record.result_text(),
        _dumps(data["winners"]),
        record.termination.value,
        None if data["fault"] is None else _dumps(data["fault"]),
        len(record.moves),
        record.started_at,
        record.ended_at,
        match_id,
        index,
        _dumps(data),
        record.version,
    )
    players = _player_rows(record.game_id, record.game, data["players"])
    return _Row(game, players, PLAYED_ON in record.settings)


@contextlib.contextmanager
def _transaction(db: Database) -> Iterator[None]:
    """One write transaction (`Database.transaction`)."""
    with db.transaction():
        yield


def schema_version(db: Database | sqlite3.Connection) -> int:
    """How many migrations ``db`` has had (an SQLite connection: its ``user_version``)."""
    if isinstance(db, sqlite3.Connection):
        return SqliteDatabase(db).schema_version()
    return db.schema_version()


def migrate(db: Database, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring ``db`` up to ``len(migrations)``, one transaction per step; the version reached.

    Safe against other processes migrating the same database: each step re-reads the
    version under the schema lock and skips what another process has done meanwhile.
    """
    target = len(migrations)
    while True:
        version = db.schema_version()
        if version > target:
            raise SchemaTooNew(
                f"the records database has schema version {version}; this hub knows up to "
                f"{target} (it was written by a newer hub)"
            )
        if version == target:
            return version
        with db.transaction():
            db.lock_schema()
            version = db.schema_version()
            if version < target:
                migrations[version](db)
                db.set_schema_version(version + 1)


def connect(path: str | os.PathLike[str]) -> SqliteDatabase:
    """An SQLite connection as every store uses it (`SqliteDatabase.open`): autocommit (we
    BEGIN ourselves), WAL, FULL sync, a busy timeout, foreign keys on. Creates the file and
    its directories if needed."""
    return SqliteDatabase.open(path)


def _prefix_bounds(prefix: str) -> tuple[str, str]:
    """``game_id >= low AND game_id < high`` selects the ids starting with ``prefix`` (an
    index range; the highest code point sorts after every character that can follow)."""
    return prefix, prefix + "\U0010ffff"


def _limit(limit: int | None) -> tuple[str, tuple[int, ...]]:
    """A LIMIT clause and its parameter (none: every row)."""
    return ("", ()) if limit is None else (" LIMIT ?", (limit,))


class RecordStore:
    """The records database at one location (`open` it; `close` it, or use ``with``): an
    SQLite file or a PostgreSQL database (hub.records.database)."""

    def __init__(self, db: Database, path: Location) -> None:
        self._db = db
        self.path = path
        """Where it is (shown in messages: a PostgreSQL URL without its password)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str] | Location) -> RecordStore:
        """Open (an SQLite file: creating it and its directories if needed) and migrate the
        schema. ``path`` is a file or a ``postgresql://`` URL (`location`)."""
        where = location(path)
        db = open_database(where)
        try:
            migrate(db)
        except BaseException:
            db.close()
            raise
        return cls(db, where)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------

    def add(
        self, record: GameRecord, *, match_id: str | None = None, index: int | None = None
    ) -> None:
        """Store one game in one transaction. Idempotent on ``record.game_id``: a second add
        of the same game changes nothing, except that it fills in a ``match_id``/``index``
        the first add did not know (an event subscriber may record a match's game first),
        and that an adjourned game played on (its settings have `PLAYED_ON`) replaces the
        aborted record of its id."""
        self._add_rows([_row(record, match_id, index)])

    def add_all(self, records: Iterable[GameRecord]) -> None:
        """Store several games (no match) in one transaction, each as `add` would. A record
        that cannot be written as JSON raises (`TypeError`/`ValueError`) before anything is
        written."""
        self._add_rows([_row(record, None, None) for record in records])

    def _add_rows(self, rows: Sequence[_Row]) -> None:
        if not rows:
            return
        with _transaction(self._db):
            for row in rows:
                if row.replaces:
                    for statement in _REPLACE_ADJOURNED:
                        self._db.execute(statement, (row.game[0], Termination.ABORTED.value))
                self._db.execute(_INSERT_GAME, row.game)
                self._db.executemany(_INSERT_PLAYER, row.players)

    def keep_match_seed(self, match_id: str, seed: int) -> None:
        """Keep ``hub match``'s seed of ``match_id`` (the first one kept stays): secret while
        the match runs (every game's opening and seeds follow from it), read by
        ``--resume`` (`match_seed`)."""
        with _transaction(self._db):
            self._db.execute(
                "INSERT INTO matches (match_id, seed) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (match_id, str(seed)),
            )

    def match_seed(self, match_id: str) -> int | None:
        """The seed kept for ``match_id`` (None: none was, as for a match recorded before
        seeds were kept)."""
        row = self._db.execute("SELECT seed FROM matches WHERE match_id = ?", (match_id,))
        found = row.fetchone()
        return None if found is None else int(found[0])

    # -- reading ---------------------------------------------------------------------------

    def get(self, game_id: str) -> GameRecord | None:
        """The game ``game_id``, or the one game whose id starts with it; None if there is
        no such game or the prefix is ambiguous (`ids` lists the candidates)."""
        stored = self.stored(game_id)
        return None if stored is None else stored.record

    def stored(self, game_id: str) -> StoredGame | None:
        """`get` with the game's match."""
        found = self.ids(game_id, limit=2)
        if not found or (len(found) == 2 and found[0] != game_id):
            return None
        row = self._db.execute(
            "SELECT record, match_id, match_index FROM games WHERE game_id = ?", (found[0],)
        ).fetchone()
        return _stored(row)

    def ids(self, prefix: str, *, limit: int | None = None) -> list[str]:
        """The ids that start with ``prefix``, an exact match first, at most ``limit``."""
        if not prefix:
            return []
        low, high = _prefix_bounds(prefix)
        limited, count = _limit(limit)
        rows = self._db.execute(
            "SELECT game_id FROM games WHERE game_id >= ? AND game_id < ? "
            f"ORDER BY game_id != ?, game_id{limited}",
            (low, high, prefix, *count),
        )
        return [game_id for (game_id,) in rows]

    def games(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        match_id: str | None = None,
        limit: int | None = None,
        termination: str | None = None,
    ) -> list[GameSummary]:
        """Summaries of the games that match every filter given, newest (by end) first.
        ``player`` is a player's name, case-insensitive; ``termination`` a `Termination`
        value (``aborted``: the adjourned games among them)."""
        where, params = _filters(self._db, game, player, match_id, termination)
        limited, count = _limit(limit)
        rows = self._db.execute(
            f"{_summary_select(self._db)} {where} ORDER BY ended_at DESC, rowid DESC{limited}",
            (*params, *count),
        )
        return [_summary(row) for row in rows]

    def records(
        self, *, game: str | None = None, player: str | None = None, match_id: str | None = None
    ) -> Iterator[StoredGame]:
        """The whole records of the matching games, oldest (by end) first, read lazily."""
        where, params = _filters(self._db, game, player, match_id)
        rows = self._db.execute(
            f"SELECT record, match_id, match_index FROM games {where} ORDER BY ended_at, rowid",
            params,
        )
        for row in rows:
            yield _stored(row)

    def finished_indices(self, match_id: str) -> set[int]:
        """The indices of the games of ``match_id`` that are recorded as finished (for
        ``hub match --resume``; an aborted game, if one was stored, does not count)."""
        rows = self._db.execute(
            "SELECT match_index FROM games WHERE match_id = ? AND match_index IS NOT NULL "
            "AND termination != ?",
            (match_id, Termination.ABORTED.value),
        )
        return {index for (index,) in rows}

    def count(self) -> int:
        (count,) = self._db.execute("SELECT count(*) FROM games").fetchone()
        return int(count)


def _filters(
    db: Database,
    game: str | None,
    player: str | None,
    match_id: str | None,
    termination: str | None = None,
) -> tuple[str, tuple[Any, ...]]:
    clauses: list[str] = []
    params: list[Any] = []
    if termination is not None:
        clauses.append("termination = ?")
        params.append(termination)
    if game is not None:
        clauses.append("game = ?")
        params.append(game)
    if player is not None:
        equal = db.dialect.nocase_equal
        clauses.append(
            f"game_id IN (SELECT game_id FROM players WHERE {equal.format('name')} "
            f"UNION SELECT game_id FROM players WHERE {equal.format('identity')})"
        )
        params.extend((player, player))
    if match_id is not None:
        clauses.append("match_id = ?")
        params.append(match_id)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    return where, tuple(params)


def _stored(row: Sequence[Any]) -> StoredGame:
    text, match_id, index = row
    return StoredGame(record_from_json(json.loads(text)), match_id, index)


def _summary(row: Sequence[Any]) -> GameSummary:
    columns, from_record = row[:11], row[11:]  # the record's JSON (`_summary_select`)
    (game_id, game, players, result, termination, moves, started, ended, match, index, won) = (
        columns
    )
    scores, detail, fault, final_state = from_record
    infos = [_player_info(player) for player in json.loads(players)]
    return GameSummary(
        game_id=game_id,
        game=game,
        players=[info.name for info in infos],
        result=result,
        termination=termination,
        moves=moves,
        started_at=started,
        ended_at=ended,
        match_id=match,
        index=index,
        winners=json.loads(won),
        identities=seat_identities(game, infos),
        scores=json.loads(scores) if scores else (),
        detail=detail or "",
        fault=fault,
        final_state=json.loads(final_state) if final_state else None,
    )
