"""``hub match kalah``: every game's `TournamentKit` (hub.declared.kit) with the Kalah
declaration's match hooks (hub.games.kalah.game, hub.games.kalah.match): options, players,
openings, and whole games between the AI and agent programs (the hub is their server over
pipes) through the core loop, including programs that fail."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.core.play.kit import GameSpec
from hub.core.play.person import TYPED_AHEAD, TypeAhead
from hub.declared.kit import DeclaredKit
from hub.games.kalah.codec import result_word, state_view
from hub.games.kalah.game import KalahGame
from hub.games.kalah.plugin import plugin
from hub.games.kalah.protocol import parse_move
from hub.games.kalah.rules import new_game, play
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import Keys

GAME_TIMEOUT = 60.0
kit = DeclaredKit(KalahGame)

AGENT = r"""
import sys

import attrs

from hub.games.kalah.protocol import format_move, parse_info, parse_move
from hub.games.kalah.rules import PIE, legal_moves, new_game, play

transcript = open(sys.argv[1], "w")
action = sys.argv[2] if len(sys.argv) > 2 else "play"
turns = int(sys.argv[3]) if len(sys.argv) > 3 else 0


def read():
    line = sys.stdin.readline()
    transcript.write(line)
    transcript.flush()
    if not line:
        sys.exit(0)
    return line.rstrip("\n")


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


read()  # WELCOME
info = parse_info(read())
if action == "no-ready":
    send("HELLO")
    read()
send("READY")
read()  # BEGIN
state = new_game(info.holes, info.seeds, layout=info.layout)
me = 0 if info.first else 1
played = 0
while state.mover is not None:
    if state.mover == me:
        if played == turns and action != "play":
            if action == "crash":
                sys.exit(3)
            if action == "garbage":
                send("hello")
            while read():  # "hang": silent, yet reading to the end
                pass
        move = legal_moves(state)[0]
        send(format_move(move))
        played += 1
        if read() != "OK":
            break
        state = play(state, move)
    else:
        line = read()
        if line in ("TIME", "ILLEGAL", "WINNER", "LOSER", "TIE"):
            break
        move = parse_move(line, info.holes)
        state = play(attrs.evolve(state, pie=True) if move == PIE else state, move)
        if state.mover is not None:
            send("OK")
while read():
    pass
"""
"""A Kalah agent (the client side of kalah.md) that plays the first legal turn; it writes
every line it receives to the file ``argv[1]``; ``argv[2]`` (crash, garbage, hang) says how
it misbehaves at its turn number ``argv[3]`` (0: its first), or no-ready at the handshake."""


def agent(tmp_path: Path, name: str, *args: str) -> tuple[str, Path]:
    """An executable agent program and the file its transcript goes to."""
    transcript = tmp_path / f"{name}.log"
    source = tmp_path / "agent.py"
    source.write_text(AGENT)
    path = tmp_path / name
    argv = " ".join([sys.executable, str(source), str(transcript), *args])
    path.write_text(f"#!/bin/sh\nexec {argv}\n")
    path.chmod(0o755)
    return str(path), transcript


def settings(*args: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    kit.add_options(parser)
    return kit.settings(parser.parse_args(list(args)))


async def run(
    players: list[str], chosen: dict[str, Any], opening: Any = None, game_id: str = "g1"
) -> tuple[GameRecord, list[Event]]:
    bus = EventBus()
    events: list[Event] = []
    bus.listen(events.append)
    with trio.fail_after(GAME_TIMEOUT):
        record = await kit.play(GameSpec(game_id, chosen, tuple(players), opening), bus)
    return record, events


def replay(record: GameRecord) -> None:
    """The record's moves, replayed by the referee, end in its final state and scores."""
    settings = record.settings
    layout = record.settings["opening"] or settings["layout"]
    state = new_game(settings["holes"], settings["seeds"], pie=settings["pie"], layout=layout)
    assert state_view(state) == record.initial_state
    for recorded in record.moves:
        assert recorded.seat == state.mover
        state = play(state, parse_move(recorded.move, state.holes))
        assert state_view(state) == recorded.state
    assert record.final_state == state_view(state)
    assert record.scores == (state.store(0), state.store(1))


