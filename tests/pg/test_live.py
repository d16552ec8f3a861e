"""hub/records/live.py on a real PostgreSQL: two processes' `LiveList`s (each on a shared
queue of its own, as two ``hub serve`` processes) list each other's running games; a game
that ends within a tick is never written; a dead process's games are ignored after `STALE`
seconds without a heartbeat and deleted after `GONE`; at most `SHOWN` games per game are
listed (with the count of all); a write that fails is made at the next tick."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import attrs
import psycopg
import pytest
import trio

from hub.core.model.events import GameEnded
from hub.records.database import location
from hub.records.live import GONE, SHOWN, STALE, LiveList, LiveRow, create
from hub.records.waiting import SharedQueue, WaitingBoard
from tests.records.helpers import chess_record
from tests.web.helpers import started

pytestmark = pytest.mark.system


def rows(url: str, sql: str = "SELECT count(*) FROM hub_live") -> int:
    with psycopg.connect(url) as db:
        found = db.execute(sql).fetchone()
    return 0 if found is None else int(found[0])


def age(url: str, process: str, seconds: float) -> None:
    """``process`` last heard from ``seconds`` earlier."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "UPDATE hub_processes SET seen = seen - %s WHERE process = %s", (seconds, process)
        )


def ended(game_id: str) -> GameEnded:
    return GameEnded(game_id, chess_record(game_id=game_id), 0.0)


@pytest.fixture
async def pair(pg_url: str) -> AsyncIterator[tuple[LiveList, LiveList]]:
    warnings: list[str] = []
    where = location(pg_url)
    queues = [await SharedQueue.open(where, f"127.0.0.1:{n}", warnings.append) for n in (1, 2)]
    await queues[0].on_board(create)
    try:
        yield LiveList(queues[0]), LiveList(queues[1])
    finally:
        for queue in queues:
            await queue.aclose()
    assert warnings == []


def ids(live: LiveList, game: str = "connect4") -> list[str]:
    return [row.game_id for row in live.seen.games.get(game, ())]


async def test_each_process_lists_the_others_running_games_until_they_end(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, two = pair
    shown: list[tuple[LiveRow, ...]] = []
    two.follow("connect4", shown.append)
    assert shown == [()]  # at once, with the last read
    one.listen(started("g1", "connect4", {}, ["a", "b"]))
    one.listen(started("k1", "kalah", {}, ["c", "d"]))
    await one.tick()
    await two.tick()
    assert ids(two) == ["g1"] and ids(two, "kalah") == ["k1"]
    assert two.seen.playing == {"connect4": 1, "kalah": 1}
    assert [p["name"] for p in two.seen.games["connect4"][0].players] == ["a", "b"]
    assert [ids_of(rows_) for rows_ in shown] == [[], ["g1"]]  # (kalah's: not followed)
    assert ids(one) == []  # (its own games are not the others')
    await two.tick()
    assert len(shown) == 2  # nothing changed: not shown again
    one.listen(ended("g1"))
    await one.tick()
    await two.tick()
    assert ids(two) == [] and ids(two, "kalah") == ["k1"]
    assert [ids_of(rows_) for rows_ in shown] == [[], ["g1"], []]


def ids_of(found: tuple[LiveRow, ...]) -> list[str]:
    return [row.game_id for row in found]


async def test_a_game_that_ends_within_a_tick_is_never_written(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, _ = pair
    one.listen(started("quick", "connect4", {}, ["a", "b"]))
    one.listen(ended("quick"))
    await one.tick()
    assert rows(pg_url) == 0
    assert rows(pg_url, "SELECT count(*) FROM hub_processes") == 1  # (its heartbeat)


async def test_a_dead_process_is_ignored_then_forgotten(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, two = pair
    one.listen(started("g1", "connect4", {}, ["a", "b"]))
    await one.tick()
    await two.tick()
    assert ids(two) == ["g1"]
    process = one.queue.board.process
    age(pg_url, process, STALE - 2)
    await two.tick()
    assert ids(two) == ["g1"]  # heard from recently enough
    age(pg_url, process, 3)
    await two.tick()
    assert ids(two) == [] and rows(pg_url) == 1  # ignored, not deleted yet
    age(pg_url, process, GONE)
    await two.tick()
    assert rows(pg_url) == 0  # deleted by the next process's write


async def test_at_most_shown_games_per_game_are_listed_with_the_count_of_all(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, two = pair
    for n in range(SHOWN + 5):
        event = started(f"g{n:03}", "connect4", {}, ["a", "b"])
        one.listen(attrs.evolve(event, at=float(n)))  # (g104 the newest)
    await one.tick()
    await two.tick()
    assert two.seen.playing == {"connect4": SHOWN + 5}
    assert ids(two) == [f"g{n:03}" for n in range(SHOWN + 4, 4, -1)]  # the newest first


class Failing:
    """A shared queue whose board calls fail (None, as `SharedQueue.on_board` after its
    warning) while ``failing``."""

    def __init__(self, queue: SharedQueue) -> None:
        self.queue = queue
        self.failing = True

    async def on_board(self, call: Callable[[WaitingBoard], Any]) -> Any:
        return None if self.failing else await self.queue.on_board(call)


async def test_a_write_that_fails_is_made_at_the_next_tick(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, two = pair
    failing = Failing(one.queue)
    flaky = LiveList(failing)  # type: ignore[arg-type]
    flaky.listen(started("kept", "connect4", {}, ["a", "b"]))
    flaky.listen(started("over", "connect4", {}, ["a", "b"]))
    await flaky.tick()
    flaky.listen(ended("over"))  # ended before it could be written: never will be
    failing.failing = False
    await flaky.tick()
    await two.tick()
    assert ids(two) == ["kept"] and rows(pg_url) == 1
    with trio.fail_after(5):
        flaky.listen(ended("kept"))
        await flaky.tick()
    await two.tick()
    assert ids(two) == [] and rows(pg_url) == 0


async def test_a_process_that_stops_deletes_its_rows(
    pg_url: str, pair: tuple[LiveList, LiveList]
) -> None:
    one, two = pair
    one.listen(started("g1", "connect4", {}, ["a", "b"]))
    await one.tick()
    await two.tick()
    assert rows(pg_url) == 1 and rows(pg_url, "SELECT count(*) FROM hub_processes") == 2
    await one.aclose()
    assert rows(pg_url) == 0 and rows(pg_url, "SELECT count(*) FROM hub_processes") == 1
    await two.tick()
    assert ids(two) == []
