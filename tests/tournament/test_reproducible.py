"""A match replays with ``--seed`` (issue 26, item 7): the same openings and the same
built-in players' random choices (``random``, ``ai:N``: their seeds come from the match's
seed, the game's index and the seat, not from the match id), so two runs of a field of
built-in players play the same games move for move; another seed plays others. Each
finished record keeps its game's seeds; no record holds the match's seed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hub.records import RecordStore
from tests.conftest import program
from tests.tournament.helpers import ROOT, environment


def games(db: Path, seed: int) -> list[list[tuple[int, str]]]:
    """The moves of each game of ``hub match connect4 random ai:1 --games 6 --seed SEED``."""
    done = subprocess.run(
        [program("hub"), "match", "connect4", "random", "ai:1", "--games", "6", "--seed",
         str(seed), "--tc", "none", "--json", "--db", str(db)],
        capture_output=True, text=True, env=environment(), cwd=ROOT, timeout=120, check=True,
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert report["scored"] == 6
    with RecordStore.open(db) as store:
        summaries = store.games(match_id=report["match_id"])
        records = [store.get(summary.game_id) for summary in summaries]
    moves = []
    for record in sorted(records, key=lambda record: record.game_id if record else ""):
        assert record is not None
        seeds = record.settings["seeds"]
        assert set(seeds) == {"players", "chance"} and seed not in seeds.values()
        assert set(record.settings["opening"]) == {"seed", "moves"}  # whole, once it is over
        moves.append([(move.seat, move.move) for move in record.moves])
    return moves


@pytest.mark.system
def test_the_same_seed_replays_the_match_and_another_does_not(tmp_path: Path) -> None:
    first = games(tmp_path / "one.db", 5)
    assert games(tmp_path / "two.db", 5) == first
    assert games(tmp_path / "three.db", 6) != first