# -- registration, options and settings ------------------------------------------------------


def test_the_plugin_offers_the_kit() -> None:
    assert plugin.match is not None
    offered = plugin.match()
    assert isinstance(offered, DeclaredKit)
    assert offered.game is KalahGame
    assert kit.seats == (2, 2)


def test_settings_from_options() -> None:
    assert settings() == {
        "holes": 6,
        "seeds": 4,
        "pie": False,
        "time_ms": 5000,
        "random": False,
        "layout": None,
    }
    got = settings("--holes", "4", "--seeds", "3", "--pie", "--time-ms", "0", "--random")
    assert (got["holes"], got["seeds"], got["pie"], got["time_ms"], got["random"]) == (
        4,
        3,
        True,
        0,
        True,
    )
    got = settings("--layout", "6,4,7,6,5,8")
    assert (got["holes"], got["seeds"], got["layout"]) == (6, 6, [6, 4, 7, 6, 5, 8])
    assert json.loads(json.dumps(got)) == got
    assert KalahSettings.from_json(got).to_json() == got


@pytest.mark.parametrize(
    "args",
    [["--layout", "1,2,3", "--holes", "4"], ["--layout", "1,2,4"], ["--layout", "3,3", "--random"]],
)
def test_options_that_do_not_fit_are_readable_errors(args: list[str]) -> None:
    with pytest.raises(ValueError, match="layout"):
        settings(*args)


