"""The shared waiting queue pairs equal choices only (issue 27 items 1 and 4): a bot that
asks two ``hub serve connect4`` processes on one PostgreSQL for another time control or other
settings of the game waits on that choice's own queue at every process, is paired across
the processes only with a player of the same choice, and is relayed with its choice (the
game is played and recorded on it)."""

from __future__ import annotations

import subprocess

import pytest

from hub.records import RecordStore
from tests.pg.servers import DEADLINE, Server, bot, posted, recorded, wait_for

pytestmark = pytest.mark.system

SMALL = ("--tc", "180+2", "--settings", '{"rows": 5}')


def test_bots_at_two_processes_pair_only_on_equal_choices(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers
    started: list[subprocess.Popen[bytes]] = []
    try:
        started.append(first := bot(one, "small", *SMALL))
        wait_for(lambda: posted(pg_url) == 1, "the first bot's wait posted")
        started.append(plain := bot(two, "plain"))  # the server's own terms: not the same
        wait_for(lambda: posted(pg_url) == 2, "the plain bot's wait posted")
        started.append(slower := bot(two, "slower", "--tc", "180+2"))  # 6 rows: not the same
        wait_for(lambda: posted(pg_url) == 3, "the 180+2 bot's wait posted")
        started.append(same := bot(two, "same", *SMALL))  # relayed to one, with its choice
        assert same.wait(timeout=DEADLINE) == 0
        assert first.wait(timeout=DEADLINE) == 0
        assert plain.poll() is None and slower.poll() is None  # still waiting
        assert posted(pg_url) == 2
    finally:
        for process in started:
            process.kill()
            process.wait()
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [(game_id, players)] = recorded(pg_url).items()
    assert sorted(players) == ["same", "small"]
    with RecordStore.open(pg_url) as store:
        record = store.get(game_id)
    assert record is not None
    assert record.settings["rows"] == 5 and record.time_controls == ("180+2", "180+2")
    assert [row["id"] for row in one.recent()] == [game_id]  # played at one, where small waited
    wait_for(lambda: posted(pg_url) == 0, "the other waits withdrawn as their bots left")
