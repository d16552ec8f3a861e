"""The records options every recording command shares: ``--db PATH`` and ``--no-record``."""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (argparse and sqlite3 are not imported by a command that only plays)
    import argparse

DB_HELP = (
    "the records database (default: $HUB_DB if set, else "
    "$XDG_DATA_HOME/hub/games.db, i.e. ~/.local/share/hub/games.db)"
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


def db_path(options: argparse.Namespace) -> pathlib.Path:
    """The database ``--db`` names, else the default one."""
    return db_path_from(getattr(options, "db", None))


def db_path_from(chosen: str | None) -> pathlib.Path:
    """The database at ``chosen`` (a ``--db`` value), else the default one."""
    if chosen:
        return pathlib.Path(chosen).expanduser()
    from hub.records.store import default_db_path

    return default_db_path()


def record_path(options: argparse.Namespace) -> pathlib.Path | None:
    """Where to record (`db_path`), or None with ``--no-record``."""
    if getattr(options, "no_record", False):
        return None
    return db_path(options)
