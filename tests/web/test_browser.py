"""The pages in real headless Chromium: the lobby, a game followed live while a Match plays
it, a finished game replayed, the chess console's page redrawn after every move, and Kalah
and clubs tables on a desktop and a phone. A screenshot of each is kept as an artefact."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from hub.core.model.bus import EventBus
from hub.core.model.referee import Termination
from hub.records import RecordStore
from hub.web.records import RecordsReader
from hub.web.server import WebServer, open_page, serve_web
from tests.web.browser import PHONE, artifacts, expect, in_trio, in_trio_sync, run_in_browser
from tests.web.helpers import (
    ChessGame,
    clubs_view,
    kalah_view,
    moved,
    play_tictactoe,
    started,
    tictactoe,
)

pytestmark = pytest.mark.browser


def fits_the_width(page: Any) -> bool:
    """No horizontal scrolling: the page reads on a narrow screen."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


async def test_the_lobby_and_a_game_followed_while_it_is_played(nursery: trio.Nursery) -> None:
    bus = EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus))
    await play_tictactoe(bus, names=("earlier", "game"))  # something under "Recent"
    gates = [trio.open_memory_channel[int | None](1) for _ in range(2)]
    match = tictactoe(bus, ("<b>Xavier</b>", "Olga"), gates=[gate[1] for gate in gates])
    cells = [4, 0, 2, 6, 3, 5, 1, 7, 8]  # a draw: every cell

    def script(page: Any) -> None:
        page.goto(server.url("/"))
        page.wait_for_selector("#live:not([hidden])")
        assert page.locator("#running tr").count() == 0
        in_trio_sync(nursery.start_soon, match.run)
        row = page.locator("#running tr").first
        row.wait_for()  # it appears without a reload
        assert "<b>Xavier</b>, Olga" in row.inner_text()
        assert page.locator("#recent tr").count() == 1
        page.screenshot(path=artifacts() / "lobby.png", full_page=True)
        row.locator("a").click()
        page.wait_for_url(f"**/game/{match.game_id}")
        page.wait_for_selector("#live:not([hidden])")
        for ply, cell in enumerate(cells, 1):
            in_trio(gates[(ply - 1) % 2][0].send, cell)
            page.locator("#moves li").nth(ply - 1).wait_for()
            expect(page.locator("#plylabel")).to_have_text(f"ply {ply} of {ply}")
            board = page.locator("#position pre").inner_text()
            assert board.count("X") + board.count("O") == ply
            if ply == 5:
                page.screenshot(path=artifacts() / "game-live.png", full_page=True)
        expect(page.locator("#result")).to_have_text("a draw")
        expect(page.locator("#live")).to_be_hidden()  # over: the stream is closed
        assert page.locator("#moves li").all_inner_texts()[:2] == ["Seat 1 4", "Seat 2 0"]

    await run_in_browser(script)


@pytest.mark.parametrize("source", ["memory", "records"])
async def test_a_finished_game_is_replayed_move_by_move(
    nursery: trio.Nursery, tmp_path: Path, source: str
) -> None:
    bus = EventBus()
    records = RecordsReader.at(tmp_path / "games.db")
    server: WebServer = await nursery.start(partial(serve_web, bus, records=records))
    result = await play_tictactoe(bus if source == "memory" else EventBus())
    if source == "records":  # only in the records store, not in the server's memory
        with RecordStore.open(tmp_path / "games.db") as store:
            store.add(result.record)

    def board(page: Any) -> str:
        return str(page.locator("#position pre").inner_text()).strip().strip('"')

    def label(page: Any, text: str) -> None:
        expect(page.locator("#plylabel")).to_have_text(text)

    def script(page: Any) -> None:
        page.goto(server.url(f"/game/{result.record.game_id}"))
        label(page, "ply 7 of 7")
        assert board(page) == "XOXOXOX.."
        assert page.locator("#result").inner_text() == "Seat 1 wins"
        expect(page.locator("#live")).to_be_hidden()
        page.click("#first")
        label(page, "ply 0 of 7")
        assert board(page) == "........."
        page.click("#next")
        label(page, "ply 1 of 7")
        assert board(page) == "X........"
        page.locator("#slider").fill("4")
        label(page, "ply 4 of 7")
        assert board(page) == "XOXO....."
        assert page.locator("#moves li.current").inner_text() == "Seat 2 3"
        page.keyboard.press("ArrowLeft")
        label(page, "ply 3 of 7")
        assert board(page) == "XOX......"
        page.locator("#moves li").nth(5).click()
        label(page, "ply 6 of 7")
        page.screenshot(path=artifacts() / f"game-replay-{source}.png", full_page=True)
        page.click("#last")
        label(page, "ply 7 of 7")
        assert board(page) == "XOXOXOX.."

    await run_in_browser(script)


