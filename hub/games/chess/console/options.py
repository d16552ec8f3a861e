"""The console's options as one value (`ConsoleOptions`) and the budgets they default to."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import attrs

from hub.chess.search import Limits
from hub.records.options import record_path

if TYPE_CHECKING:
    from hub.records.database import Location

SEEDED_NODES = 40_000
"""Level 4's budget with ``--seed``: 0.5-0.8 s a move on the reference machine (docs/chess.md)."""
DEFAULT_MOVETIME_MS = 1000
MAX_MOVETIME_MS = 3_600_000
MAX_NODES = 100_000_000


@attrs.frozen
class ConsoleOptions:
    classic: bool = False
    gui: bool = False
    """Serve the graphical display (a live page in the browser, hub.web) on a free port."""
    seed: int | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    db: str | None = None
    """The records database (``--db PATH``); None: hub.records' default."""
    no_record: bool = False
    """``--no-record``: the games are not written to the database."""

    @property
    def record_path(self) -> Location | None:
        """Where `main` records every finished game; None with ``--no-record``."""
        return record_path(argparse.Namespace(db=self.db, no_record=self.no_record))

    @property
    def limits(self) -> Limits:
        """Level 4's (and ``hint``'s) budget per move."""
        if self.nodes is not None:
            return Limits(nodes=self.nodes)
        if self.seed is not None and self.movetime_ms is None:
            return Limits(nodes=SEEDED_NODES)
        return Limits(movetime=(self.movetime_ms or DEFAULT_MOVETIME_MS) / 1000)
