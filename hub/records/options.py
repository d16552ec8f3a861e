"""The records options every recording command shares: ``--db PATH`` and ``--no-record``.

``--db`` (and ``$HUB_DB``) names an SQLite file or, as a ``postgresql://`` URL, a PostgreSQL
database that several processes share (hub.records.database); the value is a `Location`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (argparse and sqlite3 are not imported by a command that only plays)
    import argparse

    from hub.records.database import Location

DB_HELP = (
    "the records database (default: $HUB_DB if set, else "
    "$XDG_DATA_HOME/hub/games.db, i.e. ~/.local/share/hub/games.db); a URL "
    "postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME names a PostgreSQL database, which "
    "several hub processes share"
)


def add_db_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--db PATH`` (default: `default_db_path`, resolved when the command runs)."""
    parser.add_argument("--db", metavar="PATH", default=None, help=DB_HELP)


def add_record_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--db PATH`` and ``--no-record`` for a command that records its games."""
    add_db_option(parser)
    parser.add_argument(
        "--no-record",
        action="store_true",
        help="do not record the games in the database (default: record every finished game)",
    )


def db_path(options: argparse.Namespace) -> Location:
    """The database ``--db`` names, else the default one."""
    return db_path_from(getattr(options, "db", None))


def db_path_from(chosen: str | None) -> Location:
    """The database at ``chosen`` (a ``--db`` value: a file or a ``postgresql://`` URL), else
    the default one (``$HUB_DB``, which may be a URL too; else the default file)."""
    from hub.records.database import location

    if chosen:
        return location(chosen)
    explicit = os.environ.get("HUB_DB", "")
    if explicit:
        return location(explicit)
    from hub.records.store import default_db_path

    return default_db_path()


def record_path(options: argparse.Namespace) -> Location | None:
    """Where to record (`db_path`), or None with ``--no-record``."""
    if getattr(options, "no_record", False):
        return None
    return db_path(options)
