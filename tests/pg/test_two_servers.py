"""Two ``hub serve connect4`` processes on one PostgreSQL database (``--db postgresql://...``),
as a user runs them: both record, both list every finished game (the web view's ``/api/games``
reads its recent games from the database), and after a SIGKILL of one in the middle of a game
the other keeps serving and nothing that was recorded is lost. The game the killed process
was playing is not recorded (it never finished: docs/postgres.md)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from hub.records import RecordStore
from tests.conftest import program

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")
DEADLINE = 60.0


@attrs.define
class Server:
    process: subprocess.Popen[str]
    port: int
    web: str

    def recent(self) -> list[dict[str, Any]]:
        """The lobby's recent games (``/api/games``), newest first."""
        with urllib.request.urlopen(f"{self.web}api/games", timeout=30) as answer:
            lobby: dict[str, Any] = json.load(answer)
        return list(lobby["recent"])

    def play_bot(self, name: str, games: int) -> None:
        """``games`` whole games of the example bot against the AI, over TCP."""
        bot = [sys.executable, PY_BOT, "--connect", f"127.0.0.1:{self.port}", "--seed", "3"]
        done = subprocess.run(
            [*bot, "--opponent", "ai:1", "--name", name, "--games", str(games)],
            timeout=DEADLINE,
            check=False,
        )
        assert done.returncode == 0


def start_server(url: str) -> Server:
    process = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--db", url, "--web", "0", "--tc", "none"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    port = process.stderr.readline().strip()
    web = process.stderr.readline().strip()
    assert port.isdigit() and web.startswith("http://127.0.0.1:"), (port, web)
    return Server(process, int(port), web)


@pytest.fixture
def servers(pg_url: str) -> Iterator[tuple[Server, Server]]:
    started: list[Server] = []
    try:
        started.append(start_server(pg_url))
        started.append(start_server(pg_url))
        yield started[0], started[1]
    finally:
        for server in started:
            if server.process.poll() is None:
                server.process.send_signal(signal.SIGINT)
                try:
                    server.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.process.kill()
                    server.process.wait()
            assert server.process.stderr is not None
            server.process.stderr.close()


def wait_for(check: Callable[[], bool], what: str) -> None:
    """Until ``check()`` (another process's commit is seen only by asking again)."""
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"still not {what} after {DEADLINE:g} s"
        time.sleep(0.05)


def recorded(url: str) -> dict[str, tuple[str, ...]]:
    """Every recorded game's players, by id."""
    with RecordStore.open(url) as store:
        return {game.game_id: game.players for game in store.games()}


class MidGame:
    """A bot that starts a game against the AI and moves once, then waits: a game in
    progress."""

    def __init__(self, port: int) -> None:
        self.connection = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        self.lines = self.connection.makefile("r", encoding="utf-8")
        self.send({"type": "hello", "name": "cut-off", "opponent": "ai:1"})
        self.start = self.until("start")
        turn = self.until("turn")
        self.send({"move": turn["legal"][0]})
        self.until("moved")

    def send(self, message: dict[str, Any]) -> None:
        self.connection.sendall((json.dumps(message) + "\n").encode())

    def until(self, kind: str) -> dict[str, Any]:
        for line in self.lines:
            message: dict[str, Any] = json.loads(line)
            if message["type"] == kind:
                return message
        raise AssertionError(f"the connection closed before a {kind!r}")

    def rest(self) -> str:
        """What the server still sends until the connection closes."""
        return self.lines.read()

    def close(self) -> None:
        self.lines.close()
        self.connection.close()


def test_two_servers_record_and_list_every_game_and_survive_a_sigkill(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers
    one.play_bot("on-one", 2)
    two.play_bot("on-two", 1)
    wait_for(lambda: len(recorded(pg_url)) == 3, "3 games recorded")
    games = recorded(pg_url)
    assert sorted(name for players in games.values() for name in players if "on-" in name) == [
        "on-one",
        "on-one",
        "on-two",
    ]
    for server in (one, two):  # each lists the other's games too, from the database
        assert {row["id"] for row in server.recent()} == set(games)

    cut_off = MidGame(one.port)
    try:
        one.process.send_signal(signal.SIGKILL)
        assert one.process.wait(timeout=30) == -signal.SIGKILL
        assert '"type": "end"' not in cut_off.rest()  # the game was cut off, not ended
    finally:
        cut_off.close()
    assert recorded(pg_url) == games  # nothing recorded is lost, the cut-off game not added

    two.play_bot("after-the-kill", 1)  # the other process keeps serving and recording
    wait_for(lambda: len(recorded(pg_url)) == 4, "the game after the kill recorded")
    after = recorded(pg_url)
    assert set(games) < set(after)
    assert {row["id"] for row in two.recent()} == set(after)
    assert not any("cut-off" in players for players in after.values())
