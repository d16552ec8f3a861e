"""A person resumes their adjourned game from the lobby page (issue 27 item 5), in Chromium:
they pick a name, start Connect Four against ``ai:1`` and move twice; ``hub serve`` stops
(SIGTERM, ``--drain 0``: the game is adjourned) and runs again on the same database and web
port; the lobby lists "Your adjourned games" for the name this browser keeps, Resume takes
the seat again with the moves on the board, and the person plays the game to its end. The
store holds one game, finished, whose first moves are the adjourned ones."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hub.declared.adjourned import ADJOURNED, ADJOURNED_AT
from hub.records import RecordStore
from tests.conftest import program
from tests.declared.test_browser_seat import drive
from tests.web.browser import expect, run_in_browser

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(database: Path, web: int) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [
            *(program("hub"), "serve", "--db", str(database), "--games", "connect4"),
            *("--web", str(web), "--drain", "0", "--tc", "none"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    process.stderr.readline()  # the TCP port
    return process, process.stderr.readline().strip()


async def test_a_person_resumes_an_adjourned_game_from_the_lobby_and_finishes_it(
    tmp_path: Path,
) -> None:
    database = tmp_path / "games.db"
    web = _free_port()
    servers: list[subprocess.Popen[str]] = []

    def script(page: Any) -> list[str]:
        server, home = _serve(database, web)
        servers.append(server)
        # (a page of its own: the shutdown cuts its streams, which Chromium reports)
        before = page.context.new_page()
        before.goto(home + "connect4/")
        before.locator("#name-input").fill("carol")
        before.locator("#name-form button").click()
        expect(before.locator("#my-name")).to_have_text("carol")
        before.locator('button[data-opponent="ai:1"]').click()
        before.wait_for_url("**/connect4/play/*")
        for _ in range(2):  # two moves of hers (and the level's replies)
            before.locator("[data-move].legal").first.click()
        expect(before.locator("#moves li")).to_have_count(4)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 143
        expect(before.locator("#result")).to_contain_text("resume it from the lobby")
        before.close()

        server, home = _serve(database, web)
        servers.append(server)
        page.goto(home + "connect4/")
        resume = page.locator("#adjourned button.resume")
        expect(resume).to_have_count(1)
        expect(page.locator("#adjourned li")).to_contain_text("after 4 moves")
        resume.click()
        page.wait_for_url("**/connect4/play/*")
        expect(page.locator("#moves li")).to_have_count(4)  # the game as it was
        result = drive([page], shots="resumed")
        page.goto(home + "connect4/")  # nothing left to resume
        expect(page.locator("#recent tr").first).to_be_visible()
        expect(page.locator("#adjourned")).to_have_count(0)
        return result

    try:
        (result,) = await run_in_browser(script)
    finally:
        for server in servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=30)
    assert any(word in result for word in ("win", "draw")), result
    with RecordStore.open(database) as store:
        (summary,) = store.games()
        record = store.get(summary.game_id)
    assert record is not None and record.detail != ADJOURNED
    assert record.termination.value != "aborted"
    assert record.settings[ADJOURNED_AT] == [4]
    assert len(record.moves) > 4
    assert record.players[0].identity == "person:carol"
