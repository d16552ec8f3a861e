"""Layout in Chromium (issue 25): the ``/match`` page does not scroll sideways at 1200 px
(the standings' long Elo line wraps in its box), and a seat's page without a clock shows no
empty clock box beside Resign (with one, the clock is shown)."""

from __future__ import annotations

import signal
import subprocess
from typing import Any

import pytest

from tests.conftest import program
from tests.web.browser import expect, run_in_browser

WIDE = {"width": 1200, "height": 800}


def hub(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [program("hub"), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 130


def url_on_stderr(process: subprocess.Popen[str], words: str) -> str:
    assert process.stderr is not None
    while words not in (line := process.stderr.readline()):
        assert line, f"the program ended before saying {words!r}"
    return line.rsplit(" at ", 1)[1].split()[0]


@pytest.mark.browser
async def test_the_match_page_does_not_scroll_sideways_at_1200_px() -> None:
    process = hub("match", "connect4", "ai:1", "ai:2", "--games", "2", "--tc", "none",
                  "--web", "0", "--no-record")  # fmt: skip
    try:
        url = url_on_stderr(process, "stays up")

        def script(page: Any) -> tuple[int, int]:
            page.goto(url)
            expect(page.locator("#standings")).to_contain_text("Elo difference")
            widths: tuple[int, int] = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            return widths

        scroll, client = await run_in_browser(script, viewport=WIDE)
        assert scroll <= client, (scroll, client)
    finally:
        stop(process)


@pytest.mark.browser
@pytest.mark.parametrize(("tc", "shown"), [("none", False), ("60+1", True)])
async def test_the_clock_beside_resign_is_shown_only_when_there_is_one(
    tc: str, shown: bool
) -> None:
    process = hub("play", "connect4", "web", "ai:1", "--tc", tc, "--web", "0", "--no-record")
    try:
        url = url_on_stderr(process, "plays in the browser")

        def script(page: Any) -> None:
            page.goto(url)
            expect(page.locator("#resign")).to_be_visible()
            expect(page.locator("#turn")).to_have_text("Your move (Red).")
            clock = page.locator("#bar .you .clock")
            expect(clock).to_contain_text(":") if shown else expect(clock).to_have_count(0)
            expect(page.locator(".clock:empty:visible")).to_have_count(0)  # no empty box

        await run_in_browser(script, viewport=WIDE)
    finally:
        stop(process)
