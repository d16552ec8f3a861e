"""The console plays its games through the core `Match`: a computer's search runs in a worker
thread that Ctrl-C (cancellation) abandons at once, and every game is published on the
session's event bus as a proper record (players, moves in UCI, result, termination)."""

from __future__ import annotations

import json
import threading

import chess
import trio

from hub.chess.search import ComputerPlayer
from hub.core.model.bus import EventBus
from hub.core.model.events import (
    Event,
    GameEnded,
    GameRecord,
    GameStarted,
    MoveMade,
    record_from_json,
    to_json,
)
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.threads import StopFlag
from hub.games.chess.console import ConsoleOptions, ConsoleSession, open_console

HUMAN = PlayerInfo("human", "person", "human")


async def play(console: ConsoleSession, *lines: str) -> list[str]:
    out: list[str] = []
    for line in lines:
        out += await console.handle(line)
    return out


def recorder(bus: EventBus) -> list[Event]:
    events: list[Event] = []
    bus.listen(events.append)
    return events


def records(events: list[Event]) -> list[GameRecord]:
    return [event.record for event in events if isinstance(event, GameEnded)]


async def test_ctrl_c_during_a_level_4_search_returns_at_once() -> None:
    started = threading.Event()
    stopped = threading.Event()
    levels: list[int] = []

    def think(player: ComputerPlayer, board: chess.Board, stop: StopFlag) -> chess.Move:
        """A search that never finishes by itself: it ends only when told to stop."""
        levels.append(player.level)
        started.set()
        if stop.wait(60):
            stopped.set()
        return next(iter(board.legal_moves))

    bus = EventBus()
    events = recorder(bus)
    with trio.fail_after(20):  # far below the stub's 60 s: returning in time proves it
        with trio.CancelScope() as interrupted:
            async with open_console(ConsoleOptions(), bus=bus, think=think) as console:
                await console.handle("game computer4 human")
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(console.handle, "move")
                    await trio.to_thread.run_sync(started.wait, 20, abandon_on_cancel=True)
                    interrupted.cancel()  # what Ctrl-C does to the program's main task
    assert interrupted.cancelled_caught
    assert levels == [4]
    assert await trio.to_thread.run_sync(stopped.wait, 20)  # the search was told to stop
    ended = records(events)
    assert [record.termination for record in ended] == [Termination.ABORTED]
    assert ended[0].moves == ()


async def test_a_hint_is_searched_in_a_thread_and_abandoned_on_cancel() -> None:
    started = threading.Event()

    def think(player: ComputerPlayer, board: chess.Board, stop: StopFlag) -> chess.Move:
        started.set()
        stop.wait(60)
        return next(iter(board.legal_moves))

    with trio.fail_after(20):
        with trio.CancelScope() as interrupted:
            async with open_console(ConsoleOptions(), think=think) as console:
                await console.handle("game human human")
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(console.handle, "hint")
                    await trio.to_thread.run_sync(started.wait, 20, abandon_on_cancel=True)
                    interrupted.cancel()
    assert interrupted.cancelled_caught


async def test_a_game_is_published_as_a_proper_record() -> None:
    bus = EventBus()
    events = recorder(bus)
    async with open_console(ConsoleOptions(seed=3), bus=bus) as console:
        out = await play(
            console, "game human human", "move f2 f3", "move e7 e5", "move g2 g4", "move Qh4"
        )
        assert out[-1] == "Checkmate! Black wins!"
        await play(console, "game computer1 human", "move", "resign")
        await console.finish()
    first, second = records(events)

    started = events[0]
    assert isinstance(started, GameStarted) and started.game == "chess"
    assert started.settings == {
        "rules": "console",
        "score": {"white": 0.0, "black": 0.0},
        "white": "human",
        "black": "human",
    }
    assert started.state == {"fen": chess.STARTING_FEN, "lastmove": None, "check": False,
                             "turn": "white"}  # fmt: skip
    assert first.game == "chess" and first.players == (HUMAN, HUMAN)
    assert [move.move for move in first.moves] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert [move.seat for move in first.moves] == [0, 1, 0, 1]
    assert first.final_state["lastmove"] == "d8h4" and first.final_state["check"] is True
    assert first.result_text() == "0-1" and first.winners == (1,)
    assert first.detail == "checkmate" and first.scores == (0, 2)  # half points
    assert first.termination is Termination.NORMAL and first.fault is None
    assert record_from_json(json.loads(json.dumps(to_json(first)))) == first

    assert second.players == (PlayerInfo("computer1", "ai", "computer1"), HUMAN)
    assert second.settings["score"] == {"white": 0.0, "black": 1.0}  # before this game
    assert len(second.moves) == 1 and second.moves[0].seat == 0
    assert second.termination is Termination.RESIGNATION
    assert second.fault is not None and second.fault.seat == 1  # the lone human resigned
    assert second.result_text() == "1-0"
    assert isinstance(events[-1], GameEnded) and events[-1].record is second