async def test_the_console_page_is_redrawn_after_every_move(nursery: trio.Nursery) -> None:
    bus = EventBus()
    url = await open_page(nursery, bus, "/console")
    assert url.startswith("http://127.0.0.1:") and url.endswith("/console")
    score = {"white": 1.5, "black": 0.5}
    game = ChessGame(bus, "c1", settings={"rules": "console", "score": score})
    script_moves = [  # (move, status line, squares highlighted)
        ("e2e4", "", ["e2", "e4"]),
        ("e7e5", "", ["e7", "e5"]),
        ("f1c4", "", ["f1", "c4"]),
        ("b8c6", "", ["b8", "c6"]),
        ("d1h5", "", ["d1", "h5"]),
        ("g8f6", "", ["g8", "f6"]),
        ("h5f7", "Checkmate! White wins!", ["h5", "f7"]),
    ]

    def script(page: Any) -> None:
        page.goto(url)
        page.wait_for_selector("#live:not([hidden])")
        assert "No game yet" in page.locator("#position").inner_text()
        in_trio_sync(game.start)
        page.wait_for_selector("#position svg")
        expect(page.locator("#score")).to_have_text("Score: White 1.5, Black 0.5")
        for ply, (uci, status, squares) in enumerate(script_moves, 1):
            in_trio_sync(game.move, uci)
            page.locator("#moves li").nth(ply - 1).wait_for()
            for square in squares:
                assert page.locator(f"#position svg rect.lastmove.{square}").count() == 1
            expect(page.locator("#status")).to_have_text(status)
            assert page.locator("#position svg .check").count() == (1 if status else 0)
            if ply == 5:
                page.screenshot(path=artifacts() / "console.png", full_page=True)
        in_trio_sync(game.end, [0], Termination.NORMAL, "checkmate")
        expect(page.locator("#score")).to_have_text("Score: White 2.5, Black 0.5")
        expect(page.locator("#result")).to_have_text("White wins (checkmate)")
        page.screenshot(path=artifacts() / "console-mate.png", full_page=True)

    await run_in_browser(script)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
async def test_kalah_and_clubs_tables_read_on_a_desktop_and_a_phone(
    nursery: trio.Nursery, viewport: str
) -> None:
    bus = EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus))
    bus.publish(started("k1", "kalah", kalah_view([4] * 6 + [0] + [4] * 6 + [0], 0), ["Ann", "Bo"]))
    after = kalah_view([4, 4, 0, 5, 5, 5, 1, 5, 4, 4, 4, 4, 4, 0], 1)
    bus.publish(moved("k1", 1, 0, "3", after, 1, clocks=(9.5, 10.0)))
    hands = [["AS", "10H", "4C"], ["2C", "QD"], ["KD", "3S", "7H"]]
    view = clubs_view(hands, ["QH", "JD"], 2, 1, [3, 0, 7])
    bus.publish(started("c1", "clubs", view, ["Ann", "Bo", "<i>Cy</i>"], 1))

    def script(page: Any) -> None:
        page.goto(server.url("/game/k1"))
        page.locator("#moves li").first.wait_for()
        assert page.locator(".kalah .hole").count() == 12
        assert page.locator(".kalah .store").all_inner_texts() == ["0", "1"]
        assert page.locator(".player.to-move .side").inner_text() == "North"
        assert fits_the_width(page)
        page.screenshot(path=artifacts() / f"kalah-{viewport}.png", full_page=True)
        page.goto(server.url("/game/c1"))
        page.wait_for_selector("#live:not([hidden])")
        assert page.locator(".clubs .trick li").count() == 2
        assert page.locator(".clubs .hand").all_inner_texts() == ["3 cards", "2 cards", "3 cards"]
        assert "<i>Cy</i>" in page.locator(".clubs tbody").inner_text()
        assert fits_the_width(page)
        page.screenshot(path=artifacts() / f"clubs-{viewport}.png", full_page=True)

    await run_in_browser(script, **({"viewport": PHONE} if viewport == "phone" else {}))
