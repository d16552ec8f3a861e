"""Every game type yields the same shape of record at its end (players, settings, moves in
the game's own notation, result, termination, times), played through each game's TournamentKit."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord, to_json
from hub.core.play.kit import GameSpec
from hub.declared.plugin import discover_games


def kit_record(
    game: str, players: tuple[str, ...], args: list[str]
) -> tuple[GameRecord, list[GameEnded]]:
    plugin = discover_games()[game]
    assert plugin.match is not None, f"{game} offers no TournamentKit"
    kit = plugin.match()
    parser = argparse.ArgumentParser()
    kit.add_options(parser)
    settings = kit.settings(parser.parse_args(args))
    opening = kit.openings(settings, 1, seed=7)[0]
    spec = GameSpec(f"shape-{game}", settings, players, opening)
    bus = EventBus()
    ended: list[GameEnded] = []
    bus.listen(lambda event: ended.append(event) if isinstance(event, GameEnded) else None)

    async def main() -> GameRecord:
        with trio.fail_after(120):
            return await kit.play(spec, bus)

    return trio.run(main), ended


CASES: list[tuple[str, tuple[str, ...], list[str]]] = [
    ("clubs", ("clubber", "clubber", "clubber"), ["--winscore", "5"]),
    ("kalah", ("ai:1", "ai:2"), ["--holes", "4", "--seeds", "3"]),
    ("chess", ("ai:1", "ai:1"), ["--tc", "2+0.05", "--max-plies", "40"]),
]


def shape(value: Any) -> Any:
    """The keys and value types of a JSON value, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


TOP = {
    "game_id", "game", "settings", "players", "time_controls", "initial_state", "moves",
    "final_state", "scores", "winners", "termination", "fault", "started_at", "ended_at",
    "thinking", "version",
}  # fmt: skip


@pytest.mark.parametrize(("game", "players", "args"), CASES, ids=[case[0] for case in CASES])
def test_a_kit_game_ends_with_a_full_record(
    game: str, players: tuple[str, ...], args: list[str]
) -> None:
    record, ended = kit_record(game, players, args)
    assert [event.record for event in ended] == [record]
    data = to_json(record)
    json.dumps(data)
    assert set(data) >= TOP
    assert data["game"] == game and data["game_id"] == f"shape-{game}"
    assert len(data["players"]) == len(players) == len(data["scores"]) == len(data["thinking"])
    assert data["moves"], "a whole game has moves"
    move = shape(data["moves"][0])
    assert move == {"seat": "int", "move": "str", "elapsed": "float", "state": move["state"]}
    assert data["ended_at"] >= data["started_at"] > 0
    assert data["termination"] == "normal"
    assert data["moves"][-1]["state"] == data["final_state"]


def test_every_game_type_has_the_same_record_keys() -> None:
    keys = []
    for game, players, args in CASES:
        record, _ = kit_record(game, players, args)
        data = to_json(record)
        keys.append((set(data), set(data["players"][0]), {k for m in data["moves"] for k in m}))
    assert all(each == keys[0] for each in keys)
