"""``hub serve --web`` alone in Chromium (issue 27 item 1): from the home page a person goes
to a game's lobby (mounted under ``/GAME/``), starts a game against a level and plays it to
its end (in chess, two moves and a resignation: level 1 takes long to mate a random
player); the pages' scripts, streams and links all work under the prefix."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest

from tests.conftest import program
from tests.declared.test_browser_seat import drive
from tests.web.browser import expect, run_in_browser

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("game", ["connect4", "kalah", "clubs", "chess"])
async def test_a_person_starts_a_game_from_the_home_page_and_finishes_it(game: str) -> None:
    process = subprocess.Popen(
        [program("hub"), "serve", "--web", "0", "--tc", "none", "--no-record", "--drain", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        process.stderr.readline()  # the TCP port
        home = process.stderr.readline().strip()
        assert home.startswith("http://127.0.0.1:") and home.endswith("/")

        def script(page: Any) -> list[str]:
            page.goto(home)
            expect(page.locator("#site-games tr")).to_have_count(4)
            page.locator(f'#site-games a[href="/{game}/"]').click()
            page.wait_for_url(f"**/{game}/")
            expect(page.locator("h1")).to_have_text(game)
            page.locator('button[data-opponent="ai:1"]').click()
            page.wait_for_url(f"**/{game}/play/*")
            if game == "chess":  # (first moves against level 1 do not end soon: resign)
                page.locator('[data-part="e2"].part').click()
                page.locator('[data-part="e4"].part').click()
                expect(page.locator("#moves li")).to_have_count(2)  # and the level's reply
                page.locator("#resign").click()
                page.locator("#resign-yes").click()
                expect(page.locator("#result")).to_contain_text("resign")
                result = [str(page.locator("#result").inner_text())]
            else:
                result = drive([page], shots=f"site-{game}")
            if game == "connect4":  # the rematch's page is under the prefix too
                first = page.url
                page.locator('button[data-action="rematch"]').click()
                page.wait_for_url(lambda url: url != first and f"/{game}/play/" in url)
                expect(page.locator("#turn")).not_to_be_empty()
            page.locator("a.home.section").click()  # back to the game's lobby
            page.wait_for_url(f"**/{game}/")
            expect(page.locator("#recent tr").first).to_be_visible()
            page.locator("#recent tr a").click()  # the finished game's own page
            page.wait_for_url(f"**/{game}/game/*")
            expect(page.locator("#result")).not_to_be_empty()
            return result

        (result,) = await run_in_browser(script)
        assert any(word in result for word in ("win", "draw", "resign")), result
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130


async def test_a_friend_s_link_from_a_game_s_lobby_is_under_its_prefix() -> None:
    process = subprocess.Popen(
        [
            *(program("hub"), "serve", "--web", "0", "--no-record", "--drain", "0"),
            *("--games", "connect4,kalah"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        process.stderr.readline()
        home = process.stderr.readline().strip()

        def script(page: Any) -> str:
            page.goto(home)
            expect(page.locator("#site-games tr")).to_have_count(2)
            page.goto(home + "kalah/")
            page.locator('button[data-opponent="person"]').click()
            page.wait_for_url("**/kalah/play/*")
            link = page.locator("p.share a")
            expect(link).to_have_text(re.compile(r"/kalah/play/[\w-]+$"))
            friend = page.context.new_page()
            friend.goto(str(link.inner_text()))
            expect(friend.locator("#turn")).not_to_be_empty()
            return str(link.inner_text())

        shared = await run_in_browser(script)
        assert shared.startswith(home + "kalah/play/")
    finally:
        process.send_signal(2)
        assert process.wait(timeout=30) == 130