@pytest.mark.parametrize(
    "broken",
    [
        {"holes": 0, "seeds": 4, "time_ms": 0},
        {"holes": 6, "seeds": "4", "time_ms": 0},
        {"holes": 6, "seeds": 4, "time_ms": True},
        {"holes": 6, "seeds": 4, "time_ms": -1},
        {"holes": 6, "seeds": 4, "time_ms": 0, "pie": 1},
        {"holes": 2, "seeds": 1, "time_ms": 0, "layout": [3, 0]},
        {"holes": 2, "seeds": 1, "time_ms": 0, "layout": [1, 1], "random": True},
        {"holes": 2, "seeds": 1, "time_ms": 0, "layout": "1,1"},
    ],
)
def test_settings_from_json_refuse_nonsense(broken: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        KalahSettings.from_json(broken)


# -- players ---------------------------------------------------------------------------------


class _Stdin:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_check_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = settings()
    for good in ("ai", "ai:1", "ai:9", "ai:09", agent(tmp_path, "agent")[0], "hub"):
        assert kit.check_player(good, chosen) is None, good
    for bad, words in (
        ("ai:0", "level"),
        ("ai:10", "level"),
        ("ai:x", "level"),
        ("no-such-kalah-agent", "no such program"),
        (str(tmp_path / "agent.py"), "no such program"),  # not executable
    ):
        message = kit.check_player(bad, chosen)
        assert message is not None and words in message, bad
    monkeypatch.setattr(sys, "stdin", _Stdin(False))
    message = kit.check_player("human", chosen)
    assert message is not None and "terminal" in message
    monkeypatch.setattr(sys, "stdin", _Stdin(True))
    assert kit.check_player("human", chosen) is None


# -- openings --------------------------------------------------------------------------------


@pytest.mark.parametrize("random_option", [[], ["--random"]], ids=["default", "--random"])
def test_openings_are_distinct_seeded_random_layouts(random_option: list[str]) -> None:
    chosen = settings(*random_option, "--holes", "5", "--seeds", "3")
    first = kit.openings(chosen, 10, seed=7)
    assert first == kit.openings(chosen, 10, seed=7)
    assert first != kit.openings(chosen, 10, seed=8)
    assert len({tuple(layout) for layout in first}) == 10
    assert all(len(layout) == 5 and sum(layout) == 15 for layout in first)
    assert json.loads(json.dumps(first)) == first
    assert len({tuple(layout) for layout in kit.openings(settings(), 50, seed=1)}) == 50


def test_a_given_layout_has_no_openings() -> None:
    chosen = settings("--holes", "4", "--seeds", "2", "--layout", "1,3,2,2")
    assert kit.openings(chosen, 3, seed=1) == []


# -- whole games -----------------------------------------------------------------------------


async def test_ai_against_ai_at_small_depth() -> None:
    chosen = settings("--holes", "4", "--seeds", "3", "--pie", "--random", "--time-ms", "2000")
    opening = kit.openings(chosen, 1, seed=5)[0]
    record, events = await run(["ai:1", "ai:2"], chosen, opening, game_id="abc")
    assert (record.game_id, record.game, record.termination) == ("abc", "kalah", Termination.NORMAL)
    assert record.fault is None
    assert record.settings == {**chosen, "opening": opening}
    assert [(p.name, p.kind, p.spec) for p in record.players] == [
        ("ai:1", "ai", "ai:1"),
        ("ai:2", "ai", "ai:2"),
    ]
    assert record.time_controls == ("2000ms", "2000ms")
    replay(record)
    best = max(record.scores)
    assert list(record.winners) == [s for s in (0, 1) if record.scores[s] == best]
    assert isinstance(events[0], GameStarted) and isinstance(events[-1], GameEnded)
    assert sum(isinstance(event, MoveMade) for event in events) == len(record.moves) > 0
    assert events[-1].record == record


@pytest.mark.parametrize("first", [True, False], ids=["program-first", "program-second"])
async def test_an_agent_program_plays_over_pipes(tmp_path: Path, first: bool) -> None:
    program, transcript = agent(tmp_path, "agent")
    chosen = settings("--holes", "4", "--seeds", "2", "--layout", "1,3,2,2", "--time-ms", "5000")
    players = [program, "ai:2"] if first else ["ai:2", program]
    record, _ = await run(players, chosen)
    me = 0 if first else 1
    assert record.termination is Termination.NORMAL and record.fault is None
    assert record.players[me].kind == "program" and record.players[me].spec == program
    replay(record)
    heard = transcript.read_text().splitlines()
    info = f"INFO 4 2 5000 {'F' if first else 'S'} R 1 3 2 2"
    assert heard[:3] == ["WELCOME", info, "BEGIN"]
    expected = []  # what the server says to the agent: OK to its moves, the AI's moves
    for move in record.moves:
        expected.append("OK" if move.seat == me else move.move)
    assert heard[3:] == [*expected, result_word(record.winners, me)]


FAULTS = {  # the agent's misbehaviour, how it loses, how many turns it played first
    "crash": (("crash", "1"), Termination.DISCONNECT, 1),
    "garbage": (("garbage", "1"), Termination.MALFORMED, 1),
    "hang": (("hang", "0"), Termination.TIMEOUT, 0),
    "no-ready": (("no-ready",), Termination.MALFORMED, 0),
}


@pytest.mark.parametrize(("args", "termination", "turns"), FAULTS.values(), ids=FAULTS.keys())
async def test_a_broken_program_loses_with_the_reason(
    tmp_path: Path, args: tuple[str, ...], termination: Termination, turns: int
) -> None:
    """The agent in seat 0 misbehaves: it loses, the AI wins, the record says how, and
    nothing is left running (the autouse fixture checks)."""
    program, transcript = agent(tmp_path, "bad", *args)
    chosen = settings("--holes", "4", "--seeds", "3", "--time-ms", "500")
    record, events = await run([program, "ai:1"], chosen)
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination, record.termination) == (
        0,
        termination,
        termination,
    )
    assert list(record.winners) == [1]
    assert [move.seat for move in record.moves].count(0) == turns
    assert record.moves == () or record.moves[-1].seat == 1  # it stopped at the agent's turn
    replay(record)
    assert isinstance(events[-1], GameEnded)
    heard = transcript.read_text().splitlines()
    if args == ("no-ready",):  # no game began: nothing more is said to it
        assert heard == ["WELCOME", "INFO 4 3 500 F S"]
    elif termination is Termination.MALFORMED:
        assert heard[-2:] == ["ILLEGAL", "LOSER"]
    elif termination is Termination.TIMEOUT:
        assert heard[-2:] == ["TIME", "LOSER"]


