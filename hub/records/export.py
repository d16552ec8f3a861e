"""Records out: JSON lines for every game (pure). A game's own formats (PGN for chess) are
its declaration's `hub.core.play.game.Game.exports`."""

from __future__ import annotations

import json

from hub.core.model.events import GameRecord, to_json


def jsonl_line(record: GameRecord) -> str:
    """One record as one line of JSON (`hub.core.model.events.to_json`)."""
    return json.dumps(to_json(record), separators=(",", ":"), ensure_ascii=False)
