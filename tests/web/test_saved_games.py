"""Every command with ``--web`` lists the games saved in its records database and replays
them (issue 18: ``hub serve kalah --web`` once said "No game has finished yet." beside a
database of 30 Kalah games): each is started as a user would, with ``--db`` naming a
database that holds one finished game written by the records writer."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import httpx
import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded
from hub.records import record_games
from hub.web.records import RecordLookup, RecordsReader
from tests.conftest import program
from tests.records.helpers import kalah_record

pytestmark = pytest.mark.e2e

SAVED = "5a7ed0001"
TIMEOUT = 60

COMMANDS = {
    "hub serve kalah": ["serve", "kalah"],
    "hub serve connect4": ["serve", "connect4", "--tc", "none"],
    "hub serve uqchess": ["serve", "uqchess"],
    "hub play connect4": ["play", "connect4", "web", "ai:1", "--seed", "1"],
}


async def seed(path: Path) -> None:
    """A database holding one finished Kalah game, written by the records writer."""
    bus = EventBus()
    record = kalah_record(game_id=SAVED)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(record_games, bus, path)
            bus.publish(GameEnded(record.game_id, record, 0.0))
            bus.close()


def web_url(process: subprocess.Popen[str]) -> str:
    """The first URL the command prints on stderr (after its port, if it prints one)."""
    assert process.stderr is not None
    for _ in range(5):
        line = process.stderr.readline()
        if line.startswith("http://"):
            return line.strip()
        assert line, "the command ended before printing its web URL"
    raise AssertionError("no web URL on stderr")


@pytest.mark.parametrize("command", list(COMMANDS))
async def test_the_lobby_lists_a_saved_game_and_replays_it(command: str, tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    await seed(path)
    process = subprocess.Popen(
        [program("hub"), *COMMANDS[command], "--web", "0", "--db", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = web_url(process).removesuffix("/")
        base = url.split("/", 3)
        site = "/".join(base[:3])
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            lobby = await client.get(f"{site}/")
            assert lobby.status_code == 200
            assert f'href="/game/{SAVED}"' in lobby.text
            assert 'id="no-recent" hidden>No game has finished yet.' in lobby.text
            first = ""
            async with client.stream("GET", f"{site}/events") as stream:  # its first frame
                async for line in stream.aiter_lines():
                    if line.startswith("data:"):
                        first = line
                        break
            assert first.startswith('data: {"type":"lobby"') and SAVED in first  # still listed
            replay = await client.get(f"{site}/game/{SAVED}")
            assert replay.status_code == 200 and "kalah" in replay.text
            ply = await client.get(f"{site}/api/game/{SAVED}/ply/1")
            assert ply.status_code == 200
    finally:
        process.send_signal(2)
        assert process.wait(timeout=TIMEOUT) == 130
        assert process.stderr is not None
        process.stderr.close()


async def test_a_database_that_cannot_be_read_costs_the_pages_only_the_saved_games() -> None:
    def unreadable() -> RecordLookup:
        raise sqlite3.OperationalError("unable to open database file")

    reader = RecordsReader(unreadable)
    assert await reader.recent(10) == [] and await reader.get(SAVED) is None


@pytest.mark.parametrize("command", ["hub serve kalah", "hub serve connect4", "hub serve uqchess"])
def test_a_server_opens_its_database_before_it_prints_its_port(
    command: str, tmp_path: Path
) -> None:
    """A signal sent once the port is out (tests/test_signals.py does) never lands while the
    records writer is imported or the database opened: the database exists by then."""
    path = tmp_path / "new.db"
    process = subprocess.Popen(
        [program("hub"), *COMMANDS[command], "--db", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        while line.startswith(f"{command.replace('hub serve ', 'uqchessserver: ')}"):
            line = process.stderr.readline()  # no Stockfish: the built-in engine, one line
        assert line.strip().isdigit(), line
        assert path.exists()
    finally:
        process.send_signal(2)
        assert process.wait(timeout=TIMEOUT) == 130
        assert process.stderr is not None
        process.stderr.close()
