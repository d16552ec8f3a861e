"""``hub match clubs``: every game's `TournamentKit` (hub.declared.kit) with the clubs
declaration's match hooks (hub.games.clubs.game, hub.games.clubs.match): options, players,
openings, and whole games between real player programs through the core match loop,
including players that fail.

Games are checked against the independent reference in `tests.clubs.helpers.simulate`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.core.play.kit import GameSpec
from hub.declared.kit import DeclaredKit
from hub.games.clubs.cards import CARD_TEXT
from hub.games.clubs.codec import ClubsSettings
from hub.games.clubs.game import ClubsGame
from hub.games.clubs.match import opening_decks, read_decks
from hub.games.clubs.plugin import plugin
from tests.clubs.helpers import DECKS, SPEC_EXAMPLE, fake_player, simulate, write_script
from tests.conftest import program

kit = DeclaredKit(ClubsGame)
SORTED = SPEC_EXAMPLE / "one-sorted-deck.decks"
GAME_TIMEOUT = 30.0
HANG_LIMIT_MS = 2000
"""The time limit where a test waits for a player that never answers."""


def options(*args: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    kit.add_options(parser)
    return parser.parse_args(list(args))


def settings(*args: str) -> dict[str, Any]:
    return kit.settings(options(*args))


def spec(
    players: list[str], settings: dict[str, Any], opening: Any = None, game_id: str = "g1"
) -> GameSpec:
    return GameSpec(game_id, settings, tuple(players), opening)


async def play(game: GameSpec) -> tuple[GameRecord, list[Event]]:
    bus = EventBus()
    events: list[Event] = []
    bus.listen(events.append)
    with trio.fail_after(GAME_TIMEOUT):
        record = await kit.play(game, bus)
    return record, events


def reference_moves(
    decks: list[tuple[int, ...]], players: int, winscore: int, strategies: list[str]
) -> list[tuple[int, str]]:
    """(seat, card) of every card the reference plays, from its transcript."""
    game = simulate([[CARD_TEXT[c] for c in deck] for deck in decks], players, winscore, strategies)
    return [(seat, game.stdout[line].rsplit(" ", 1)[1]) for seat, line in game.moves]


# -- registration, options and settings ------------------------------------------------------


def test_the_plugin_offers_the_kit() -> None:
    assert plugin.match is not None
    offered = plugin.match()
    assert isinstance(offered, DeclaredKit)
    assert offered.game is ClubsGame
    assert kit.seats == (2, 4)


def test_default_settings_are_self_contained_json() -> None:
    got = settings()
    assert json.loads(json.dumps(got)) == got
    assert got["deck_name"] == "ex.decks"
    assert (got["winscore"], got["time_ms"]) == (20, 10_000)
    expected = read_decks(str(DECKS / "ex.decks"))
    assert [[CARD_TEXT[c] for c in deck] for deck in expected] == got["decks"]
    assert ClubsSettings.from_json(got).to_json() == got


def test_settings_from_options(tmp_path: Path) -> None:
    got = settings("--deck", str(SORTED), "--winscore", "007", "--time-ms", "0")
    assert (got["deck_name"], got["winscore"], got["time_ms"], len(got["decks"])) == (
        "one-sorted-deck.decks",
        7,
        0,
        1,
    )
    assert got["decks"][0][:3] == ["2S", "3S", "4S"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--winscore", "0"], "--winscore"),
        (["--winscore", "3biscuit"], "--winscore"),
        (["--time-ms", "-5"], "--time-ms"),
        (["--deck", "/nonexistent/file.decks"], "cannot read deck file"),
        (["--deck", "BAD"], "is not a card"),
    ],
)
def test_bad_options_are_readable_errors(args: list[str], message: str, tmp_path: Path) -> None:
    bad = tmp_path / "bad.decks"
    bad.write_text("2S,1S\n")
    args = [str(bad) if arg == "BAD" else arg for arg in args]
    with pytest.raises(ValueError, match=message):
        settings(*args)


@pytest.mark.parametrize(
    "broken",
    [
        {"decks": []},
        {"decks": [["2S"] * 51]},
        {"decks": [["1S"] * 52]},
        {"decks": "2S"},
        {"decks": [["2S"] * 52], "winscore": 0},
        {"decks": [["2S"] * 52], "winscore": True},
        {"decks": [["2S"] * 52], "time_ms": "10"},
        {"decks": [["2S"] * 52], "deck_name": 3},
    ],
)
def test_settings_from_json_refuse_nonsense(broken: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ClubsSettings.from_json(broken)


# -- players ---------------------------------------------------------------------------------


def test_check_player(tmp_path: Path) -> None:
    none = settings()
    assert kit.check_player("clubber", none) is None  # beside the interpreter (the venv)
    assert kit.check_player(program("clubber"), none) is None
    assert kit.check_player(fake_player(tmp_path, "p"), none) is None
    missing = kit.check_player("no-such-clubs-player", none)
    assert missing is not None
    assert "no such program" in missing
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n")
    for path in (str(plain), str(tmp_path), str(tmp_path / "nothing")):
        message = kit.check_player(path, none)
        assert message is not None
        assert "not an executable file" in message


# -- openings --------------------------------------------------------------------------------


def test_openings_are_seeded_distinct_and_valid() -> None:
    chosen = settings()
    first = kit.openings(chosen, 12, seed=7)
    assert first == kit.openings(chosen, 12, seed=7)
    assert first != kit.openings(chosen, 12, seed=8)
    assert len({json.dumps(opening) for opening in first}) == 12
    assert json.loads(json.dumps(first)) == first
    decks = ClubsSettings.from_json(chosen).decks
    for opening in first:
        arranged = opening_decks(decks, opening)
        assert sorted(map(sorted, arranged)) == sorted(map(sorted, decks))


def test_opening_decks_order_and_cut() -> None:
    decks = [tuple(range(52)), tuple(reversed(range(52)))]
    assert opening_decks(decks, None) == decks
    arranged = opening_decks(decks, {"order": [1, 0], "cut": 2})
    assert arranged[0][:3] == (49, 48, 47)
    assert arranged[0][-2:] == (51, 50)
    assert arranged[1][:3] == (2, 3, 4)
    for bad in ({"order": [0, 0]}, {"order": [0, 1], "cut": 52}, {"cut": 1}):
        with pytest.raises(ValueError):
            opening_decks(decks, bad)


# -- whole games -----------------------------------------------------------------------------


async def test_a_game_between_clubbers_matches_the_reference() -> None:
    chosen = settings("--winscore", "13")
    opening = kit.openings(chosen, 1, seed=3)[0]
    record, events = await play(spec(["clubber"] * 3, chosen, opening, game_id="abc"))
    decks = opening_decks(ClubsSettings.from_json(chosen).decks, opening)
    expected = reference_moves(decks, 3, 13, ["standard"] * 3)
    assert [(move.seat, move.move) for move in record.moves] == expected
    assert record.game_id == "abc"
    assert record.game == "clubs"
    assert record.termination is Termination.NORMAL
    assert record.fault is None
    assert record.settings == {**chosen, "opening": opening}
    assert [player.spec for player in record.players] == ["clubber"] * 3
    final = record.final_state
    assert final["finished"] is True
    assert max(final["scores"]) >= 13
    assert list(record.scores) == final["scores"]
    low = min(final["scores"])
    assert list(record.winners) == [s for s, score in enumerate(final["scores"]) if score == low]
    assert isinstance(events[0], GameStarted)
    assert isinstance(events[-1], GameEnded)
    assert sum(isinstance(event, MoveMade) for event in events) == len(expected)
    assert events[-1].record == record


FAULTS = {  # B's actions, how it loses, the move recorded, how many cards it played first
    "garbage": (("auto*2", "play:garbage"), Termination.MALFORMED, None, 2),
    "crash": (("auto*3", "exit:3"), Termination.DISCONNECT, None, 3),
    "killed": (("auto", "signal:9"), Termination.DISCONNECT, None, 1),
    "illegal": (("play:2D",), Termination.ILLEGAL_MOVE, "2D", 0),
    "hang": (("auto", "hang"), Termination.TIMEOUT, None, 1),
}


@pytest.mark.parametrize(
    ("actions", "termination", "move", "cards"), FAULTS.values(), ids=FAULTS.keys()
)
async def test_a_broken_player_loses_with_the_reason(
    actions: tuple[str, ...],
    termination: Termination,
    move: str | None,
    cards: int,
    tmp_path: Path,
) -> None:
    """Seat B misbehaves (it plays the first legal card until then): it loses, A wins,
    the record says how; nothing is left running (the autouse fixture checks)."""
    # Only the hang needs a move limit; generous, so that a loaded machine cannot make the
    # good player late. The others play without one: their faults come at once.
    time_ms = str(HANG_LIMIT_MS) if termination is Termination.TIMEOUT else "0"
    chosen = settings("--deck", str(SORTED), "--winscore", "10", "--time-ms", time_ms)
    bad = fake_player(tmp_path, "bad", *actions)
    record, _ = await play(spec(["clubber", bad], chosen))
    assert record.termination is termination
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination, record.fault.move) == (
        1,
        termination,
        move,
    )
    assert list(record.winners) == [0]
    decks = ClubsSettings.from_json(chosen).decks
    reference = reference_moves(list(decks), 2, 10, ["standard", "first"])
    played = [(m.seat, m.move) for m in record.moves]
    assert played == reference[: len(played)]
    assert [seat for seat, _ in played].count(1) == cards, "the game stopped at B's turn"
    assert reference[len(played)][0] == 1


@pytest.mark.parametrize(
    ("actions", "termination"),
    [
        (("start:x",), Termination.MALFORMED),
        (("exit-now:2",), Termination.DISCONNECT),
        (("start:", "on-end:exit:0"), Termination.TIMEOUT),
    ],
)
async def test_a_player_that_does_not_start_loses_before_any_card(
    actions: tuple[str, ...],
    termination: Termination,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if termination is Termination.TIMEOUT:  # shorter than the default 5 s, still generous
        monkeypatch.setattr("hub.games.clubs.match.DEFAULT_START_TIMEOUT", HANG_LIMIT_MS / 1000)
    bad = fake_player(tmp_path, "bad", *actions)
    record, events = await play(spec(["clubber", "clubber", bad], settings()))
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination) == (2, termination)
    assert (record.termination, list(record.winners), record.moves) == (termination, [0, 1], ())
    assert [type(event) for event in events] == [GameStarted, GameEnded]


async def test_a_missing_program_loses(tmp_path: Path) -> None:
    record, _ = await play(spec([str(tmp_path / "nothing"), "clubber"], settings()))
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination) == (0, Termination.DISCONNECT)
    assert "could not be started" in record.fault.detail


async def test_each_game_starts_the_players_afresh(tmp_path: Path) -> None:
    """A player that crashes in one game plays the next from a new process."""
    log = tmp_path / "starts"
    inner = fake_player(tmp_path, "p", "auto*2", "exit:1")
    crasher = write_script(
        tmp_path / "crasher", f'#!/bin/sh\necho start >> "{log}"\nexec {inner} "$@"\n'
    )
    chosen = settings("--deck", str(SORTED), "--winscore", "10")
    for game_id in ("one", "two"):
        record, _ = await play(spec(["clubber", crasher], chosen, game_id=game_id))
        assert record.fault is not None
        assert (record.game_id, record.fault.termination) == (game_id, Termination.DISCONNECT)
        assert [move.seat for move in record.moves].count(1) == 2, "B crashed at its 3rd turn"
    assert log.read_text() == "start\nstart\n"


async def test_cancelling_a_game_reaps_every_player(tmp_path: Path) -> None:
    """Cancelled while B hangs without a time limit: the game ends as aborted and every
    child is gone when `play` returns (the autouse fixture checks no process is left)."""
    chosen = settings("--deck", str(SORTED), "--time-ms", "0")
    hanger = fake_player(tmp_path, "p", "auto", "hang")
    bus = EventBus()
    events: list[Event] = []
    asked_again = trio.Event()

    def watch(event: Event) -> None:
        events.append(event)
        b_played = any(isinstance(old, MoveMade) and old.seat == 1 for old in events)
        if isinstance(event, MoveMade) and event.to_move == 1 and b_played:
            asked_again.set()  # B has played once and is asked for its second card

    bus.listen(watch)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:

            async def game() -> None:
                await kit.play(spec(["clubber", hanger], chosen), bus)

            nursery.start_soon(game)
            await asked_again.wait()
            nursery.cancel_scope.cancel()
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.record.termination is Termination.ABORTED
    assert [move.seat for move in ended.record.moves].count(1) == 1
