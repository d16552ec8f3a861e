"""Recording a command's games: `record_games` in the command's nursery, never at its expense.

Every ``hub`` command that plays games records them (``--db PATH``, ``--no-record``); the
standalone spec programs (``clubhub``, ``uqchessserver``) only when ``$HUB_DB`` names a
database (`environment_record_path`), so that their specified behaviour is unchanged.
A database that cannot be opened costs one line on stderr, and the games go on unrecorded.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING

import trio

from hub.core.io.output import write_all
from hub.core.model.bus import EventBus

if TYPE_CHECKING:  # (a command that does not record never imports the database)
    from hub.core.model.events import GameRecord
    from hub.records.database import Location

ENVIRONMENT = "HUB_DB"
"""The database of the programs whose command line a spec fixes (also `default_db_path`'s)."""


def environment_record_path(environ: Mapping[str, str] | None = None) -> Location | None:
    """The database ``$HUB_DB`` names (a file or a ``postgresql://`` URL), or None when it is
    unset or empty (do not record)."""
    value = (os.environ if environ is None else environ).get(ENVIRONMENT, "")
    if not value:
        return None
    from hub.records.database import location

    return location(value)


async def start_recording(
    nursery: trio.Nursery, bus: EventBus, path: Location | None, *, prog: str
) -> bool:
    """Record every game that ends on ``bus`` into ``path`` (None: do nothing), as a task of
    ``nursery``; False, after one line on stderr, if the database cannot be opened."""
    problem = await open_recording(nursery, bus, path, prog=prog)
    report(problem)
    return path is not None and problem is None


async def open_recording(
    nursery: trio.Nursery,
    bus: EventBus,
    path: Location | None,
    *,
    prog: str,
    keep: Callable[[GameRecord], bool] | None = None,
) -> str | None:
    """`start_recording` that does not write its line yet: the line (to `report` later), or
    None. A server opens its database *before* it prints its port (a signal sent once the
    port is out then never lands in the middle of importing or opening it) and reports a
    database it cannot use after the port, where its stderr has always said so. ``keep``:
    which ended games to write (default: the finished ones, `hub.records.writer.finished`)."""
    if path is None:
        return None
    from hub.records.database import database_errors, one_line
    from hub.records.writer import record_games

    try:
        if keep is None:
            await nursery.start(record_games, bus, path)
        else:
            await nursery.start(functools.partial(record_games, bus, path, keep=keep))
    except database_errors(OSError) as exc:
        problem = one_line(exc)
        return f"{prog}: cannot record games in {path} ({problem}); playing on without recording"
    return None


def report(problem: str | None) -> None:
    """Write `open_recording`'s line, if any, on stderr."""
    if problem is not None:
        write_all(2, f"{problem}\n".encode("utf-8", "replace"))


@contextlib.asynccontextmanager
async def recording(bus: EventBus, path: Location | None, *, prog: str) -> AsyncIterator[bool]:
    """`start_recording` for the duration of the block (whether it records); on the way out
    the games that ended in the block are written (`record_games` drains when cancelled)."""
    async with trio.open_nursery() as nursery:
        try:
            yield await start_recording(nursery, bus, path, prog=prog)
        finally:
            nursery.cancel_scope.cancel()
