"""record_games on trio: games written as they end (off the event loop), aborted games
skipped, what was received drained on cancellation, a dropped subscription renewed."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import attrs
import pytest
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord, GameStarted, MoveMade
from hub.core.model.referee import Termination
from hub.records import RecordStore, record_games
from hub.records import writer as writer_module
from tests.records.helpers import chess_record, kalah_record, shapes, tictactoe


def ended(record: GameRecord) -> GameEnded:
    return GameEnded(record.game_id, record, 0.0)


def moved(n: int) -> MoveMade:
    return MoveMade("g", n, 0, "e2e4", None, 1, 0.1, (), 0.0)


def started(n: int) -> GameStarted:
    return GameStarted(f"g{n}", "chess", {}, (), (), None, 0, 0.0)


async def record_all(path: Path, *records: GameRecord) -> None:
    """Run `record_games` while the records' games end, then close the bus: it returns
    once everything is written."""
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            for record in records:
                bus.publish(ended(record))
            bus.close()


def stored_ids(path: Path) -> set[str]:
    with RecordStore.open(path) as store:
        return {game.game_id for game in store.games()}


async def test_real_games_are_recorded_and_aborted_ones_skipped(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            records = [await tictactoe("x", "o", bus=bus, x_cells=[4]) for _ in range(3)]
            aborted = attrs.evolve(
                chess_record(game_id="aborted"), termination=Termination.ABORTED, winners=()
            )
            bus.publish(ended(aborted))
            bus.close()  # record_games writes what is left and returns
    with RecordStore.open(path) as store:
        assert store.count() == 3
        for record in records:
            assert store.get(record.game_id) == record


async def test_writes_happen_in_one_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: set[str] = set()
    add_all = RecordStore.add_all

    def spying(self: RecordStore, records: object) -> None:
        threads.add(threading.current_thread().name)
        add_all(self, records)  # type: ignore[arg-type]

    monkeypatch.setattr(RecordStore, "add_all", spying)
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, tmp_path / "games.db")
            for record in shapes():
                bus.publish(ended(record))
                await trio.testing.wait_all_tasks_blocked()
            bus.close()
    assert threads and threading.main_thread().name not in threads
    assert len(stored_ids(tmp_path / "games.db")) == 4


async def test_cancellation_drains_what_was_received(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    bus = EventBus()
    records = shapes()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            bus.publish(ended(records[0]))
            await trio.testing.wait_all_tasks_blocked()  # collected (maybe being written)
            bus.publish(ended(records[1]))
            await trio.testing.wait_all_tasks_blocked()
            for record in records[2:]:
                bus.publish(ended(record))  # still in the subscription's buffer
            nursery.cancel_scope.cancel()
    assert stored_ids(path) == {record.game_id for record in records}
    assert bus.subscribers == 0


async def test_a_game_that_ends_as_the_recorder_is_cancelled(tmp_path: Path) -> None:
    """Cancelled first, then the game ends (a shutdown racing a game's end): the event is
    still in the subscription when the collector is cancelled, and is written all the same."""
    path = tmp_path / "games.db"
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
            bus.publish(ended(kalah_record()))
    assert stored_ids(path) == {kalah_record().game_id}


async def test_a_dropped_subscriber_says_so_and_subscribes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(writer_module, "BUFFER", 3)
    path = tmp_path / "games.db"
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            for n in range(5):  # more than the buffer without a checkpoint: dropped
                bus.publish(started(n))
            assert bus.dropped == 1
            await trio.testing.wait_all_tasks_blocked()
            bus.publish(ended(kalah_record()))
            bus.close()
    assert stored_ids(path) == {kalah_record().game_id}
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert "hub: records: fell 3 events behind and was dropped" in err


async def test_moves_are_not_its_business(tmp_path: Path) -> None:
    # it keeps the ends: a game's moves are neither handed to it (however many) nor made for it
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, tmp_path / "games.db")
            assert bus.subscribers == 1 and not bus.wants_moves
            for n in range(2 * writer_module.BUFFER):
                bus.publish(moved(n))
            assert bus.dropped == 0
            bus.publish(ended(kalah_record()))
            bus.close()
    assert stored_ids(tmp_path / "games.db") == {kalah_record().game_id}


async def test_a_record_that_is_not_json_is_reported_and_skipped(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.db"
    bad = attrs.evolve(chess_record(game_id="bad"), final_state={"fen": object()})
    await record_all(path, kalah_record(), bad, chess_record())
    assert stored_ids(path) == {kalah_record().game_id, chess_record().game_id}
    assert "game bad (chess) cannot be recorded" in capfd.readouterr().err


async def test_a_failed_write_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    failures = [1]
    add_all = RecordStore.add_all

    def flaky(self: RecordStore, records: object) -> None:
        if failures:
            failures.pop()
            raise sqlite3.OperationalError("database is locked")
        add_all(self, records)  # type: ignore[arg-type]

    monkeypatch.setattr(RecordStore, "add_all", flaky)
    monkeypatch.setattr(writer_module, "RETRY_SECONDS", 0.01)
    path = tmp_path / "games.db"
    await record_all(path, kalah_record())
    assert stored_ids(path) == {kalah_record().game_id}
    assert "could not write 1 game(s)" in capfd.readouterr().err


async def test_an_unusable_database_fails_at_start(tmp_path: Path) -> None:
    bus = EventBus()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            with pytest.raises(sqlite3.OperationalError, match="unable to open"):
                await nursery.start(record_games, bus, tmp_path)  # a directory
    assert bus.subscribers == 0


async def test_the_drain_is_bounded_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Another process holds the write lock: cancelled, the recorder gives up after
    DRAIN_SECONDS with a line on stderr; its thread writes the game once the lock is free."""
    monkeypatch.setattr(writer_module, "DRAIN_SECONDS", 0.3)
    path = tmp_path / "games.db"
    RecordStore.open(path).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    bus = EventBus()
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            bus.publish(ended(kalah_record()))
            await trio.testing.wait_all_tasks_blocked()  # its write waits for the lock
            nursery.cancel_scope.cancel()
    assert "gave up waiting after 0.3 s for 1 game(s)" in capfd.readouterr().err
    blocker.execute("ROLLBACK")
    blocker.close()
    with trio.fail_after(10):
        while not stored_ids(path):
            await trio.sleep(0.02)  # the abandoned thread, busy-waiting in SQLite, goes on
    assert stored_ids(path) == {kalah_record().game_id}
