"""Records: every finished game in an SQLite database (or a PostgreSQL one that several
processes share), and ``hub games`` to look at them.

* `RecordStore` (store.py): the database: versioned schema, WAL, idempotent `add`, queries;
* database.py: the two backends behind one connection interface (`location` tells a file
  from a ``postgresql://`` URL);
* waiting.py: the waiting queue's shared part for several ``hub serve`` processes on one
  PostgreSQL (state, not records; docs/postgres.md);
* `record_games` (writer.py): the event-stream subscriber that writes each game as it ends,
  off the event loop;
* `add_record_options` / `record_path` (options.py): ``--db PATH`` and ``--no-record``;
* `recording` / `start_recording` / `environment_record_path` (recording.py): a command's
  games recorded in its nursery (an unusable database is one line on stderr);
* `results` (results.py): the one rule that turns a game into results, which ``stats``
  and ``ratings`` both count with;
* `fit` (elo.py): the rating list (maximum-likelihood Elo, draw parameter, first-move
  advantage, groups that never met);
* `IdentityStore` / `NameBook` (identities.py): the registered names of bots and people,
  each with the hash of its token; bots.py: ``hub bots add|list|remove``;
* `LeaderboardReader` (leaderboard.py): a game's leaderboard (the rating list of its games
  between registered names and built-in players) and a registered player's page;
* cli.py: ``hub games history|show|export|stats|ratings``.

See docs/records.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hub.records.options import add_db_option, add_record_options, db_path, record_path
    from hub.records.recording import environment_record_path, recording, start_recording
    from hub.records.store import (
        GameSummary,
        RecordStore,
        SchemaTooNew,
        StoredGame,
        default_db_path,
    )
    from hub.records.writer import record_games

_HOME = {
    "add_db_option": "options",
    "add_record_options": "options",
    "db_path": "options",
    "record_path": "options",
    "environment_record_path": "recording",
    "recording": "recording",
    "start_recording": "recording",
    "GameSummary": "store",
    "RecordStore": "store",
    "SchemaTooNew": "store",
    "StoredGame": "store",
    "default_db_path": "store",
    "record_games": "writer",
}
"""Where each name lives: imported on first use, so that a command importing one light module
(``hub.records.options``) does not pay for sqlite3 and the writer (start-up time)."""


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'hub.records' has no attribute {name!r}")
    return getattr(import_module(f"hub.records.{module}"), name)


__all__ = [
    "GameSummary",
    "RecordStore",
    "SchemaTooNew",
    "StoredGame",
    "add_db_option",
    "add_record_options",
    "db_path",
    "default_db_path",
    "environment_record_path",
    "record_games",
    "record_path",
    "recording",
    "start_recording",
]
