"""Child processes that misbehave at the process level (hub/core/io/process.py, lines.py): a
grandchild that keeps the pipes open, SIGTERM ignored, stdout closed early, a flood. Every
case ends promptly with every process gone, no zombie and no file descriptor left open."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
import trio

from hub.core.io.lines import LineTooLong, PeerClosed
from hub.core.io.process import ChildProcess, ExitStatus, stop_all
from tests.faults.helpers import alive, bad_argv, gone, no_zombie_children, open_fds

LIMIT = 20  # seconds: a bound on a test that would otherwise hang, never a timing assertion
SLEEPER = [sys.executable, "-S", "-c", "import time; time.sleep(60)"]
SAY_HI = [sys.executable, "-S", "-c", "print('hi')"]


def pid_in(path: Path) -> int:
    return int(path.read_text())


async def wait_for(path: Path) -> int:
    while not path.exists():
        await trio.sleep(0.01)
    return pid_in(path)


async def test_a_grandchild_holding_the_pipes_is_killed_when_the_player_exits(
    tmp_path: Path,
) -> None:
    """The player ends normally but leaves a grandchild with our pipes open: reading ends
    only once the group is killed, and `stop_all` kills it (it used to survive the game)."""
    fds = open_fds()
    pidfile = tmp_path / "grandchild"
    with trio.fail_after(LIMIT):
        child = await ChildProcess.spawn(bad_argv(f"fork:{pidfile}", real=SAY_HI))
        grandchild = await wait_for(pidfile)
        assert await child.lines.receive_line() == "hi"
        [status] = await stop_all([child], grace=5.0)
    assert status == ExitStatus(code=0)
    assert gone(grandchild), "the grandchild outlived its player"
    assert no_zombie_children()
    assert open_fds() <= fds


async def test_sigterm_ignored_by_the_whole_group_ends_with_sigkill(tmp_path: Path) -> None:
    """The gentle ladder (SIGTERM, then SIGKILL) against a player and grandchild that both
    ignore SIGTERM: both are SIGKILLed after the grace and the ladder's step."""
    fds = open_fds()
    pidfile = tmp_path / "grandchild"
    with trio.fail_after(LIMIT):
        child = await ChildProcess.spawn(bad_argv("ignore-term", f"fork:{pidfile}", real=SLEEPER))
        grandchild = await wait_for(pidfile)
        ladder = ((0.0, signal.SIGTERM), (0.2, signal.SIGKILL))
        [status] = await stop_all([child], grace=0.1, escalation=ladder)
    assert status == ExitStatus(signal=signal.SIGKILL)
    assert gone(grandchild)
    assert no_zombie_children()
    assert open_fds() <= fds


async def test_stdout_closed_while_running_is_end_of_input(tmp_path: Path) -> None:
    """A player that closes its stdout but keeps running is seen at once (EOF), not when it
    exits; it ignores SIGTERM and the end of its input, so only SIGKILL ends it."""
    with trio.fail_after(LIMIT):
        child = await ChildProcess.spawn(bad_argv("ignore-term", "dash-close-stdout"))
        assert await child.lines.receive_exactly(1) == b"-"
        with pytest.raises(PeerClosed):
            await child.lines.receive_line()
        assert child.status is None and not child.exited  # still running
        await child.close_stdin()
        ladder = ((0.0, signal.SIGTERM), (0.2, signal.SIGKILL))
        [status] = await stop_all([child], grace=0.1, escalation=ladder)
    assert status == ExitStatus(signal=signal.SIGKILL)
    assert no_zombie_children()


@pytest.mark.parametrize("max_line", [64, 4096])
async def test_a_flood_is_cut_at_the_line_limit(max_line: int) -> None:
    """Endless output without a newline: `LineTooLong` after at most ``max_line`` bytes plus
    one read, never an unbounded buffer; the flooder is then killed."""
    flood = [sys.executable, "-S", "-c", "import os\nwhile True: os.write(1, b'x' * 65536)"]
    with trio.fail_after(LIMIT):
        child = await ChildProcess.spawn(flood, max_line=max_line)
        with pytest.raises(LineTooLong):
            await child.lines.receive_line()
        assert len(child.lines._buffer) <= max_line + 65536
        [status] = await stop_all([child], grace=0.0)
    assert status == ExitStatus(signal=signal.SIGKILL)


async def test_reap_of_a_child_that_already_exited_kills_its_leftovers(tmp_path: Path) -> None:
    """`ChildProcess.exited` does not reap (unlike ``process.poll()``), so `reap` can still
    kill the group of a player that exited long before."""
    pidfile = tmp_path / "grandchild"
    with trio.fail_after(LIMIT):
        child = await ChildProcess.spawn(bad_argv(f"fork:{pidfile}", real=SAY_HI))
        grandchild = await wait_for(pidfile)
        while not child.exited:
            await trio.sleep(0.01)
        assert child.exited and child.status is None and alive(grandchild)
        assert await child.reap() == ExitStatus(code=0)
        await child.close_pipes()
    assert gone(grandchild)
