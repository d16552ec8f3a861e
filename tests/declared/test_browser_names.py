"""Names in Chromium (issue 27 items 2 and 3): a person picks a name once on the lobby page
and their browser keeps it with its token; a second browser can neither take the name nor
start a game, move or resign under it (with the name alone, or with a forged token), and
the name's games are the person's on the leaderboard. A name leads only to spectators'
pages (no link to a seat), so it reads no hidden view: what a spectator's page and another
seat's page show of a hidden hand is tests/declared/test_chance.py's. Two browser contexts
are two browsers: each has its own storage."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.declared.browser import SeatDesk
from hub.declared.serve import ARRIVAL, GameServer
from hub.games.connect4 import ConnectFour
from hub.records import RecordStore
from hub.records.identities import NameBook
from hub.records.leaderboard import LeaderboardReader
from hub.records.recording import recording
from hub.web.ratings import Ratings
from hub.web.records import RecordsReader
from hub.web.server import WebServer, serve_web
from tests.web.browser import FLAGS, TIMEOUT_MS, artifacts, chromium_path, expect

pytestmark = pytest.mark.browser


async def test_a_second_browser_cannot_play_under_the_first_ones_name(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    db = tmp_path / "games.db"
    bus = EventBus()
    lobby = GameServer(
        ConnectFour(),
        TimeControl(),
        bus,
        nursery=nursery,
        desk=SeatDesk(),
        arrival=ARRIVAL,
        names=NameBook.at(db),
        guests=False,
    )
    executable = chromium_path()

    def script(url: str) -> tuple[str, str]:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=executable, headless=True, args=FLAGS
            )
            try:
                first = browser.new_context().new_page()
                first.set_default_timeout(TIMEOUT_MS)
                first.goto(url)
                first.locator("#name-input").fill("alice")
                first.locator("#name-form button").click()
                expect(first.locator("#my-name")).to_have_text("alice")
                expect(first.locator("#name-form")).to_be_hidden()
                first.locator('button[data-opponent="ai:1"]').click()
                first.wait_for_url("**/play/*")
                expect(first.locator("#bar .you .name")).to_have_text("alice")
                seat_url = first.url

                # A second browser: the name is taken; without its token nothing starts.
                second = browser.new_context().new_page()
                second.set_default_timeout(TIMEOUT_MS)
                second.goto(url)
                second.locator("#name-input").fill("Alice")
                second.locator("#name-form button").click()
                expect(second.locator("#name-error")).to_contain_text("is taken")
                second.locator('button[data-opponent="ai:1"]').click()  # as a guest: none here
                expect(second.locator("#start-error")).to_contain_text("admits no guests")
                forged = json.dumps({"name": "alice", "token": "forged-" + "x" * 36})
                storage = {
                    "origins": [
                        {
                            "origin": url.rstrip("/"),
                            "localStorage": [{"name": "hub-name", "value": forged}],
                        }
                    ]
                }
                third = browser.new_context(storage_state=storage).new_page()  # type: ignore[arg-type]
                third.set_default_timeout(TIMEOUT_MS)
                third.goto(url)
                expect(third.locator("#my-name")).to_have_text("alice")  # it claims the name
                third.locator('button[data-opponent="random"]').click()
                expect(third.locator("#start-error")).to_have_text('wrong token for "alice"')
                assert "/play/" not in third.url
                third.screenshot(path=artifacts() / "names-forged-token.png", full_page=True)
                # Nor can it find her seat through her name: her page and the lobby link
                # only to spectators' pages (a spectator's view: no hidden hand, no moves).
                for page_path in ("player/alice", ""):
                    third.goto(url + page_path)
                    expect(third.locator('a[href*="/game/"], #player-games')).not_to_have_count(0)
                    expect(third.locator('a[href*="/play/"]')).to_have_count(0)
                # Nor can it move or resign for alice: her seat is her page's secret.
                guessed = url + "play/" + "x" * 22
                for action, body in (("move", {"move": "4"}), ("resign", {})):
                    reply = third.request.post(f"{guessed}/{action}", data=body)
                    assert reply.status == 404, action

                # Alice's own browser still holds her name: she resigns, and plays again.
                first.locator("#resign").click()
                first.locator("#resign-yes").click()
                expect(first.locator("#result")).not_to_be_empty()
                first.goto(url)
                expect(first.locator("#my-name")).to_have_text("alice")
                first.locator('button[data-opponent="random"]').click()
                first.wait_for_url("**/play/*")
                expect(first.locator("#bar .you .name")).to_have_text("alice")
                first.locator("#resign").click()
                first.locator("#resign-yes").click()
                expect(first.locator("#result")).not_to_be_empty()
                for _ in range(200):  # (until the recorder has written her second game)
                    first.goto(url + "player/alice")
                    if first.locator("#player-games tr").count() == 2:
                        break
                expect(first.locator("#player-games tr")).to_have_count(2)
                expect(first.locator("#rated")).to_contain_text("connect4")
                return seat_url, str(first.locator("#rated").inner_text())
            finally:
                browser.close()

    async with recording(bus, db, prog="test"):
        server: WebServer = await nursery.start(
            partial(
                serve_web,
                bus,
                desk=lobby.desk,
                starter=lobby,
                records=RecordsReader.at(db),
                ratings=Ratings(LeaderboardReader(db), ("connect4",)),
            )
        )
        seat_url, rated = await trio.to_thread.run_sync(script, server.url("/"))
    seat = lobby.desk.find(seat_url.rsplit("/", 1)[1]) if lobby.desk is not None else None
    assert seat is not None and seat.player.identity == "person:alice"
    assert "lost" in rated


async def test_a_friend_who_picked_a_name_plays_the_shared_link_under_it(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    """Issue 27 item 4: the friend's seat is played under the name the friend's browser
    keeps (rated as any registered person), the guest ``friend`` when they picked none."""
    from tests.declared.test_rematch import Log

    db = tmp_path / "games.db"
    bus = EventBus()
    lobby = GameServer(
        ConnectFour(),
        TimeControl(),
        bus,
        nursery=nursery,
        desk=SeatDesk(),
        arrival=ARRIVAL,
        names=NameBook.at(db),
    )
    log = Log(bus)
    executable = chromium_path()

    def script(url: str) -> None:
        from playwright.sync_api import sync_playwright

        def named(browser: Any, name: str) -> Any:
            page = browser.new_context().new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(url)
            if name:
                page.locator("#name-input").fill(name)
                page.locator("#name-form button").click()
                expect(page.locator("#my-name")).to_have_text(name)
            return page

        def friend_game(host: Any, friend: Any, friend_name: str) -> None:
            host.goto(url)
            host.locator('button[data-opponent="person"]').click()
            host.wait_for_url("**/play/*")
            link = host.locator(".share a").inner_text()
            friend.goto(link)
            expect(friend.locator("header h1")).to_have_text("connect4: you play Yellow")
            expect(friend.locator("#bar .you .name")).to_have_text(friend_name)
            expect(host.locator("#turn")).to_have_text("Your move (Red).")
            host.locator("#resign").click()
            host.locator("#resign-yes").click()
            expect(friend.locator("#result")).not_to_be_empty()

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=executable, headless=True, args=FLAGS
            )
            try:
                alice = named(browser, "alice")
                friend_game(alice, named(browser, "bob"), "bob")  # bob picked a name
                friend_game(alice, named(browser, ""), "friend")  # this one picked none
                friend_game(alice, alice.context.new_page(), "friend")  # not alice twice
            finally:
                browser.close()

    async with recording(bus, db, prog="test"):
        server: WebServer = await nursery.start(
            partial(serve_web, bus, desk=lobby.desk, starter=lobby)
        )
        await trio.to_thread.run_sync(script, server.url("/"))
    players = [[(p.name, p.identity) for p in game.players] for game in log.started]
    assert players == [
        [("alice", "person:alice"), ("bob", "person:bob")],
        [("alice", "person:alice"), ("friend", "person:friend")],
        [("alice", "person:alice"), ("friend", "person:friend")],
    ]
    with RecordStore.open(db) as store:  # recorded (and rated) under bob's name
        assert store.games(player="bob")
