"""Two ``hub serve connect4`` processes on one PostgreSQL database, as the tests of tests/pg
start them (the ``servers`` fixture of tests/pg/conftest.py), and what the tests ask of them."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import psycopg

from hub.records import RecordStore
from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")
DEADLINE = 60.0


@attrs.define
class Server:
    process: subprocess.Popen[str]
    port: int
    web: str

    def lobby(self, game: str = "") -> dict[str, Any]:
        """The lobby's running and recent games (``/api/games``; ``game``'s lobby, under
        ``/GAME/``, of a site)."""
        under = f"{game}/" if game else ""
        with urllib.request.urlopen(f"{self.web}{under}api/games", timeout=30) as answer:
            lobby: dict[str, Any] = json.load(answer)
        return lobby

    def recent(self, game: str = "") -> list[dict[str, Any]]:
        """The lobby's recent games, newest first."""
        return list(self.lobby(game)["recent"])

    def play_bot(self, name: str, games: int) -> None:
        """``games`` whole games of the example bot against the AI, over TCP."""
        bot = [sys.executable, PY_BOT, "--connect", f"127.0.0.1:{self.port}", "--seed", "3"]
        done = subprocess.run(
            [*bot, "--opponent", "ai:1", "--name", name, "--games", str(games)],
            timeout=DEADLINE,
            check=False,
        )
        assert done.returncode == 0


def start_server(url: str, *, site: bool = False) -> Server:
    """``hub serve connect4`` on the database ``url``; with ``site``, ``hub serve`` (every
    game at one address: its ``web`` is then the home page's URL)."""
    games = [] if site else ["connect4"]
    process = subprocess.Popen(
        # (a page gone for 2 s has left: a killed process's person loses sooner)
        [
            program("hub"),
            "serve",
            *games,
            "--db",
            url,
            "--web",
            "0",
            "--tc",
            "none",
            "--grace",
            "2",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    port = process.stderr.readline().strip()
    web = process.stderr.readline().strip()
    assert port.isdigit() and web.startswith("http://127.0.0.1:"), (port, web)
    return Server(process, int(port), web)


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


def posted(url: str) -> int:
    """How many waits are posted on the shared queue."""
    with psycopg.connect(url) as db:
        row = db.execute("SELECT count(*) FROM hub_waiting").fetchone()
    return 0 if row is None else int(row[0])


def bot(server: Server, name: str, *more: str) -> subprocess.Popen[bytes]:
    """The example bot over TCP, asking for the next player to arrive (``more``: its other
    arguments, e.g. ``--game kalah``, ``--tc 180+2``)."""
    address = f"127.0.0.1:{server.port}"
    return subprocess.Popen([sys.executable, PY_BOT, "--connect", address, "--name", name, *more])
