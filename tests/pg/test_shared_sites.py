"""Two ``hub serve`` processes (every game at one address) on one PostgreSQL share each
game's waiting queue (issue 27 item 4): a bot waiting for connect4 at one process's site plays
a bot that came to the other's; a person waiting in a browser at one plays a bot that came to
the other (relayed with its hello's game: hub/declared/relay.py). Each game is recorded once
and listed by both."""

from __future__ import annotations

import signal
import subprocess
import urllib.error
import urllib.request
from typing import Any

import psycopg
import pytest

from hub.records.live import STALE
from tests.pg.servers import DEADLINE, Server, posted, recorded, wait_for
from tests.pg.servers import bot as any_bot
from tests.web.browser import run_in_browser

pytestmark = pytest.mark.system


def bot(server: Server, name: str, game: str = "connect4") -> subprocess.Popen[bytes]:
    """The example bot at a site, asking for ``game`` against the next player to arrive."""
    return any_bot(server, name, "--game", game)


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


def running(server: Server) -> dict[str, dict[str, Any]]:
    """The connect4 lobby's running games, by id."""
    return {row["id"]: row for row in server.lobby("connect4")["running"]}


def page(server: Server, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"{server.web}{path}", timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_both_sites_list_a_game_running_at_one_until_it_ends_or_its_process_dies(
    pg_url: str, sites: tuple[Server, Server]
) -> None:
    from tests.pg.test_two_servers import MidGame

    one, two = sites
    playing = MidGame(one.port, game="connect4")  # a game in progress at one
    try:
        wait_for(lambda: len(running(one)) == 1, "the game listed at its own process")
        [(game_id, here)] = running(one).items()
        assert not here.get("elsewhere") and here["ply"] >= 1
        wait_for(lambda: game_id in running(two), "the game listed at the other process")
        there = running(two)[game_id]
        assert there["elsewhere"] and there["words"] == "playing at another process"
        assert [p["name"] for p in there["players"]] == [p["name"] for p in here["players"]]
        status, text = page(two, f"connect4/game/{game_id}")  # its page there says where
        assert status == 200 and "being played at another process" in text
        status, text = page(two, "")  # the home page counts it
        assert status == 200 and '<tr data-game="connect4">' in text
        assert "<td>1</td>" in text.split('<tr data-game="connect4">')[1].split("</tr>")[0]
    finally:
        playing.close()  # it leaves: the game ends (and is recorded)
    wait_for(lambda: not running(two) and not running(one), "the ended game unlisted")
    wait_for(lambda: len(recorded(pg_url)) == 1, "the ended game recorded")
    status, text = page(two, f"connect4/game/{game_id}")
    assert status == 200 and "being played at another process" not in text  # the record

    cut_off = MidGame(one.port, game="connect4")  # another, at one, which then dies
    try:
        wait_for(lambda: len(running(two)) == 1, "the second game listed at the other")
        one.process.send_signal(signal.SIGKILL)
        assert one.process.wait(timeout=30) == -signal.SIGKILL
        assert len(running(two)) == 1  # (its rows stay until its heartbeat is old)
        with psycopg.connect(pg_url, autocommit=True) as db:  # time passes: STALE seconds
            db.execute("UPDATE hub_processes SET seen = seen - %s", (STALE + 1,))
        wait_for(lambda: not running(two), "the dead process's game unlisted")
    finally:
        cut_off.close()
    assert two.lobby("connect4")["recent"]  # (two still serves)


def test_two_servers_of_one_game_list_each_others_running_games(
    servers: tuple[Server, Server],
) -> None:
    """``hub serve GAME`` processes share the list too (and so a site and such a server)."""
    from tests.pg.test_two_servers import MidGame

    one, two = servers
    playing = MidGame(two.port)
    try:
        wait_for(lambda: len(two.lobby()["running"]) == 1, "the game listed at its process")
        [here] = two.lobby()["running"]
        wait_for(lambda: len(one.lobby()["running"]) == 1, "the game listed at the other")
        [there] = one.lobby()["running"]
        assert there["id"] == here["id"] and there["elsewhere"]
    finally:
        playing.close()
    wait_for(lambda: not one.lobby()["running"], "the ended game unlisted")


def test_a_site_and_a_server_of_one_game_share_its_queue(pg_url: str) -> None:
    """A bot waiting at ``hub serve connect4`` plays one that came to a ``hub serve`` site
    (relayed there with its hello's game: the relay takes a one-game welcome)."""
    from tests.pg.conftest import _two

    one_game = _two(pg_url, site=False, mixed=True)
    single, site = next(one_game)
    try:
        waiting = any_bot(single, "one")
        try:
            wait_for(lambda: posted(pg_url) == 1, "the first bot's wait posted")
            assert bot(site, "other").wait(timeout=DEADLINE) == 0
            assert waiting.wait(timeout=DEADLINE) == 0
        finally:
            waiting.kill()
            waiting.wait()
        wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
        [players] = recorded(pg_url).values()
        assert sorted(players) == ["one", "other"]
    finally:
        one_game.close()
