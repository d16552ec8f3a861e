"""Helpers for the fault tests: misbehaving programs and checks that nothing is left behind."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from tests.conftest import our_descendants

BAD_PROGRAM = Path(__file__).with_name("bad_program.py")


def bad_program(directory: Path, name: str, *faults: str, real: list[str] | None = None) -> str:
    """An executable (for programs that start players as ``prog ARGS``) running
    bad_program.py with ``faults``, then ``real`` followed by the arguments it was given."""
    argv = [sys.executable, "-S", str(BAD_PROGRAM), *faults, "--", *(real or [])]
    path = directory / name
    path.write_text(f'#!/bin/sh\nexec {shlex.join(argv)} "$@"\n')
    path.chmod(0o755)
    return str(path)


def bad_argv(*faults: str, real: list[str] | None = None) -> list[str]:
    """bad_program.py as an argv (for APIs that take one)."""
    return [sys.executable, "-S", str(BAD_PROGRAM), *faults, "--", *(real or [])]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (an orphan's zombie waits for init)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def wait_for_file(path: Path, limit: float = 10.0) -> str:
    """The contents of ``path`` once it exists (bounded: fails after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)
    return path.read_text()


def gone(pid: int, limit: float = 5.0) -> bool:
    """Whether ``pid`` is dead within ``limit`` seconds (a killed orphan is reaped by init)."""
    deadline = time.monotonic() + limit
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def open_fds() -> set[str]:
    """This process's open file descriptors (to check that none leaked)."""
    return set(os.listdir("/proc/self/fd"))


def no_zombie_children() -> bool:
    """No child of this process is a zombie (the conftest fixture checks living ones too)."""
    return not any(not alive(pid) and Path(f"/proc/{pid}").exists() for pid in our_descendants())
