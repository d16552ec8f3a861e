"""The standings page of a running tournament in Chromium (issue 26 item 2): a 4-player
round-robin's ``/match`` shows the standings and the crosstable as HTML tables and a chart
that is redrawn as games finish, at 390 px and at 1200 px, without the page scrolling
sideways. Its screenshots are kept as artefacts (docs/images/match-standings-*.png are
copies)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import program
from tests.web.browser import PHONE, artifacts, expect, run_in_browser

ROOT = Path(__file__).resolve().parents[2]
BOT = "json:./players/json_bot.py"  # (run from the repository: short names on the page)
WIDE = {"width": 1200, "height": 900}
WAIT_MS = 60_000


def no_sideways_scroll(page: Any) -> None:
    scroll, client = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert scroll <= client, (scroll, client)


def games_charted(page: Any) -> int:
    return int(page.locator("#points-chart svg").get_attribute("data-games"))


ROUNDS = 10
GAMES = 6 * ROUNDS * 2  # 6 pairs of 4 players, a game pair a round each


def wait_for_more_games(page: Any, shown: int, *, until_over: bool = False) -> int:
    """Wait until the chart shows more games than ``shown`` (the page redraws itself);
    ``until_over``: or the match has played all its games (a fast machine)."""
    if until_over and shown == GAMES:
        return shown
    expect(page.locator("#points-chart svg")).not_to_have_attribute(
        "data-games", str(shown), timeout=WAIT_MS
    )
    return games_charted(page)


@pytest.mark.browser
async def test_the_standings_of_a_running_round_robin_update_at_390_and_1200_px() -> None:
    # Two players in their own processes make the games slow enough to watch.
    process = subprocess.Popen(
        [program("hub"), "match", "connect4", BOT, BOT, "ai:1", "random:1", "--rounds", str(ROUNDS),
         "--tc", "none", "--web", "0", "--no-record"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        while not (line := process.stderr.readline()).startswith("http://"):
            assert line, "hub match ended before printing its web view's URL"
        url = line.strip() + "match"

        def script(page: Any) -> None:
            page.goto(url)
            expect(page.locator("#points-chart svg")).to_be_visible(timeout=WAIT_MS)
            expect(page.locator("#standings-table tbody tr")).to_have_count(4)
            expect(page.locator("#crosstable tbody tr")).to_have_count(4)
            expect(page.locator("#crosstable td.self")).to_have_count(4)  # the diagonal
            assert page.locator("#crosstable td a[href^='/game/']").count() >= 1
            assert page.locator("#points-chart polyline").count() == 4  # one line a player
            for width in (PHONE, WIDE):  # the chart is redrawn at least once while watched
                page.set_viewport_size(width)
                shown = wait_for_more_games(page, games_charted(page), until_over=width is WIDE)
                no_sideways_scroll(page)
                # the standings fit (a phone hides the columns it can do without)
                box = page.evaluate(
                    "[document.querySelector('#standings-table').parentElement.scrollWidth,"
                    " document.querySelector('#standings-table').parentElement.clientWidth]"
                )
                assert box[0] <= box[1], box
                # the table's cells agree with the chart: as many games as charted
                played = page.locator(
                    "#standings-table tbody tr td:nth-child(3)"
                ).all_text_contents()
                assert sum(int(games) for games in played) >= 2 * shown
                page.screenshot(
                    path=artifacts() / f"match-standings-{width['width']}.png", full_page=True
                )
            link = page.locator("#crosstable td a[href^='/game/']").first
            link.click()
            page.wait_for_url("**/game/*")

        await run_in_browser(script, viewport=PHONE)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
