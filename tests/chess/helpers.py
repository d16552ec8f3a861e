"""Helpers for the chess tests: scripted console sessions, the installed programs.

`need_stockfish` (shared with the UQChess tests) is in tests/conftest.py.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from hub.games.chess.console import Console, parse_options
from tests.conftest import program

SESSIONS = Path(__file__).with_name("sessions")
SESSION_ARGS: dict[str, list[str]] = {
    "computer_moves": ["--seed", "7", "--nodes", "3000"],
    "resign": ["--seed", "3"],
    "extras": ["--seed", "5", "--nodes", "3000"],
    "classic": ["--classic", "--seed", "5", "--nodes", "3000"],
}
"""Options of the sessions that need them (the others run with none)."""
TIMEOUT = 30.0
"""Generous: no test can hang, and a loaded machine does not make one fail."""


def session_names() -> list[str]:
    return sorted(path.stem for path in SESSIONS.glob("*.in"))


def console_transcript(data: bytes, args: Sequence[str] = ()) -> bytes:
    """What ``hub play chess ARGS`` prints for standard input ``data``, computed in-process.

    Lines are split as the program splits them (a last line without a newline still counts),
    decoded as Latin-1, and the answers encoded as UTF-8 as `hub.core.io.output.Output` does.
    """
    options = parse_options(args)
    assert options is not None
    console = Console(options)
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    out: list[str] = []
    for line in lines:
        out += console.handle(line.decode("latin-1"))
    out += console.finish()
    return ("\n".join(out) + "\n").encode()


def run_program(
    args: Sequence[str], data: bytes, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[bytes]:
    """Run the installed ``hub`` with ``args`` and standard input ``data``."""
    return subprocess.run(
        [program("hub"), *args], input=data, capture_output=True, timeout=timeout, check=False
    )
