"""The waiting queue shared by two ``hub serve connect4`` processes on one PostgreSQL: a player
waiting for "the next to arrive" on one process is paired with a TCP bot that connects to the
other (relayed there: hub/declared/relay.py), the game is played and recorded once, and both
processes list it. A process that died leaves its posts behind: a bot that claims one is
paired at home instead."""

from __future__ import annotations

import signal
import subprocess
from typing import Any

import pytest

from tests.pg.servers import DEADLINE, Server, bot, posted, recorded, wait_for
from tests.web.browser import run_in_browser

pytestmark = pytest.mark.system


def test_a_bot_waiting_on_one_process_plays_a_bot_that_came_to_the_other(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers
    first = bot(one, "first")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the first bot's wait posted")
        second = bot(two, "second")
        assert second.wait(timeout=DEADLINE) == 0
        assert first.wait(timeout=DEADLINE) == 0
    finally:
        first.kill()
        first.wait()
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [players] = recorded(pg_url).values()
    assert sorted(players) == ["first", "second"]  # one game, recorded once
    assert posted(pg_url) == 0
    for server in (one, two):
        assert [row["id"] for row in server.recent()] == list(recorded(pg_url))


def test_a_post_of_a_process_that_died_is_skipped(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers
    waiting = bot(one, "orphan")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the wait posted")
        one.process.send_signal(signal.SIGKILL)
        assert one.process.wait(timeout=30) == -signal.SIGKILL
        waiting.wait(timeout=DEADLINE)  # its server went away: it ends
    finally:
        waiting.kill()
        waiting.wait()
    assert posted(pg_url) == 1  # (nobody withdrew it)
    pair = [bot(two, "a"), bot(two, "b")]  # the first claims the dead post, then waits here
    assert [process.wait(timeout=DEADLINE) for process in pair] == [0, 0]
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game at home recorded")
    [players] = recorded(pg_url).values()
    assert sorted(players) == ["a", "b"]


@pytest.mark.browser
async def test_a_browser_waiting_on_one_process_plays_a_bot_that_came_to_the_other(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    from tests.declared.test_browser_seat import drive

    one, two = servers
    started: list[subprocess.Popen[bytes]] = []

    def script(page: Any) -> list[str]:
        page.goto(one.web)
        page.locator('button[data-opponent="any"]').click()
        page.wait_for_url("**/play/*")
        wait_for(lambda: posted(pg_url) == 1, "the browser's wait posted")
        started.append(bot(two, "tcpbot"))
        return drive([page], shots="pg-browser-on-one-bot-on-two")

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
    assert [row["id"] for row in two.recent()] == list(recorded(pg_url))


@pytest.mark.browser
async def test_a_bot_waiting_on_one_process_is_called_to_a_browser_on_the_other(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    """The other way round: the bot waits first, at the second process; the person who asks
    for the next to arrive at the first calls it over (NOTIFY), and it is relayed there."""
    from tests.declared.test_browser_seat import drive

    one, two = servers
    waiting = bot(two, "called-over")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the bot's wait posted")

        def script(page: Any) -> list[str]:
            page.goto(one.web)
            page.locator('button[data-opponent="any"]').click()
            page.wait_for_url("**/play/*")
            return drive([page], shots="pg-bot-called-to-a-browser")

        (result,) = await run_in_browser(script)
        assert waiting.wait(timeout=DEADLINE) == 0
    finally:
        waiting.kill()
        waiting.wait()
    assert "wins" in result or "draw" in result
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [players] = recorded(pg_url).values()
    assert sorted(players) == ["browser", "called-over"]
    assert posted(pg_url) == 0


def test_the_sharing_survives_connections_ended_by_the_server(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    """Every connection of both processes is ended (as by a PostgreSQL restart): the web view
    still lists the games from the database, the next bots are still paired across the
    processes, and their game is recorded."""
    from tests.pg.test_writer import end_every_other_connection

    one, two = servers
    one.play_bot("warm-up", 1)  # (every connection open: the writer's, the board's, ...)
    wait_for(lambda: len(recorded(pg_url)) == 1, "the warm-up game recorded")
    assert [row["id"] for row in two.recent()] == list(recorded(pg_url))  # (a kept connection)
    assert end_every_other_connection(pg_url) >= 4  # two boards and two listeners at least
    assert [row["id"] for row in two.recent()] == list(recorded(pg_url))  # on a new one
    first = bot(one, "first")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the first bot's wait posted")
        second = bot(two, "second")
        assert second.wait(timeout=DEADLINE) == 0
        assert first.wait(timeout=DEADLINE) == 0
    finally:
        first.kill()
        first.wait()
    wait_for(lambda: len(recorded(pg_url)) == 2, "the game recorded")
    games = [sorted(players) for players in recorded(pg_url).values() if "warm-up" not in players]
    assert games == [["first", "second"]]


def test_a_relayed_client_is_let_go_when_the_process_it_plays_at_dies(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    """The relaying process ends its client's connection when the game's process goes: the
    client is not left waiting for a game that will never come."""
    from tests.pg.test_two_servers import MidGame

    one, two = servers
    waiting = bot(one, "host-side")
    try:
        wait_for(lambda: posted(pg_url) == 1, "the wait posted")
        relayed = MidGame(two.port, opponent="any")  # relayed to one: a game in progress there
        try:
            assert relayed.start["players"].count("cut-off") == 1
            one.process.send_signal(signal.SIGKILL)
            assert one.process.wait(timeout=30) == -signal.SIGKILL
            left = relayed.rest()
            assert "end" not in left and "error" not in left  # EOF from two at once: cut off
        finally:
            relayed.close()
    finally:
        waiting.kill()
        waiting.wait()
    assert two.process.poll() is None  # two serves on
    two.play_bot("after", 1)  # against its AI, to show it
