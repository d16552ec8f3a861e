"""Choosing a time control and a game's option on the lobby page, in Chromium (issue 27
item 1): a person picks 3+2 (three minutes, two seconds a move: ``180+2``) and Kalah's
holes, plays the computer, and their game page shows that clock; the game is played and
recorded with both. The server runs in the test's trio run; pages wait on what they show."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.declared.browser import ARRIVAL, SeatDesk
from hub.declared.serve import GameServer
from hub.declared.terms import offer_from
from hub.games.kalah.game import KalahGame
from hub.web.server import WebServer, serve_web
from tests.declared.test_rematch import Log
from tests.web.browser import artifacts, expect, run_in_browser

pytestmark = pytest.mark.browser


async def test_a_person_picks_3_plus_2_and_four_holes_and_their_page_shows_that_clock(
    nursery: trio.Nursery,
) -> None:
    bus = EventBus()
    game = KalahGame()
    one_minute = TimeControl.parse("60+1")
    lobby = GameServer(
        game,
        one_minute,
        bus,
        nursery=nursery,
        desk=SeatDesk(),
        arrival=ARRIVAL,
        offer=offer_from(game, one_minute, "180+2,600+5", "holes,pie"),
    )
    log = Log(bus)
    server: WebServer = await nursery.start(partial(serve_web, bus, desk=lobby.desk, starter=lobby))

    def script(page: Any) -> str:
        page.goto(server.url("/"))
        expect(page.locator("#tc option")).to_have_text(["60+1", "180+2", "600+5"])
        expect(page.locator("#setting-holes")).to_have_value("6")  # the server's default
        page.locator("#tc").select_option("180+2")
        page.locator("#setting-holes").fill("4")
        page.screenshot(path=artifacts() / "kalah-lobby-choices.png", full_page=True)
        page.locator('button[data-opponent="ai:1"]').click()
        page.wait_for_url("**/play/*")
        clock = page.locator("#bar .you .clock")  # (the computer's is not shown)
        expect(clock).to_have_text(re.compile(r"^(3:0\d|2:[45]\d)\.\d$"))  # 3 minutes
        page.screenshot(path=artifacts() / "kalah-3+2-four-holes.png", full_page=True)
        return str(clock.inner_text())

    assert (await run_in_browser(script)).startswith(("3:", "2:"))
    (started,) = log.started
    assert started.time_controls == ("180+2", "180+2")
    assert started.settings["holes"] == 4 and started.settings["pie"] is False
    lobby.adjourn("the test is over")
