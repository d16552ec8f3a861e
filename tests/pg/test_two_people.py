"""Two people in browsers (Chromium) at two ``hub serve connect4`` processes on one
PostgreSQL, paired through "the next player to arrive" (hub/declared/remote.py): the second
to arrive plays at the first's process, their page staying at their own. The game is played
to its end, recorded once and listed by both; neither page can be driven with the other's
token at either process; a guest process killed mid-game costs its person the game (a
disconnect, recorded by the host), and a host killed mid-game is a game cut off on the
guest's page."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from typing import Any

import pytest

from hub.core.model.referee import Termination
from hub.records import RecordStore
from tests.pg.servers import Server, posted, recorded, wait_for
from tests.web.browser import run_in_browser

pytestmark = [pytest.mark.system, pytest.mark.browser]


def wait_at(server: Server, page: Any, tc: str = "", game: str = "") -> str:
    """``page`` asks ``server``'s lobby (``game``'s, of a site) for the next player to arrive
    (on the time control ``tc``; "": the server's): its seat's token."""
    page.goto(f"{server.web}{game}/" if game else server.web)
    if tc:
        page.select_option("#tc", tc)
    page.locator('button[data-opponent="any"]').click()
    page.wait_for_url("**/play/*")
    return str(page.url.rsplit("/play/", 1)[1])


def post_status(server: Server, token: str, action: str, body: dict[str, Any]) -> int:
    """The status of a POST to ``server``'s seat ``token`` (a page's move or action)."""
    request = urllib.request.Request(
        f"{server.web}play/{token}/{action}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Origin": server.web.rstrip("/")},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


async def test_two_browsers_at_two_processes_pair_and_play(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    from tests.declared.test_browser_seat import drive

    one, two = servers

    def script(page: Any) -> tuple[list[str], str, str]:
        host_token = wait_at(one, page)
        wait_for(lambda: posted(pg_url) == 1, "the first person's wait posted")
        slower = page.context.new_page()  # another choice: not paired with the first
        wait_at(two, slower, "180+2")
        wait_for(lambda: posted(pg_url) == 2, "the 180+2 wait posted")
        other = page.context.new_page()
        guest_token = wait_at(two, other)
        other.locator("#bar").get_by_text("browser").first.wait_for()
        results = drive([page, other], shots="pg-two-people")
        assert "Waiting for an opponent" in slower.locator("#turn").inner_text()
        assert posted(pg_url) == 1  # (the 180+2 person's, still waiting)
        return results, host_token, guest_token

    (first, second), host_token, guest_token = await run_in_browser(script)
    assert first == second and ("wins" in first or "draw" in first)
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [(game_id, players)] = recorded(pg_url).items()
    assert players == ("browser", "browser")
    for server in (one, two):
        assert [row["id"] for row in server.recent()] == [game_id]  # listed by both
    # each token is its own process's seat only: the other process knows neither
    assert post_status(two, host_token, "move", {"move": "1"}) == 404
    assert post_status(one, guest_token, "move", {"move": "1"}) == 404
    assert post_status(one, guest_token, "resign", {}) == 404
    assert post_status(two, host_token, "resign", {}) == 404
    assert post_status(two, guest_token, "resign", {}) == 409  # (its own: the game is over)


async def test_a_guest_process_killed_mid_game_is_its_persons_disconnect(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers

    def script(page: Any) -> str:
        wait_at(one, page)
        wait_for(lambda: posted(pg_url) == 1, "the first person's wait posted")
        other = page.context.new_page()
        wait_at(two, other)
        other.locator("#bar").get_by_text("browser").first.wait_for()
        two.process.send_signal(signal.SIGKILL)
        assert two.process.wait(timeout=30) == -signal.SIGKILL
        result = page.locator("#result")
        wait_for(lambda: bool(result.inner_text().strip()), "the host's page told the end")
        return str(result.inner_text())

    result = await run_in_browser(script)
    assert "wins" in result
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded by the host")
    with RecordStore.open(pg_url) as store:
        [record] = [store.get(game_id) for game_id in recorded(pg_url)]
    assert record is not None and record.termination is Termination.DISCONNECT
    assert record.fault is not None and record.fault.seat == 1  # (the guest's seat)


async def test_a_host_process_killed_mid_game_cuts_the_game_off_on_the_guests_page(
    pg_url: str, servers: tuple[Server, Server]
) -> None:
    one, two = servers

    def script(page: Any) -> str:
        host = page.context.new_page()  # (its stream breaks: not the page checked for errors)
        wait_at(one, host)
        wait_for(lambda: posted(pg_url) == 1, "the first person's wait posted")
        wait_at(two, page)
        page.locator("#bar").get_by_text("browser").first.wait_for()
        one.process.send_signal(signal.SIGKILL)
        assert one.process.wait(timeout=30) == -signal.SIGKILL
        result = page.locator("#result")
        wait_for(lambda: bool(result.inner_text().strip()), "the guest's page told the end")
        return str(result.inner_text())

    assert "cut off" in await run_in_browser(script)
    assert recorded(pg_url) == {}  # (a game cut off is not recorded)


async def test_two_browsers_at_two_sites_pair_for_connect4(
    pg_url: str, sites: tuple[Server, Server]
) -> None:
    """The same at two ``hub serve`` processes (every game): a game's lobby at each."""
    from tests.declared.test_browser_seat import drive

    one, two = sites

    def script(page: Any) -> list[str]:
        wait_at(one, page, game="connect4")
        wait_for(lambda: posted(pg_url) == 1, "the first person's wait posted")
        other = page.context.new_page()
        wait_at(two, other, game="connect4")
        return drive([page, other], shots="pg-two-people-sites")

    first, second = await run_in_browser(script)
    assert first == second and ("wins" in first or "draw" in first)
    wait_for(lambda: len(recorded(pg_url)) == 1, "the game recorded")
    [game_id] = recorded(pg_url)
    for server in (one, two):
        assert [row["id"] for row in server.recent("connect4")] == [game_id]
