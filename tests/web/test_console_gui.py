"""``hub play chess --gui`` as a user runs it: the page's URL on stderr before the first
command is read, the page following the console's games, the text display unchanged."""

from __future__ import annotations

import subprocess

import httpx
import pytest
import trio

from tests.conftest import program

pytestmark = pytest.mark.e2e

COMMANDS = ["game human human", "move f2 f3", "move e7 e5", "move g2 g4", "move d8 h4"]


async def drive(process: trio.Process) -> bytes:
    """Type the commands, watching the page's data follow them; returns the console's stdout."""
    assert process.stdin and process.stdout and process.stderr
    received = b""
    while not received.endswith(b"\n"):  # the URL comes before any command is read
        received += await process.stderr.receive_some(1000)
    url = received.decode().strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/console")
    base = url.removesuffix("/console")
    async with httpx.AsyncClient(timeout=10) as client:
        page = await client.get(url)
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
