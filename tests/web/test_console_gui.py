"""``hub play chess --gui`` as a user runs it: the page's URL on stderr before the first
command is read, the page following the console's games, the text display unchanged."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import httpx
import pytest
import trio

from tests.conftest import program

pytestmark = pytest.mark.e2e

TARGET = re.compile(r"\btarget\b")
"""A square the chosen piece may go to."""
COMMANDS = ["game human human", "move f2 f3", "move e7 e5", "move g2 g4", "move d8 h4"]


async def drive(process: trio.Process) -> bytes:
    """Type the commands, watching the page's data follow them; returns the console's stdout."""
    assert process.stdin and process.stdout and process.stderr
    received = b""
    while not received.endswith(b"\n"):  # the URL comes before any command is read
        received += await process.stderr.receive_some(1000)
    url = received.decode().strip()  # the console's own page: /play/TOKEN
    assert url.startswith("http://127.0.0.1:") and "/play/" in url
    base, token = url.split("/play/")
    assert len(token) >= 20
    async with httpx.AsyncClient(timeout=10) as client:
        assert (await client.get(url)).status_code == 200
        page = await client.get(base + "/console")  # the spectators' page
        assert page.status_code == 200 and "No game yet" in page.text
        for ply, command in enumerate(COMMANDS):
            await process.stdin.send_all(command.encode() + b"\n")
            while True:  # the page's data follows the console's moves
                console = (await client.get(base + "/api/console")).json()
                if console["game"] is not None and len(console["game"]["moves"]) == ply:
                    break
                await trio.sleep(0.02)
        while console["game"]["status"] != "finished":
            await trio.sleep(0.02)
            console = (await client.get(base + "/api/console")).json()
        assert console["game"]["latest"]["status"] == ["Checkmate! Black wins!"]
        assert console["score"] == {"white": "0", "black": "1"}
        assert [move["move"] for move in console["game"]["moves"]] == [
            "f2f3",
            "e7e5",
            "g2g4",
            "d8h4",
        ]
    await process.stdin.aclose()
    stdout = b""
    while chunk := await process.stdout.receive_some(65536):
        stdout += chunk
    assert await process.wait() == 0
    return stdout


async def test_the_gui_page_follows_the_console() -> None:
    hub = program("hub")
    with trio.fail_after(60):
        process = await trio.lowlevel.open_process(
            [hub, "play", "chess", "--gui"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            stdout = await drive(process)
        finally:
            process.kill()
            await process.wait()
    plain = subprocess.run(
        [hub, "play", "chess"],
        input="\n".join(COMMANDS) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert stdout.decode() == plain.stdout  # the text display is exactly as without --gui
    assert plain.stdout.endswith("Final Score:\nWhite: 0\nBlack: 1\n")


# -- moves from the page ----------------------------------------------------------------------

SETUP = ["setup", "+ K e1", "+ P b7", "+ k h8", "done", "game human computer1"]
"""A position where White (a person) promotes on b8 after a king's move, against level 1."""
PAGE_MOVES = ["move e1 e2", "move", "move b7 b8 Q"]
"""The same game typed: the page's moves are the first and last (`move` is the terminal's)."""


