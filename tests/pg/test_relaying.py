"""hub/records/relaying.py on a real PostgreSQL: a message is taken once, by its recipient
only, in the order written, and leaves no row; a body over `MAX_BODY` is not written; rows
nobody took for `ORPHANED` seconds are deleted by the next writer; a notice wakes the
recipient's listener only; `fresh` tells which processes wrote their heartbeat lately."""

from __future__ import annotations

import select
from collections.abc import Iterator

import psycopg
import pytest

from hub.records import live, relaying
from hub.records.database import PostgresUrl, location
from hub.records.waiting import WaitingBoard

pytestmark = pytest.mark.system


@pytest.fixture
def boards(pg_url: str) -> Iterator[tuple[WaitingBoard, WaitingBoard]]:
    url = location(pg_url)
    assert isinstance(url, PostgresUrl)
    one, two = WaitingBoard.open(url, "one:1"), WaitingBoard.open(url, "two:2")
    relaying.create(one)
    relaying.create(two)  # (twice: no harm)
    try:
        yield one, two
    finally:
        one.close()
        two.close()


def count(url: str) -> int:
    with psycopg.connect(url) as db:
        row = db.execute("SELECT count(*) FROM hub_relay").fetchone()
    return 0 if row is None else int(row[0])


def test_a_message_is_taken_once_by_its_recipient_in_order(
    pg_url: str, boards: tuple[WaitingBoard, WaitingBoard]
) -> None:
    one, two = boards
    sent = [(two.process, "a", {"n": n}) for n in range(5)] + [(one.process, "b", {"n": 9})]
    assert relaying.send(one, sent) == 6
    assert relaying.take(two) == [("a", {"n": n}) for n in range(5)]
    assert relaying.take(two) == []  # (taken once)
    assert count(pg_url) == 1  # one's own, not taken yet
    assert relaying.take(one) == [("b", {"n": 9})]
    assert count(pg_url) == 0


def test_a_body_too_big_is_not_written_and_orphans_are_deleted(
    pg_url: str, boards: tuple[WaitingBoard, WaitingBoard]
) -> None:
    one, two = boards
    big = {"view": "x" * relaying.MAX_BODY}
    assert relaying.send(one, [(two.process, "a", big)]) == 0
    assert relaying.send(one, [("dead:3", "a", {"n": 1})]) == 1
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE hub_relay SET sent = sent - %s", (relaying.ORPHANED + 1,))
    assert relaying.send(one, [(two.process, "b", {"n": 2})]) == 1
    assert count(pg_url) == 1  # the dead recipient's is gone, two's is there
    assert relaying.take(two) == [("b", {"n": 2})]


def test_a_notice_wakes_its_recipient_only(
    pg_url: str, boards: tuple[WaitingBoard, WaitingBoard]
) -> None:
    one, two = boards
    url = location(pg_url)
    assert isinstance(url, PostgresUrl)
    listeners = [relaying.RelayListener.open(url, board.process) for board in boards]
    try:
        relaying.send(one, [(two.process, "a", {"n": 1})])
        ready, _, _ = select.select([listeners[1].fileno()], [], [], 30)
        assert ready and listeners[1].mine()
        select.select([listeners[0].fileno()], [], [], 30)  # (the same notice reached it)
        assert not listeners[0].mine()
    finally:
        for listener in listeners:
            listener.close()


def test_fresh_names_the_processes_heard_from_lately(
    boards: tuple[WaitingBoard, WaitingBoard],
) -> None:
    one, two = boards
    live.create(one)
    assert relaying.fresh(one, [one.process, two.process], 5.0) == set()
    live.write(two, [], [])  # (two's heartbeat)
    assert relaying.fresh(one, [one.process, two.process, "gone:9"], 5.0) == {two.process}
    assert relaying.fresh(one, [], 5.0) == set()
