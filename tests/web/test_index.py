"""GameIndex and the per-viewer buffers: what is kept, what is sent, and that neither a
stalled viewer nor the index falling behind the bus can slow a game or grow memory."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded
from hub.core.model.referee import Termination
from hub.web.index import (
    ELSEWHERE,
    LOBBY,
    SERIES,
    GameIndex,
    TooManyViewers,
    Viewer,
    elsewhere_row,
    game_topic,
)
from tests.web.helpers import ChessGame, moved, play_tictactoe, started, tictactoe

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def decode(data: bytes | None) -> Any:
    assert data is not None and data.startswith(b"data: ") and data.endswith(b"\n\n")
    return json.loads(data[6:])


async def drain(viewer: Viewer) -> list[Any]:
    """Everything the viewer has ready, without waiting for more."""
    got = []
    while viewer.pending or viewer._resync:
        got.append(decode(await viewer.receive()))
    return got


async def test_a_game_is_kept_while_it_runs_and_then_only_its_record() -> None:
    bus = EventBus()
    index = GameIndex(bus)
    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)
        match = tictactoe(bus)
        ended = trio.Event()

        async def run() -> None:
            await match.run()
            ended.set()

        nursery.start_soon(run)
        await trio.testing.wait_all_tasks_blocked()
        await ended.wait()
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert index.live == {}
    record = index.finished[match.game_id]
    assert record.final_state == "XOXOXOX.."
    lobby = index.lobby()
    assert lobby["running"] == []
    assert [row["result"] for row in lobby["recent"]] == ["1-0"]
    assert [row["ply"] for row in lobby["recent"]] == [7]


async def test_a_viewer_gets_a_snapshot_then_every_move_then_the_end() -> None:
    index = GameIndex()
    index.apply(started("g1", "tictactoe", ".........", ["a", "b"]))
    with index.watch(game_topic("g1")) as viewer:
        first = decode(await viewer.receive())
        assert first["type"] == "snapshot" and first["game"]["ply"] == 0
        index.apply(moved("g1", 1, 0, "4", "....X....", 1))
        index.apply(moved("g1", 2, 1, "0", "O...X....", 0))
        got = await drain(viewer)
        assert [(m["type"], m["ply"], m["move"]) for m in got] == [
            ("move", 1, "4"),
            ("move", 2, "0"),
        ]
        assert "O...X...." in got[1]["html"]
        result = await play_tictactoe(EventBus())  # a record to end g1 with
        index.apply(GameEnded("g1", result.record, 0.0))
        (end,) = await drain(viewer)
        assert end["type"] == "snapshot" and end["game"]["status"] == "finished"
    assert index.viewers == 0


async def test_a_viewer_that_falls_behind_is_resynchronised_with_a_bounded_queue() -> None:
    index = GameIndex(viewer_buffer=3)
    index.apply(started("g1", "tictactoe", ".........", ["a", "b"]))
    with index.watch(game_topic("g1")) as viewer:
        assert decode(await viewer.receive())["type"] == "snapshot"
        board = list(".........")
        for ply in range(1, 9):
            board[ply - 1] = "XO"[(ply - 1) % 2]
            index.apply(moved("g1", ply, (ply - 1) % 2, str(ply - 1), "".join(board), ply % 2))
            assert viewer.pending <= 3
        assert viewer.resyncs == 1
        (snapshot,) = await drain(viewer)  # one snapshot instead of the moves it missed
        assert snapshot["type"] == "snapshot"
        assert [move["move"] for move in snapshot["game"]["moves"]] == list("01234567")


async def test_a_stalled_viewer_does_not_delay_a_match(
    autojump_clock: trio.testing.MockClock,
) -> None:
    bus = EventBus()
    index = GameIndex(bus, viewer_buffer=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)
        lobby = index.watch(LOBBY)
        match = tictactoe(bus, delay=1.0)
        stalled = index.watch(game_topic(match.game_id))
        nursery.start_soon(match.run)
        await trio.testing.wait_all_tasks_blocked()
        await stalled.receive()  # reads its snapshot, then never again
        await lobby.receive()
        start = trio.current_time()
        await match.wait_finished()
        # seven moves of one virtual second each: not a moment more
        assert trio.current_time() - start == pytest.approx(7.0)
        await trio.testing.wait_all_tasks_blocked()
        assert stalled.resyncs == 1 and lobby.resyncs == 1
        assert stalled.pending == 0 and lobby.pending == 0
        nursery.cancel_scope.cancel()


async def test_a_hundred_viewers_all_get_every_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    bus = EventBus()
    index = GameIndex(bus)
    match = tictactoe(bus, delay=0.5)
    seen: list[list[Any]] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)

        async def view() -> None:
            got: list[Any] = []
            seen.append(got)
            with index.watch(game_topic(match.game_id)) as viewer:
                while True:
                    message = decode(await viewer.receive())
                    got.append(message)
                    if message["type"] == "snapshot" and message["game"]["status"] == "finished":
                        return

        for _ in range(100):
            nursery.start_soon(view)
        await trio.testing.wait_all_tasks_blocked()
        with trio.fail_after(60):
            await match.run()
            while index.viewers:
                await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert len(seen) == 100
    for got in seen:
        assert got[0]["type"] in ("snapshot", "missing")
        assert [m["ply"] for m in got if m["type"] == "move"] == [1, 2, 3, 4, 5, 6, 7]
        assert got[-1]["game"]["result"] == "1-0"
    assert index.viewers == 0


async def test_an_index_that_falls_behind_the_bus_resubscribes_and_resyncs() -> None:
    bus = EventBus()
    index = GameIndex(bus, bus_buffer=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)
        bus.publish(started("g1", "tictactoe", ".........", ["a", "b"]))
        await trio.testing.wait_all_tasks_blocked()
        viewer = index.watch(game_topic("g1"))
        assert decode(await viewer.receive())["type"] == "snapshot"
        board = list(".........")
        for ply in range(1, 6):  # published without a pause: the index is dropped
            board[ply - 1] = "XO"[(ply - 1) % 2]
            bus.publish(moved("g1", ply, (ply - 1) % 2, str(ply - 1), "".join(board), ply % 2))
        await trio.testing.wait_all_tasks_blocked()
        assert index.drops == 1 and index.live["g1"].stale
        board[5] = "O"
        bus.publish(moved("g1", 6, 1, "5", "".join(board), 0))
        await trio.testing.wait_all_tasks_blocked()
        (snapshot,) = await drain(viewer)  # the gap: a snapshot, not a move
        assert snapshot["type"] == "snapshot"
        assert snapshot["game"]["moves"][:5] == [None] * 5
        assert snapshot["game"]["moves"][5]["move"] == "5"
        assert "XOXOXO..." in snapshot["game"]["latest"]["html"]
        assert not index.live["g1"].stale
        viewer.close()
        nursery.cancel_scope.cancel()


async def test_a_game_whose_start_was_lost_is_shown_from_its_moves() -> None:
    index = GameIndex()
    index.apply(moved("g1", 3, 0, "2", "XOX......", 1))
    game = index.snapshot_json(game_topic("g1"))["game"]
    assert game["game"] == "?" and game["moves"] == [
        None,
        None,
        {"ply": 3, "seat": 0, "side": "Seat 1", "move": "2", "elapsed": 0.25},
    ]
    assert "XOX......" in game["latest"]["html"]


async def test_running_games_are_bounded_and_stale_ones_go_first() -> None:
    bus = EventBus()
    index = GameIndex(bus, bus_buffer=2, max_live=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)
        bus.publish(started("g1", "tictactoe", ".........", ["a", "b"]))
        bus.publish(started("g2", "tictactoe", ".........", ["a", "b"]))
        await trio.testing.wait_all_tasks_blocked()
        for _ in range(3):  # the index is dropped: both games are stale
            bus.publish(moved("zz", 1, 0, "0", "X........", 1))
        await trio.testing.wait_all_tasks_blocked()
        assert index.drops == 1
        bus.publish(moved("g1", 1, 0, "0", "X........", 1))  # g1 is alive after all
        bus.publish(started("g3", "tictactoe", ".........", ["a", "b"]))
        await trio.testing.wait_all_tasks_blocked()
        assert list(index.live) == ["g1", "g3"]
        nursery.cancel_scope.cancel()


async def test_finished_games_are_bounded_and_memory_returns_to_baseline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    bus = EventBus()
    index = GameIndex(bus, max_finished=5)

    async def games(count: int) -> None:
        for _ in range(count):
            match = tictactoe(bus, delay=0.01)
            async with trio.open_nursery() as inner:
                inner.start_soon(match.run)
                with index.watch(game_topic(match.game_id)) as viewer, index.watch(LOBBY):
                    await viewer.receive()
                    await match.wait_finished()
            await trio.testing.wait_all_tasks_blocked()

    async with trio.open_nursery() as nursery:
        await nursery.start(index.run)
        tracemalloc.start()
        try:
            await games(10)
            baseline = tracemalloc.get_traced_memory()[0]
            await games(100)
            grown = tracemalloc.get_traced_memory()[0] - baseline
        finally:
            tracemalloc.stop()
        nursery.cancel_scope.cancel()
    assert index.live == {} and len(index.finished) == 5
    assert index.viewers == 0 and index._viewers == {}
    assert grown < 100_000, f"{grown} bytes kept after 100 more games"


async def test_the_viewer_cap() -> None:
    index = GameIndex(max_viewers=2)
    with index.watch(LOBBY), index.watch(LOBBY), pytest.raises(TooManyViewers):
        index.watch(game_topic("x"))
    with index.watch(LOBBY):
        pass


async def test_nobody_watching_builds_nothing() -> None:
    index = GameIndex()
    index.apply(started("g1", "chess", {"fen": "not a fen"}, ["a", "b"]))
    index.apply(moved("g1", 1, 0, "e2e4", {"fen": "still not"}, 1))
    assert index._snapshots == {}


# -- the chess console --------------------------------------------------------------------


async def test_console_status_and_score() -> None:
    bus = EventBus()
    index = GameIndex()
    bus.listen(index.apply)
    game = ChessGame(bus, "c1", settings={"rules": "console", "score": {"white": 1, "black": 0.5}})
    with index.watch(SERIES + "console") as viewer:
        assert decode(await viewer.receive()) == {
            "type": "console",
            "game": None,
            "score": {"white": "0", "black": "0"},
        }
        game.start()
        (console,) = await drain(viewer)
        assert console["score"] == {"white": "1", "black": "0.5"}
        statuses = []
        for uci in FOOLS_MATE:
            game.move(uci)
            (console,) = await drain(viewer)
            statuses.append(console["game"]["latest"]["status"])
        assert statuses == [[], [], [], ["Checkmate! Black wins!"]]
        assert 'lastmove d8"' in console["game"]["latest"]["html"]
        assert 'class="check"' in console["game"]["latest"]["html"]
        game.end([1])
        (console,) = await drain(viewer)
        assert console["score"] == {"white": "1", "black": "1.5"}
        assert console["game"]["result"] == "0-1"
        # a drawn game adds a half each; an aborted one nothing
        draw = ChessGame(bus, "c2")
        draw.start()
        draw.end([0, 1])
        abort = ChessGame(bus, "c3")
        abort.start()
        abort.end([], Termination.ABORTED)
        console = (await drain(viewer))[-1]
        assert console["score"] == {"white": "1.5", "black": "2"}
        assert console["game"]["id"] == "c3"


async def test_uqchess_games_are_not_the_console() -> None:
    bus = EventBus()
    index = GameIndex()
    bus.listen(index.apply)
    ChessGame(bus, "u1", settings={"rules": "uqchess"}).start()
    assert "console" not in index.series
    ChessGame(bus, "c1", settings={}).start()
    assert index.series["console"].game_id == "c1"


async def test_games_running_elsewhere_are_listed_after_its_own_and_its_viewers_told() -> None:
    """A hub of several processes (hub/records/live.py): the lobby lists the games running
    at the others after its own (a game of its own is never listed twice)."""
    index = GameIndex()
    index.apply(started("mine", "tictactoe", ".........", ["a", "b"]))
    far = elsewhere_row("far", "tictactoe", [{"name": "x", "kind": "remote"}], 1.0)
    mine = elsewhere_row("mine", "tictactoe", [{"name": "a", "kind": "program"}], 1.0)
    with index.watch(LOBBY) as viewer:
        assert [row["id"] for row in decode(await viewer.receive())["running"]] == ["mine"]
        index.set_elsewhere([far, mine])
        (lobby,) = await drain(viewer)
        assert lobby["type"] == "lobby"
        assert [row["id"] for row in lobby["running"]] == ["mine", "far"]
        assert lobby["running"][1]["words"] == ELSEWHERE and lobby["running"][1]["elsewhere"]
        index.set_elsewhere([far, mine])
        assert await drain(viewer) == []  # nothing changed: nothing sent
        index.set_stored([{**far, "status": "finished", "elsewhere": False}])
        lobby = index.lobby()  # ended and recorded, not yet read off the live list
        assert [row["id"] for row in lobby["running"]] == ["mine"]
        assert [row["id"] for row in lobby["recent"]] == ["far"]
        await drain(viewer)
        index.set_elsewhere([])
        (lobby,) = await drain(viewer)
        assert [row["id"] for row in lobby["running"]] == ["mine"]
