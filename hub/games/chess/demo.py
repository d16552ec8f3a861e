"""``hub demo chess``: a short scripted console session, then one question to ``hub engine``.

The session runs the same `Console` that ``hub play chess`` runs (each command is shown after
``> `` with what the program prints): a fool's mate between two humans, then a game against
level 4, whose move, the history and a resignation are shown. Level 4 searches a fixed number
of nodes from a fixed seed, so the demo is the same on every machine. The engine part runs the
installed ``hub engine`` as a UCI tool would and shows everything it prints.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Sequence

from hub.core.output import Output
from hub.core.programs import find_program
from hub.games.chess.console import Console, ConsoleOptions

SCRIPT = (
    "game human human",
    "move f2 f3",
    "move e7 e5",
    "move g2 g4",
    "move Qh4",
    "game human computer4",
    "move e2 e4",
    "move",
    "history",
    "resign",
)
ENGINE_COMMANDS = ("uci", "isready", "position startpos moves e2e4 e7e5 g1f3", "d", "go depth 4")
ENGINE_TIMEOUT = 20.0


def main(args: Sequence[str] = ()) -> int:
    out = Output(1)
    out.line("== chess: a scripted session of `hub play chess` (fool's mate, then level 4)")
    console = Console(ConsoleOptions(seed=2024, nodes=8000))
    for command in SCRIPT:
        out.line(f"> {command}")
        for line in console.handle(command):
            out.line(line)
    out.line("> (end of input)")
    for line in console.finish():
        out.line(line)
    out.line("== chess: `hub engine`, our UCI engine, asked for a move after 1. e4 e5 2. Nf3")
    out.flush()
    status = _engine(out)
    out.line(f"== chess: hub engine exited with status {status}")
    out.flush()
    return status


def _engine(out: Output) -> int:
    """Talk to ``hub engine`` until its ``bestmove``, then ``quit`` (killed if it hangs)."""
    try:
        process = subprocess.Popen(
            [find_program("hub"), "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
    except OSError as exc:
        out.line(f"== chess: cannot start hub engine: {exc}")
        return 1
    watchdog = threading.Timer(ENGINE_TIMEOUT, process.kill)
    watchdog.start()
    try:
        assert process.stdin is not None and process.stdout is not None
        for command in ENGINE_COMMANDS:
            out.line(f"> {command}")
            process.stdin.write(command + "\n")
        out.flush()
        process.stdin.flush()
        for line in process.stdout:
            out.line(line.rstrip("\n"))
            if line.startswith("bestmove"):
                break
        process.stdin.write("quit\n")
        process.stdin.close()
    except (OSError, ValueError) as exc:
        out.line(f"== chess: hub engine broke the conversation: {exc}")
    finally:
        status = process.wait()
        watchdog.cancel()
    return status
