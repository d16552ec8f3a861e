"""Headless Chromium (Debian's package) driven by Playwright from a trio test.

Playwright's sync API belongs to the thread that started it, so a browser test's script runs
in the session's one Chromium thread (`run_in_browser`) and reaches back into trio with
`in_trio` and `in_trio_sync` to advance the game it watches. Screenshots go to the artefacts
directory ($HUB_ARTIFACTS, else tests/artifacts/, git-ignored).

With several pages, bring the one about to be clicked to the front (``page.bring_to_front()``):
Chromium throttles a background tab's frames, Playwright's click waits for two of them, and a
click there takes about a second (``--disable-background-timer-throttling`` and the like do
not lift it in headless mode).
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

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


class _Job(NamedTuple):
    script: Callable[[Any], Any]
    viewport: dict[str, int]
    token: trio.lowlevel.TrioToken
    future: Future[Any]


class _Chromium:
    """One headless Chromium for the whole session, in a thread of its own (Playwright's sync
    API belongs to the thread that started it): each `run_in_browser` is a job run there in a
    fresh context (its own cookies and storage, as a fresh profile had), so a test pays for a
    page, not for starting Playwright's driver and Chromium (about a second each time)."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name="chromium", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        from playwright.sync_api import sync_playwright

        try:
            playwright = sync_playwright().start()
        except BaseException as exc:  # every job fails with why, until `close`
            while (job := self.jobs.get()) is not None:
                job.future.set_exception(exc)
            return
        browser = None
        try:
            while (job := self.jobs.get()) is not None:
                try:
                    if browser is None or not browser.is_connected():
                        browser = playwright.chromium.launch(
                            executable_path=self.executable, headless=True, args=FLAGS
                        )
                except BaseException as exc:
                    job.future.set_exception(exc)
                    continue
                _run(job, browser)
        finally:
            if browser is not None:
                browser.close()
            playwright.stop()

    def close(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=60)


_current = threading.local()
_chromium: _Chromium | None = None


def _run(job: _Job, browser: Any) -> None:
    """``job``'s script on a fresh page of a fresh context, which is closed after it."""
    context = browser.new_context(viewport=job.viewport)
    _current.token = job.token
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "console",
            lambda message: errors.append(message.text) if message.type == "error" else None,
        )
        result = job.script(page)
        assert errors == [], f"the page reported errors: {errors}"
        job.future.set_result(result)
    except BaseException as exc:
        job.future.set_exception(exc)
    finally:
        _current.token = None
        with contextlib.suppress(Exception):
            context.close()


def in_trio(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """From a browser script: await ``function(*args)`` in the test's trio run."""
    return trio.from_thread.run(function, *args, trio_token=_current.token)


def in_trio_sync(function: Callable[..., T], *args: Any) -> T:
    """From a browser script: call ``function(*args)`` in the test's trio run."""
    return trio.from_thread.run_sync(function, *args, trio_token=_current.token)


async def run_in_browser(script: Callable[[Any], T], *, viewport: dict[str, int] = DESKTOP) -> T:
    """Run ``script(page)`` on a fresh headless Chromium page (the session's one Chromium, in
    its own thread: the script reaches the test's trio run with `in_trio` and
    `in_trio_sync`). A script still running after 120 s fails the test, and the next test
    gets a Chromium of its own."""
    global _chromium
    executable = chromium_path()
    if _chromium is None:
        _chromium = _Chromium(executable)
    future: Future[T] = Future()
    _chromium.jobs.put(_Job(script, viewport, trio.lowlevel.current_trio_token(), future))
    try:
        with trio.fail_after(120):
            return await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
    except trio.TooSlowError:
        _chromium = None  # (its thread is stuck in the script: abandoned)
        raise


def close_chromium() -> None:
    """Stop the session's Chromium, if one was started (tests/conftest.py, at the end)."""
    global _chromium
    if _chromium is not None:
        _chromium.close()
        _chromium = None


def chromium_processes(descendants: Callable[[int], list[int]]) -> set[int]:
    """The session Chromium's processes (Playwright's driver, a child of this process, and
    everything under it): they outlive a test by design (tests/conftest.py's check for
    processes left behind leaves them out)."""
    found: set[int] = set()
    for child in descendants(os.getpid()):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"run-driver" in command and child not in found:
            found.add(child)
            found.update(descendants(child))
    return found
