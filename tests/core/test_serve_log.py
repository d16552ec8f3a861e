"""What a server logs about its connections goes through its logger, in its program's format:
a handler's failure (with the traceback) and an accept that failed for lack of descriptors
(which `trio.serve_listeners` retries, one line each), and nothing at all for a program whose
specification fixes its output."""

from __future__ import annotations

import errno
from collections.abc import Iterator

import pytest
import trio
import trio.testing

from hub.core.io.serve import Connection, serve_lines
from hub.core.io.serverlog import configure_logging
from tests.core.memory_listener import MemoryListener


@pytest.fixture(autouse=True)
def default_logging() -> Iterator[None]:
    yield
    configure_logging("hub", "warning")


async def failing(connection: Connection) -> None:
    if await connection.lines.receive_line() == "boom":
        raise RuntimeError("handler bug")


async def serve_two_failures() -> None:
    """One accept fails with EMFILE, then one client's handler raises; the server goes on."""
    listener = MemoryListener()
    listener.errors = [OSError(errno.EMFILE, "Too many open files")]
    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(failing, [listener], task_status=task_status)
        )
        client = await listener.connect()
        await client.send_all(b"boom\n")
        assert await client.receive_some(10) == b""  # closed after the failure
        nursery.cancel_scope.cancel()


async def test_failures_are_logged_in_the_programs_format(
    autojump_clock: trio.testing.MockClock, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("kalah", "warning")
    await serve_two_failures()
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].endswith(" kalah: accept failed: [Errno 24] Too many open files; retrying")
    assert lines[1].endswith(" kalah: connection 1 from ? failed:")
    assert lines[2] == "Traceback (most recent call last):"
    assert lines[-1] == "RuntimeError: handler bug"
    assert err.count(" kalah: ") == 2  # one line each, the accept's without a traceback


async def test_a_spec_fixed_program_logs_nothing(
    autojump_clock: trio.testing.MockClock, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging("uqchess", None)
    await serve_two_failures()
    assert capsys.readouterr().err == ""
