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


def test_without_seed_a_match_keeps_a_secret_one_for_resume(tmp_path: Path) -> None:
    """The default seed is not taken from the match id (every game id shows it, and every
    deal would follow from it): a secret one, kept in the database, which ``--resume``
    reads; a match recorded before seeds were kept resumes with the seed of its id."""
    from hub.core.io.output import Output
    from hub.tournament.cli import Setup, build_parser
    from hub.tournament.schedule import seed_of
    from hub.tournament.worker import load_kit

    kit, db = load_kit("connect4"), tmp_path / "games.db"

    def setup(*extra: str) -> Setup:
        arguments = ["connect4", "ai:1", "random", "--db", str(db), *extra]
        return Setup(build_parser(kit).parse_args(arguments), kit)

    seeds = [setup() for _ in range(3)]
    assert len({one.seed for one in seeds}) == 3
    assert all(one.seed != seed_of(one.match_id) for one in seeds)
    first = seeds[0]
    first.open_store(Output(2))  # (keeps the seed; no resume: nothing else is written)
    assert first.store is not None
    first.close()
    resumed = setup("--resume", first.match_id)
    assert resumed.seed == first.seed
    assert [s.spec for s in resumed.schedule.games] == [s.spec for s in first.schedule.games]
    older = "0123abcd" + "0" * 24
    assert setup("--resume", older).seed == seed_of(older)


async def test_chance_during_play_follows_the_games_chance_seed() -> None:
    """High Cards (every card dealt or drawn is chance's) through the one kit: a game's
    chance draws from its `GameSpec.chance_seed` (the same seed, the same cards; another,
    others), `GameStarted` shows neither the seeds nor the opening, and the finished
    record keeps both."""
    from hub.core.model.bus import EventBus
    from hub.core.model.events import GameStarted
    from hub.core.play.chance import CHANCE
    from hub.core.play.kit import GameSpec
    from hub.declared.kit import DeclaredKit
    from tests.declared.game_cards import HighCards

    kit = DeclaredKit(HighCards)
    assert kit.deals()
    opening = kit.openings({"tc": "none"}, 1, 3)[0]
    started: list[GameStarted] = []

    async def cards(chance_seed: int) -> list[str]:
        bus = EventBus()
        bus.listen(lambda event: started.append(event) if isinstance(event, GameStarted) else None)
        spec = GameSpec(
            "m-00000", {"tc": "none"}, ("random", "random"), opening, 0, 11, chance_seed
        )
        record = await kit.play(spec, bus)
        assert record.settings["opening"] == opening
        assert record.settings["seeds"] == {"players": 11, "chance": chance_seed}
        return [move.move for move in record.moves if move.seat == CHANCE]

    first = await cards(7)
    assert await cards(7) == first
    assert await cards(8) != first
    assert started and all(event.settings["opening"] is None for event in started)
    assert all("seeds" not in event.settings for event in started)