async def start_gui(*options: str) -> tuple[trio.Process, str]:
    """``hub play chess --gui --no-record OPTIONS``, and the URL it printed."""
    process = await trio.lowlevel.open_process(
        [program("hub"), "play", "chess", "--gui", "--no-record", *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    received = b""
    while not received.endswith(b"\n"):
        received += await process.stderr.receive_some(1000)
    return process, received.decode().strip()


async def finish(process: trio.Process) -> tuple[str, str]:
    """Close the console's input; its stdout and stderr (after the URL) to the end."""
    assert process.stdin and process.stdout and process.stderr
    await process.stdin.aclose()
    out, err = b"", b""
    while chunk := await process.stdout.receive_some(65536):
        out += chunk
    while chunk := await process.stderr.receive_some(65536):
        err += chunk
    assert await process.wait() == 0
    return out.decode(), err.decode()


def typed(commands: list[str]) -> str:
    """What the console prints for ``commands`` typed (the same seed, no page)."""
    return subprocess.run(
        [program("hub"), "play", "chess", "--seed", "7", "--no-record"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


@pytest.mark.browser
async def test_a_person_moves_on_the_console_page_and_the_terminal_shows_it() -> None:
    """A click move (e1, e2) and a promotion from the piece chooser (b7, b8, the queen) on
    the console's page; between them the computer's turn takes no clicks and moves when
    ``move`` is typed. The terminal prints exactly what the same moves typed print, and says
    on standard error which came from the page."""
    from tests.web.browser import artifacts, expect, in_trio, run_in_browser

    with trio.fail_after(90):
        process, url = await start_gui("--seed", "7")
        try:
            assert process.stdin is not None
            stdin = process.stdin
            await stdin.send_all(("\n".join(SETUP) + "\n").encode())

            def type_line(line: str) -> None:
                in_trio(stdin.send_all, line.encode() + b"\n")

            def script(page: Any) -> None:
                def square(name: str) -> Any:
                    return page.locator(f'#position [data-part="{name}"]')

                page.goto(url)
                expect(page.locator("header h1")).to_have_text("Chess console")
                expect(page.locator("#turn")).to_have_text("Your move (White).")
                # no time limit: each side's time used, White's running
                expect(page.locator("#bar .clock.used")).to_have_count(2)
                expect(page.locator("#bar .to-move .clock.used.running")).to_have_count(1)
                square("e1").click()
                expect(square("e2")).to_have_class(TARGET)
                square("e2").click()
                expect(page.locator("#moves li")).to_have_count(1)
                expect(page.locator("#moves li").first).to_have_text("1. Ke2")
                # the computer's turn: no square takes a click, the page says what to type
                expect(page.locator("#turn")).to_contain_text("type move at the terminal")
                expect(page.locator("#position .part")).to_have_count(0)
                type_line("move")
                expect(page.locator("#moves li")).to_have_count(2)
                square("b7").click()
                square("b8").click()
                queen = page.locator('#position [data-move="b7b8q"]')
                expect(queen).to_be_visible()
                page.screenshot(path=artifacts() / "console-gui-promotion.png", full_page=True)
                queen.click()
                expect(page.locator("#moves li")).to_have_count(3)
                expect(page.locator("#moves li").last).to_contain_text("b8=Q")
                expect(page.locator("#score")).to_have_text("Score: White 0, Black 0")
                page.screenshot(path=artifacts() / "console-gui.png", full_page=True)

            await run_in_browser(script)
            out, err = await finish(process)
        finally:
            process.kill()
            await process.wait()
    assert out == typed(SETUP + PAGE_MOVES)
    assert err.splitlines() == ["move e1 e2 (from the page)", "move b7 b8 Q (from the page)"]


async def test_only_the_token_moves_and_only_a_person_s_turn_takes_a_move() -> None:
    """A spectator (another token), a foreign Origin, a computer's turn, an illegal move and
    a move before any game are refused and print nothing; the token's legal move is played
    as typed."""
    with trio.fail_after(60):
        process, url = await start_gui("--seed", "7")
        try:
            assert process.stdin is not None
            base, token = url.split("/play/")
            json = {"Content-Type": "application/json"}

            async with httpx.AsyncClient(base_url=base, timeout=10) as client:

                async def post(move: str, who: str = token, **headers: str) -> httpx.Response:
                    return await client.post(
                        f"/play/{who}/move", json={"move": move}, headers={**json, **headers}
                    )

                async def plies() -> int:
                    data = (await client.get("/api/console")).json()
                    return 0 if data["game"] is None else len(data["game"]["moves"])

                assert (await post("e2e4")).status_code == 409  # no game yet
                await process.stdin.send_all(b"game human computer1\n")
                while (await client.get("/api/console")).json()["game"] is None:
                    await trio.sleep(0.02)
                assert (await post("e2e4", who="x" * len(token))).status_code == 404
                assert (await client.get(f"/play/{'x' * len(token)}")).status_code == 404
                foreign = await post("e2e4", Origin="http://evil.example")
                assert foreign.status_code == 403
                assert (await post("e2e5")).json() == {"error": "illegal move"}
                assert (await post("e2e4")).json() == {"ok": True}
                while await plies() < 1:
                    await trio.sleep(0.02)
                computer = await post("e7e5")
                assert computer.status_code == 409
                assert "computer" in computer.json()["error"]
            out, err = await finish(process)
        finally:
            process.kill()
            await process.wait()
    assert out == typed(["game human computer1", "move e2 e4"])
    assert err.splitlines() == ["move e2 e4 (from the page)"]
