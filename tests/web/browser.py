"""Headless Chromium (Debian's package) driven by Playwright from a trio test.

Playwright's sync API belongs to the thread that started it, so a browser test's script runs
in one worker thread (`run_in_browser`) and reaches back into trio with
``trio.from_thread.run`` to advance the game it watches. Screenshots go to the artefacts
directory ($HUB_ARTIFACTS, else tests/artifacts/, git-ignored).

With several pages, bring the one about to be clicked to the front (``page.bring_to_front()``):
Chromium throttles a background tab's frames, Playwright's click waits for two of them, and a
click there takes about a second (``--disable-background-timer-throttling`` and the like do
not lift it in headless mode).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio

T = TypeVar("T")

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 10_000


def chromium_path() -> str:
    """Chromium's path; skip with a visible reason, or fail when HUB_REQUIRE_BROWSER=1."""
    path = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    problem = None
    if path is None:
        problem = "Chromium is not installed (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "Playwright is not installed (pip install -e '.[test]')"
    if problem is not None:
        if os.environ.get("HUB_REQUIRE_BROWSER") == "1":
            pytest.fail(problem + " and HUB_REQUIRE_BROWSER=1")
        pytest.skip(problem)
    assert path is not None
    return path


def expect(locator: Any) -> Any:
    """Playwright's auto-waiting assertions (they work under the pages' strict CSP, which
    forbids the string evaluation of ``wait_for_function``)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def artifacts() -> Path:
    path = Path(os.environ.get("HUB_ARTIFACTS") or Path(__file__).parents[1] / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


async def run_in_browser(script: Callable[[Any], T], *, viewport: dict[str, int] = DESKTOP) -> T:
    """Run ``script(page)`` in a worker thread with a fresh headless Chromium page."""
    executable = chromium_path()

    def work() -> T:
        from playwright.sync_api import sync_playwright

        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=executable,
                headless=True,
                args=FLAGS,
                viewport=viewport,  # type: ignore[arg-type]
            )
            try:
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                errors: list[str] = []
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.on(
                    "console",
                    lambda message: (
                        errors.append(message.text) if message.type == "error" else None
                    ),
                )
                result = script(page)
                assert errors == [], f"the page reported errors: {errors}"
                return result
            finally:
                context.close()

    with trio.fail_after(120):
        return await trio.to_thread.run_sync(work, abandon_on_cancel=True)
