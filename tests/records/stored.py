"""What a database holds, for the tests of the commands that record their games."""

from __future__ import annotations

from pathlib import Path

from hub.core.model.events import GameRecord
from hub.records import RecordStore


def stored_records(path: Path) -> list[GameRecord]:
    """Every game recorded at ``path``, oldest first; none if there is no database."""
    if not path.exists():
        return []
    store = RecordStore.open(path)
    try:
        records = [store.get(summary.game_id) for summary in reversed(store.games())]
    finally:
        store.close()
    return [record for record in records if record is not None]
