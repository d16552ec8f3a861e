"""Two ``hub serve connect4`` processes on one PostgreSQL database (``--db postgresql://...``),
as a user runs them: both record, both list every finished game (the web view's ``/api/games``
reads its recent games from the database), and after a SIGKILL of one in the middle of a game
the other keeps serving and nothing that was recorded is lost. The game the killed process
was playing is not recorded (it never finished: docs/postgres.md)."""

from __future__ import annotations

import json
import signal
import socket
from typing import Any

import pytest

from tests.pg.servers import DEADLINE, Server, recorded, wait_for

pytestmark = pytest.mark.system


class MidGame:
    """A bot that starts a game against the AI and moves once, then waits: a game in
    progress."""

    def __init__(self, port: int, opponent: str = "ai:1", game: str = "") -> None:
        self.connection = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        self.lines = self.connection.makefile("r", encoding="utf-8")
        hello = {"type": "hello", "name": "cut-off", "opponent": opponent}
        if game:  # (a site: every game at one port)
            hello["game"] = game
        self.send(hello)
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

    def rest(self) -> list[str]:
        """The types of the messages the server still sends until the connection closes."""
        return [json.loads(line)["type"] for line in self.lines.read().splitlines()]

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
        assert "end" not in cut_off.rest()  # the game was cut off, not ended
    finally:
        cut_off.close()
    assert recorded(pg_url) == games  # nothing recorded is lost, the cut-off game not added

    two.play_bot("after-the-kill", 1)  # the other process keeps serving and recording
    wait_for(lambda: len(recorded(pg_url)) == 4, "the game after the kill recorded")
    after = recorded(pg_url)
    assert set(games) < set(after)
    assert {row["id"] for row in two.recent()} == set(after)
    assert not any("cut-off" in players for players in after.values())
