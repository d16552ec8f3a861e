"""Child processes for real: spawn, talk, escalate, reap; nothing left behind."""

from __future__ import annotations

import signal
import sys

import pytest
import trio

from hub.core.lines import PeerClosed
from hub.core.process import ChildProcess, ExitStatus, SpawnFailed, stop_all

PY = sys.executable


def script(code: str) -> list[str]:
    return [PY, "-c", code]


ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip().upper(), flush=True)"
STUBBORN = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


async def test_talks_over_pipes_and_reaps() -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(script(ECHO))
        await child.lines.send_line("hello")
        assert await child.lines.receive_line() == "HELLO"
        await child.close_stdin()
        [status] = await stop_all([child], grace=5)
    assert status == ExitStatus(code=0)
    assert status.clean


async def test_stderr_is_discarded_and_exit_code_reported(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(
            script("import sys; sys.stderr.write('noise'); sys.exit(3)")
        )
        with pytest.raises(PeerClosed):
            await child.lines.receive_line()
        [status] = await stop_all([child], grace=5)
    assert status == ExitStatus(code=3)
    assert "noise" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "argv", [["/nonexistent/program"], ["no-such-program-on-path-xyz"], ["/etc/hostname"]]
)
async def test_spawn_failures(argv: list[str]) -> None:
    with pytest.raises(SpawnFailed):
        await ChildProcess.spawn(argv)


async def test_sigkill_after_grace_for_a_child_that_ignores_sigterm() -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(script(STUBBORN))
        assert await child.lines.receive_line() == "ready"
        start = trio.current_time()
        [status] = await stop_all(
            [child], grace=0.2, escalation=((0.0, signal.SIGTERM), (0.2, signal.SIGKILL))
        )
        assert trio.current_time() - start >= 0.4
    assert status == ExitStatus(signal=signal.SIGKILL)


async def test_sigterm_first_when_the_child_obeys_it() -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(
            script("import time; print('x', flush=True); time.sleep(60)")
        )
        await child.lines.receive_line()
        [status] = await stop_all(
            [child], grace=0.1, escalation=((0.0, signal.SIGTERM), (5.0, signal.SIGKILL))
        )
    assert status == ExitStatus(signal=signal.SIGTERM)


async def test_one_shared_deadline_and_grandchildren_killed_with_the_group() -> None:
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    with trio.fail_after(10):
        children = [await ChildProcess.spawn(script(code)) for _ in range(3)]
        for child in children:
            await child.lines.receive_line()
        start = trio.current_time()
        statuses = await stop_all(children, grace=0.3)
        elapsed = trio.current_time() - start
    assert statuses == [ExitStatus(signal=signal.SIGKILL)] * 3
    assert elapsed < 3  # 0.3 s in total, not per child (generous bound for a loaded machine)
    # The autouse fixture checks that the grandchildren are gone too.


async def test_reaps_even_when_cancelled() -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(script("import time; time.sleep(60)"))
        with trio.CancelScope() as scope:
            scope.cancel()
            [status] = await stop_all([child], grace=0.1)
    assert status.signal == signal.SIGKILL


def test_exit_status_from_returncode() -> None:
    assert ExitStatus.from_returncode(0) == ExitStatus(code=0)
    assert ExitStatus.from_returncode(-9) == ExitStatus(signal=9)
    assert not ExitStatus(code=4).clean


async def test_stderr_can_be_inherited(capfd: pytest.CaptureFixture[str]) -> None:
    with trio.fail_after(10):
        child = await ChildProcess.spawn(
            script("import sys; sys.stderr.write('diagnostics')"), stderr=None
        )
        with pytest.raises(PeerClosed):
            await child.lines.receive_line()
        [status] = await stop_all([child], grace=5)
    assert status == ExitStatus(code=0)
    assert "diagnostics" in capfd.readouterr().err