async def test_a_person_plays_at_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """``human`` reads the keyboard (here a script of lines, every one used as from a pipe)
    and sees the game; quitting loses by resignation."""

    @asynccontextmanager
    async def keyboard() -> AsyncIterator[Keys]:
        yield Keys("9", "1", "2", "q")

    monkeypatch.setattr("hub.games.kalah.match.open_keyboard", keyboard)
    chosen = settings("--holes", "4", "--seeds", "3", "--time-ms", "0")
    record, _ = await run(["human", "ai:1"], chosen)
    assert record.fault is not None
    assert (record.fault.seat, record.termination) == (0, Termination.RESIGNATION)
    assert [move.seat for move in record.moves] == [0, 1, 0, 1]
    assert record.players[0].kind == "person"
    out = capfd.readouterr().out
    assert "your move" in out and "no hole 9" in out
    assert "ai:1 (North) sows" in out and "(quit: human)" in out


async def test_a_person_at_a_terminal_loses_no_move_to_type_ahead(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """On a terminal, ``human`` reads through `open_keyboard` as ``hub play kalah`` does: a
    line typed while the AI thought (``1``) is dropped when the person's turn begins, and only
    what is typed in the turn counts (``q``: no move of theirs is made)."""
    turn_began = trio.Event()
    drop = TypeAhead.drop_typed_ahead

    def dropping(self: TypeAhead) -> int:
        dropped = drop(self)
        turn_began.set()
        return dropped

    class Typist:
        """Types ``1`` at once, before the person's turn, then ``q`` once the turn began."""

        def __init__(self) -> None:
            self.ahead = ["1"]

        async def receive(self) -> str | None:
            await trio.lowlevel.checkpoint()
            if self.ahead:
                return self.ahead.pop(0)
            await turn_began.wait()
            return "q"

    @asynccontextmanager
    async def stdin(fd: int) -> AsyncIterator[Typist]:
        assert fd == 0
        yield Typist()

    isatty = os.isatty
    monkeypatch.setattr(os, "isatty", lambda fd: fd == 0 or isatty(fd))  # stdin: a terminal
    monkeypatch.setattr("hub.core.io.stdin.open_line_input", stdin)
    monkeypatch.setattr(TypeAhead, "drop_typed_ahead", dropping)
    chosen = settings("--holes", "4", "--seeds", "3", "--time-ms", "0")
    record, _ = await run(["ai:1", "human"], chosen)
    assert record.fault is not None
    assert (record.fault.seat, record.termination) == (1, Termination.RESIGNATION)
    assert [move.seat for move in record.moves] == [0]  # the typed-ahead 1 was not a move
    out = capfd.readouterr().out
    assert TYPED_AHEAD in out and "(quit: human)" in out


async def test_a_program_that_cannot_be_started_loses(tmp_path: Path) -> None:
    record, events = await run(["ai:1", str(tmp_path / "nothing")], settings())
    assert record.fault is not None
    assert (record.fault.seat, record.fault.termination) == (1, Termination.DISCONNECT)
    assert "not started" in record.fault.detail
    assert (record.moves, list(record.winners)) == ((), [0])
    assert [type(event) for event in events] == [GameStarted, GameEnded]


async def test_cancelling_a_game_reaps_the_programs(tmp_path: Path) -> None:
    """Cancelled while the agent hangs without a time limit: the game ends as aborted and
    the child is gone when `play` returns (the autouse fixture checks)."""
    program, _ = agent(tmp_path, "hanger", "hang", "1")
    chosen = settings("--holes", "4", "--seeds", "3", "--time-ms", "0")
    bus = EventBus()
    events: list[Event] = []
    asked_again = trio.Event()

    def watch(event: Event) -> None:
        events.append(event)
        if isinstance(event, MoveMade) and event.to_move == 0 and event.ply > 1:
            asked_again.set()  # the agent has played once and is asked for its second turn

    bus.listen(watch)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:

            async def game() -> None:
                await kit.play(GameSpec("g", chosen, (program, "ai:1")), bus)

            nursery.start_soon(game)
            await asked_again.wait()
            nursery.cancel_scope.cancel()
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.record.termination is Termination.ABORTED
    assert [move.seat for move in ended.record.moves].count(0) == 1
