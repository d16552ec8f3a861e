"""Child processes for real: spawn, talk, escalate, reap; nothing left behind."""

from __future__ import annotations

import signal
import sys

import pytest
import trio

from hub.core.commands.running import only_keyboard_interrupts
from hub.core.io.lines import PeerClosed
from hub.core.io.process import ChildProcess, ExitStatus, SpawnFailed, stop_all

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


def test_a_ctrl_c_while_stopping_still_reaps_every_child() -> None:
    """A Ctrl-C that comes while `stop_all` waits (the main task's own wait: trio delivers
    it there even under the shield) cancelled the nursery of its reaping tasks: the children
    were left running, unreaped (issue 20: the UQChess demo's server and engine outlived an
    interrupted demo). Every child is still stopped and reaped, then the Ctrl-C goes on."""
    children: list[ChildProcess] = []

    async def main() -> None:
        with trio.fail_after(10):
            for _ in range(2):
                children.append(child := await ChildProcess.spawn(script(STUBBORN)))
                assert await child.lines.receive_line() == "ready"
        # run by trio's scheduler (KI-protected): the handler hands the Ctrl-C to the main
        # task, at its first wait in stop_all
        token = trio.lowlevel.current_trio_token()
        token.run_sync_soon(signal.raise_signal, signal.SIGINT)
        await stop_all(children, grace=0.2)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # never ignored here
    try:
        with pytest.raises(BaseException) as raised:
            trio.run(main)
        assert only_keyboard_interrupts(raised.value), raised.value
        assert [child.status for child in children] == [ExitStatus(signal=signal.SIGKILL)] * 2
    finally:
        signal.signal(signal.SIGINT, previous)
        for child in children:
            if child.status is None:
                child.process.send_signal(signal.SIGKILL)
                trio.run(child.reap)


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
