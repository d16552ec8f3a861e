"""Helpers for the chess library's tests: the fake UCI engine (the UQChess tests use it too).

`need_stockfish` (shared with the chess and UQChess tests) is in tests/conftest.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import trio

FAKE_ENGINE = Path(__file__).with_name("fake_engine.py")
TIMEOUT = 30.0
"""Generous: no test can hang, and a loaded machine does not make one fail."""


def fake_engine_argv(*args: str) -> list[str]:
    return [sys.executable, str(FAKE_ENGINE), *args]


async def logged(log: Path, prefix: str) -> None:
    """Wait until the fake engine's ``--log`` has a command starting with ``prefix``: a gate
    on what the engine has been told, never on how long that took (bound it by the caller)."""
    while not (
        log.exists() and any(line.startswith(prefix) for line in log.read_text().splitlines())
    ):
        await trio.sleep(0.01)
