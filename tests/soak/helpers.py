"""Soak helpers: the cycle counts (short in `make test`, long in `make soak`), a server child
process and its memory, and loopback sources spread over 127.0.0.2-255 (so that tens of
thousands of short connections neither meet a per-address cap nor run out of ports)."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import trio

from tests.conftest import descendants

LONG = os.environ.get("HUB_SOAK") == "long"
"""``make soak`` sets HUB_SOAK=long: the issue's counts instead of the short ones."""


def size(short: int, long: int) -> int:
    return long if LONG else short


def report(line: str) -> None:
    """A figure for docs/reliability.md (``make soak`` runs pytest with -s)."""
    print(f"\nsoak: {line}")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def settled_rss(pid: int, idle_sockets: int) -> int:
    """The RSS once the server has closed every connection (no more sockets in
    /proc/PID/fd than ``idle_sockets``, its listeners) and a moment has passed."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sockets(pid) > idle_sockets:
        time.sleep(0.05)
    time.sleep(0.5)
    return rss_kib(pid)


def sockets(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


@contextmanager
def server(argv: list[str]) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """Start a server that prints its port alone on stderr's first line; kill it (and its
    engines) afterwards."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        while line and not line.strip().isdigit():  # "no Stockfish found, using ..."
            line = process.stderr.readline()
        assert line, "the server did not start"
        yield process, int(line)
        assert process.poll() is None, "the server died during the soak"
    finally:
        left = descendants(process.pid)
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for pid in left:  # its engines, if the server could not end them itself
            with suppress(ProcessLookupError):
                os.kill(pid, 9)
        if process.stderr is not None:
            process.stderr.close()


class Sources:
    """Connect from 127.0.0.2, .3, ... .255 in turn."""

    def __init__(self) -> None:
        self._next = itertools.cycle(f"127.0.0.{n}" for n in range(2, 256))

    async def connect(self, port: int) -> trio.SocketStream:
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            await sock.bind((next(self._next), 0))
            await sock.connect(("127.0.0.1", port))
        except BaseException:
            sock.close()
            raise
        return trio.SocketStream(sock)


async def run_cycles(
    cycle: Callable[[int], Awaitable[None]], count: int, first: int, at_once: int
) -> None:
    """``cycle(number)`` for ``count`` numbers from ``first``, ``at_once`` at a time, within
    a bound against a hang (not a measurement)."""
    limiter = trio.Semaphore(at_once)

    async def one(number: int) -> None:
        try:
            await cycle(number)
        finally:
            limiter.release()

    with trio.fail_after(60 + count * 0.5):
        async with trio.open_nursery() as nursery:
            for number in range(first, first + count):
                await limiter.acquire()
                nursery.start_soon(one, number)
