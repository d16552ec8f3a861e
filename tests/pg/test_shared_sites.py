"""Two ``hub serve`` processes (every game at one address) on one PostgreSQL share each
game's waiting queue (issue 27 item 4): a bot waiting for connect4 at one process's site plays
a bot that came to the other's; a person waiting in a browser at one plays a bot that came to
the other (relayed with its hello's game: hub/declared/relay.py). Each game is recorded once
and listed by both."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.pg.servers import DEADLINE, PY_BOT, Server, recorded, wait_for
from tests.pg.test_shared_queue import posted
from tests.web.browser import run_in_browser

pytestmark = pytest.mark.system


def bot(server: Server, name: str, game: str = "connect4") -> subprocess.Popen[bytes]:
    """The example bot at a site, asking for ``game`` against the next player to arrive."""
    address = f"127.0.0.1:{server.port}"
    return subprocess.Popen(
        [sys.executable, PY_BOT, "--connect", address, "--game", game, "--name", name]
    )


def test_a_bot_waiting_at_one_site_plays_a_bot_that_came_to_the_other(
    pg_url: str, sites: tuple[Server, Server]
) -> None:
    one, two = sites
    first = bot(one, "first")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the first bot's wait posted")
        other_game = bot(two, "kalah-bot", "kalah")  # waits for kalah: no partner for first
        try:
            wait_for(lambda: posted(pg_url) == 2, "the kalah bot's wait posted")
            second = bot(two, "second")
            assert second.wait(timeout=DEADLINE) == 0
            assert first.wait(timeout=DEADLINE) == 0
            assert other_game.poll() is None  # still waiting for kalah
        finally:
            other_game.kill()
            other_game.wait()
    finally:
        first.kill()
        first.wait()
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [players] = recorded(pg_url).values()
    assert sorted(players) == ["first", "second"]  # one game of connect4, recorded once
    wait_for(lambda: posted(pg_url) == 0, "the kalah bot's wait withdrawn")
    for server in (one, two):
        assert [row["id"] for row in server.recent("connect4")] == list(recorded(pg_url))
        assert server.recent("kalah") == []


@pytest.mark.browser
async def test_a_browser_waiting_at_one_site_plays_a_bot_that_came_to_the_other(
    pg_url: str, sites: tuple[Server, Server]
) -> None:
    from tests.declared.test_browser_seat import drive

    one, two = sites
    started: list[subprocess.Popen[bytes]] = []

    def script(page: Any) -> list[str]:
        page.goto(f"{one.web}connect4/")
        page.locator('button[data-opponent="any"]').click()
        page.wait_for_url("**/play/*")
        wait_for(lambda: posted(pg_url) == 1, "the browser's wait posted")
        started.append(bot(two, "tcpbot"))
        return drive([page], shots="pg-site-browser-on-one-bot-on-two")

    try:
        (result,) = await run_in_browser(script)
        assert started and started[0].wait(timeout=DEADLINE) == 0
    finally:
        for process in started:
            process.kill()
            process.wait()
    assert "wins" in result or "draw" in result
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [players] = recorded(pg_url).values()
    assert sorted(players) == ["browser", "tcpbot"]
    assert [row["id"] for row in two.recent("connect4")] == list(recorded(pg_url))
