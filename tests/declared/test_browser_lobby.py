"""The lobby of ``hub serve GAME --web`` in Chromium, as people use it (issue 25 item 4): a
waiting tab that is closed leaves the queue and the next person plays a live one; a friend
game's clocks start only when the friend opens the link; the saved games stay listed after
the lobby's first event frame. The server runs in the test's trio run (its lobby's grace
for a closed page shortened to a second); pages wait on what they show, never on time."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.serve import ARRIVAL, GameServer
from hub.games.connect4 import ConnectFour
from hub.web.records import RecordsReader
from hub.web.server import WebServer, serve_web
from tests.declared.test_browser_seat import drive
from tests.declared.test_rematch import Log
from tests.web.browser import artifacts, expect, in_trio, in_trio_sync, run_in_browser
from tests.web.helpers import started
from tests.web.test_saved_games import SAVED, seed

pytestmark = pytest.mark.browser


async def lobby_site(
    nursery: trio.Nursery, control: TimeControl | None = None, records: Path | None = None
) -> tuple[GameServer, Log, WebServer]:
    bus = EventBus()
    lobby = GameServer(
        ConnectFour(),
        control or TimeControl(),
        bus,
        nursery=nursery,
        desk=SeatDesk(),
        arrival=ARRIVAL,
        grace=1.0,
    )
    log = Log(bus)
    reader = None if records is None else RecordsReader.at(records)
    server: WebServer = await nursery.start(
        partial(serve_web, bus, desk=lobby.desk, starter=lobby, records=reader)
    )
    return lobby, log, server


def start(page: Any, url: str, opponent: str) -> None:
    page.goto(url)
    page.locator(f'button[data-opponent="{opponent}"]').click()
    page.wait_for_url("**/play/*")


async def test_a_closed_waiting_tab_leaves_the_queue_and_the_next_person_meets_a_live_one(
    nursery: trio.Nursery,
) -> None:
    lobby, log, server = await lobby_site(nursery)

    async def left(token: str) -> None:
        seat = lobby.desk.find(token) if lobby.desk is not None else None
        assert seat is not None
        while not seat.over:
            await seat.wait_changed(seat.version)
        assert len(lobby.queue) == 0 and "left the queue" in seat.result

    def script(page: Any) -> tuple[list[str], str]:
        ghost = page.context.new_page()
        start(ghost, server.url("/"), "any")
        expect(ghost.locator("#turn")).to_contain_text("Waiting for an opponent")
        expect(ghost.locator("#leave")).to_be_visible()
        ghost_token = ghost.url.rsplit("/", 1)[1]
        ghost.close()  # the tab is closed: its event stream goes
        in_trio(left, ghost_token)  # a second later, it left the queue
        start(page, server.url("/"), "any")
        expect(page.locator("#leave")).to_be_visible()  # in the queue, alone
        expect(page.locator("#turn")).to_have_text(
            "Waiting for an opponent: the next player to arrive plays you."
        )
        page.screenshot(path=artifacts() / "lobby-waiting.png", full_page=True)
        other = page.context.new_page()
        start(other, server.url("/"), "any")
        expect(page.locator("header h1")).to_have_text("connect4: you play Red")
        expect(other.locator("header h1")).to_have_text("connect4: you play Yellow")
        return drive([page, other], shots="connect4-after-a-ghost"), ghost_token

    (first, second), ghost_token = await run_in_browser(script)
    assert first == second and ("wins" in first or "draw" in first)
    ghost = lobby.desk.find(ghost_token) if lobby.desk is not None else None
    assert isinstance(ghost, BrowserSeat) and ghost.over and not ghost.moves
    (game,) = log.started
    assert [player.name for player in game.players] == ["browser", "browser"]
    assert len(lobby.queue) == 0


async def test_a_waiting_person_leaves_the_queue_with_the_leave_button(
    nursery: trio.Nursery,
) -> None:
    lobby, log, server = await lobby_site(nursery)

    def script(page: Any) -> str:
        start(page, server.url("/"), "any")
        page.locator("#leave").click()
        expect(page.locator("#result")).to_contain_text("You left the queue")
        expect(page.locator("#leave")).to_be_hidden()
        return str(page.locator("#turn").inner_text())

    assert await run_in_browser(script) == "The game is over."
    assert len(lobby.queue) == 0 and log.started == []


async def test_a_friend_game_starts_its_clock_only_when_the_friend_arrives(
    nursery: trio.Nursery,
) -> None:
    _, log, server = await lobby_site(nursery, TimeControl.fischer(60))

    def games() -> int:
        return in_trio_sync(lambda: len(log.started))

    def script(page: Any) -> tuple[int, str, str]:
        start(page, server.url("/"), "person")
        expect(page.locator("header h1")).to_have_text("connect4: you play Red")
        expect(page.locator("#turn")).to_have_text(
            "Waiting for Yellow (friend) to open their page: no clock runs until then."
        )
        expect(page.locator("#bar .you .clock")).to_have_count(0)  # no clock shown or running
        page.screenshot(path=artifacts() / "friend-waiting.png", full_page=True)
        before = games()  # the creator is on their page, the friend not yet
        link = page.locator(".share a").inner_text()
        friend = page.context.new_page()
        friend.goto(link)
        expect(friend.locator("header h1")).to_have_text("connect4: you play Yellow")
        expect(page.locator("#turn")).to_have_text("Your move (Red).")
        expect(page.locator("#bar .you .clock")).to_contain_text(":")
        clock = str(page.locator("#bar .you .clock").inner_text())
        expect(friend.locator("#turn")).to_have_text("Waiting for Red.")
        return before, clock, str(friend.locator("#turn").inner_text())

    before, clock, _ = await run_in_browser(script)
    assert before == 0 and len(log.started) == 1
    minutes, seconds = clock.split(":")
    assert minutes in ("1", "0") and (minutes == "1" or float(seconds) > 50), clock


async def test_the_lobby_keeps_its_saved_games_after_the_first_event_frame(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    path = tmp_path / "games.db"
    await seed(path)
    lobby, _, server = await lobby_site(nursery, records=path)

    def script(page: Any) -> list[str]:
        page.goto(server.url("/"))
        saved = page.locator(f'#recent tr[data-id="{SAVED}"]')
        expect(saved).to_be_visible()
        page.wait_for_selector("#live:not([hidden])")
        # a game starts: its row comes after the stream's first frame (the snapshot)
        in_trio_sync(lobby.events.publish, started("g1", "connect4", {}, ["a", "b"]))
        expect(page.locator('#running tr[data-id="g1"]')).to_be_visible()
        expect(saved).to_be_visible()
        expect(page.locator("#no-recent")).to_be_hidden()
        page.screenshot(path=artifacts() / "lobby-saved-games.png", full_page=True)
        return page.locator("#recent tr").all_inner_texts()

    rows = await run_in_browser(script)
    assert len(rows) == 1 and "kalah" in rows[0]
