"""clubber must start fast: neither it nor hub/__init__.py may import trio, attrs or typing."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("trio", "attr", "attrs", "typing", "hypothesis", "chess")


@pytest.mark.parametrize(
    "module", ["hub", "hub.games.clubs.player", "hub.games.clubs.launch", "hub.entry"]
)
def test_no_heavy_imports(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
