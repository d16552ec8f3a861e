"""record_games on PostgreSQL: a connection that the server ends (a restart, a network
failure: here pg_terminate_backend) costs a retry, not the games: the writer opens the store
again and writes them."""

from __future__ import annotations

import time

import psycopg
import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded
from hub.records import RecordStore, record_games
from hub.records import writer as writer_module
from tests.records.helpers import chess_record

pytestmark = pytest.mark.system


def stored(url: str) -> set[str]:
    with RecordStore.open(url) as store:
        return {game.game_id for game in store.games()}


async def until_stored(url: str, game_id: str) -> None:
    """Until another connection sees ``game_id`` (the writer's thread commits it)."""
    deadline = time.monotonic() + 30
    while game_id not in await trio.to_thread.run_sync(stored, url):
        assert time.monotonic() < deadline, f"{game_id} never stored"
        await trio.sleep(0.05)


def end_every_other_connection(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


async def test_a_connection_ended_by_the_server_costs_a_retry_not_a_game(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(writer_module, "RETRY_SECONDS", 0.05)
    bus = EventBus()
    first, second = chess_record(game_id="before"), chess_record(game_id="after")
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, pg_url)
            bus.publish(GameEnded(first.game_id, first, 0.0))
            await until_stored(pg_url, "before")
            assert await trio.to_thread.run_sync(end_every_other_connection, pg_url) >= 1
            bus.publish(GameEnded(second.game_id, second, 0.0))
            await until_stored(pg_url, "after")
            bus.close()
    assert stored(pg_url) == {"before", "after"}
    assert "could not write 1 game(s) to postgresql://" in capfd.readouterr().err
