"""Children started before trio runs, so that their start-up overlaps the host's own: started
as `hub.core.io.process.ChildProcess.spawn` starts a child (pipes for its input and output,
stderr discarded, its own process group) and later adopted by `ChildProcess.adopt`, or ended
by `end_early` when the host never got that far.

Standard library only: ``clubhub`` starts its players with it before importing anything else
(hub/games/clubs/launch.py), as ``hub match`` starts its workers (hub/tournament/runner.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time


def start_early(argv: list[str] | tuple[str, ...]) -> subprocess.Popen[bytes]:
    """Start ``argv`` as `ChildProcess.spawn` would; raises `OSError` or `ValueError` if it
    cannot be started."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        process_group=0,
    )


def end_early(
    children: list[subprocess.Popen[bytes]],
    grace: float,
    *,
    farewell: bytes = b"",
    terminate: bool = False,
) -> None:
    """End children started early that nobody adopted: ``farewell`` to each (a protocol's
    last line), its input closed, SIGTERM too if ``terminate`` (for one that may still be
    importing), then SIGKILL to the group of one still there after ``grace`` seconds in all;
    every one reaped and its output closed."""
    for child in children:
        with contextlib.suppress(OSError, ValueError):  # gone already, or closed
            assert child.stdin is not None
            if farewell:
                child.stdin.write(farewell)
            child.stdin.close()
        if terminate:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # gone meanwhile
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        if child.stdout is not None:
            child.stdout.close()
