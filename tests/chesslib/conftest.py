"""Fixtures of the chess library's tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """The fake engine's ``--gate`` FIFO and a descriptor to write it: each byte written ends
    one search, so a test decides exactly when the engine is busy (open read-write: the
    engine's open does not block, and a dead engine does not make a write fail)."""
    path = tmp_path / "gate"
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR)
    try:
        yield str(path), fd
    finally:
        os.close(fd)