async def test_moves_are_uci_and_a_game_cut_by_the_end_of_input_is_aborted() -> None:
    bus = EventBus()
    events = recorder(bus)
    async with open_console(ConsoleOptions(), bus=bus) as console:
        await play(console, "setup", "+ K e1", "+ k a8", "+ P e7", "done", "game human human")
        await play(console, "move e7 e8 n", "move a8 b7", "move e1 g1")
        assert await console.finish() == ["Final Score:", "White: 0", "Black: 0"]
    moved = [event for event in events if isinstance(event, MoveMade)]
    assert [event.move for event in moved] == ["e7e8n", "a8b7"]  # e1g1 is no move here
    assert moved[-1].state["turn"] == "white" and moved[-1].to_move == 0
    (record,) = records(events)
    assert record.initial_state["fen"] == "k7/4P3/8/8/8/8/8/4K3 w - - 0 1"
    assert record.termination is Termination.ABORTED and record.detail == "end of input"
    assert record.winners == () and record.result_text() == "*"


async def test_a_stalemate_is_recorded_as_a_draw() -> None:
    bus = EventBus()
    events = recorder(bus)
    async with open_console(ConsoleOptions(), bus=bus) as console:
        out = await play(console, "setup", "+ K a1", "+ k c2", "+ q b3", "done", "game human human")
        assert out[-1] == "Stalemate!"
        assert await console.finish() == ["Final Score:", "White: 0.5", "Black: 0.5"]
    (record,) = records(events)
    assert record.moves == () and record.termination is Termination.NORMAL
    assert record.result_text() == "1/2-1/2" and record.detail == "stalemate"
    assert record.scores == (1, 1) and record.winners == (0, 1)


async def test_undo_ends_the_match_and_plays_on_from_the_earlier_position() -> None:
    bus = EventBus()
    events = recorder(bus)
    async with open_console(ConsoleOptions(seed=1), bus=bus) as console:
        await play(console, "game human computer2", "move e2 e4", "move")
        assert (await console.handle("history"))[0].startswith("1. e4 ")
        board = await console.handle("undo")  # the computer's reply and the human's move
        assert board[:8] == ["8 rnbqkbnr", "7 pppppppp", "6  _ _ _ _", "5 _ _ _ _ ",
                             "4  _ _ _ _", "3 _ _ _ _ ", "2 PPPPPPPP", "1 RNBQKBNR"]  # fmt: skip
        assert await console.handle("history") == ["No moves yet."]
        assert await console.handle("undo") == ["Nothing to undo."]
        await play(console, "resign", "game human human", "move e2 e4", "move e7 e5", "undo")
        assert await console.handle("history") == ["1. e4"]
        await play(console, "move c7 c5")
        assert await console.handle("history") == ["1. e4 c5"]
        await console.finish()
    ended = records(events)
    assert [record.termination for record in ended] == [
        Termination.ABORTED,  # undo
        Termination.RESIGNATION,
        Termination.ABORTED,  # undo
        Termination.ABORTED,  # end of input
    ]
    assert [record.detail for record in ended] == ["undo", "", "undo", "end of input"]
    assert [[move.move for move in record.moves] for record in ended] == [
        ["e2e4", ended[0].moves[1].move],
        [],
        ["e2e4", "e7e5"],
        ["e2e4", "c7c5"],  # the game as it stands at its end, from its start
    ]
    starts = [event for event in events if isinstance(event, GameStarted)]
    assert len(starts) == 4  # each game, and a new Match after each undo
    after_undo = starts[3]
    assert after_undo.state == starts[2].state  # the game's first position
    replayed = [e for e in events if isinstance(e, MoveMade) and e.game_id == after_undo.game_id]
    assert [(e.ply, e.move) for e in replayed] == [(1, "e2e4"), (2, "c7c5")]
    assert replayed[0].state["lastmove"] == "e2e4" and replayed[0].state["turn"] == "black"
    assert after_undo.settings == starts[2].settings  # the same game goes on
    assert after_undo.settings["score"] == {"white": 0.0, "black": 1.0}  # the human resigned
    assert ended[-1].initial_state == after_undo.state
