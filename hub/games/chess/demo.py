"""``hub demo chess``: a narrated tour of ``hub play chess`` and ``hub engine``.

The console part runs the same `Console` that ``hub play chess`` runs (each command is shown
after ``> `` with what the program prints): a fool's mate between two people, then a game
against level 4, whose move, the history and a resignation are shown, then the session's
score. Level 4 searches a fixed number of nodes from a fixed seed, so its move is the same on
every machine. The engine part runs the installed ``hub engine`` as a UCI tool would: each
command is followed by the engine's replies to it (read up to the line that ends them).
The engine is started and stopped with the core's process handling (`ChildProcess`,
`stop_all`), so a Ctrl-C or SIGTERM that reaches only the demo, at any moment, ends the
engine too and the demo exits at once (130 or 143). No Stockfish is needed.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence

import attrs
import trio

from hub.core.commands.tour import Tour
from hub.core.io.lines import LineError, LineStream
from hub.core.io.output import Output
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.io.programs import find_program
from hub.games.chess.console import Console, ConsoleOptions

STEPS = 4
FOOLS_MATE = ("game human human", "move f2 f3", "move e7 e5", "move g2 g4", "move Qh4")
AGAINST_LEVEL_4 = ("game human computer4", "move e2 e4", "move", "history", "resign")
ENGINE_TIMEOUT = 20.0
"""Seconds for the whole conversation with the engine (it needs well under one)."""
STOP_ESCALATION = ((0.0, signal.SIGTERM), (1.0, signal.SIGKILL))
"""An engine still running when the conversation ends (it broke, or the demo was
interrupted) gets SIGTERM at once, then SIGKILL a second later."""


@attrs.frozen
class Exchange:
    """One UCI command, what it is for, and the reply line that ends its answer (None: the
    command has no reply)."""

    command: str
    why: str
    last: str | None


ENGINE_EXCHANGES = (
    Exchange("uci", "The engine names itself and ends its answer with uciok.", "uciok"),
    Exchange("isready", "readyok: everything sent so far is done.", "readyok"),
    Exchange(
        "position startpos moves e2e4 e7e5 g1f3",
        "The position after 1. e4 e5 2. Nf3: no reply, the engine only takes it in.",
        None,
    ),
    Exchange(
        "d", "The board as Stockfish draws it (d is not UCI but Stockfish's own).", "Checkers:"
    ),
    Exchange(
        "go depth 4",
        "A search four moves deep: one info line per depth (the score in centipawns and the "
        "best line found), then bestmove with the reply it expects.",
        "bestmove",
    ),
)


def main(args: Sequence[str] = ()) -> int:
    out = Output(1)
    tour = Tour(out, "chess", STEPS)
    console = Console(ConsoleOptions(seed=2024, nodes=8000))
    tour.step(
        "two people at one keyboard (fool's mate)",
        "`hub play chess` reads one command a line and draws the board after every move,",
        "White at the bottom: capitals are White's pieces, _ an empty dark square.",
        "`game human human` starts a game between two people.",
        "White weakens the king's diagonal with f3 and g4, and Black's queen mates on h4:",
        "the shortest game there is.",
    )
    _session(console, FOOLS_MATE, out)
    tour.step(
        "against the computer",
        "`game human computer4` plays against level 4, the strongest of the four levels, a",
        "real search; here it counts a fixed number of positions from a fixed seed, so it",
        "replies the same on every machine. `move` alone asks the computer to move, `history`",
        "lists the moves in standard notation and `resign` gives the game up.",
    )
    _session(console, AGAINST_LEVEL_4, out)
    tour.step(
        "the score of the session",
        "At the end of its input (Ctrl-D) the console prints the score of the session's",
        "games, a point for each win: Black won both.",
    )
    out.line("> (end of input)")
    for line in console.finish():
        out.line(line)
    tour.step(
        "`hub engine`: the same search as a UCI engine",
        "Chess programs and tournament managers talk to engines in UCI, one command a line.",
        "Here the installed `hub engine` is run as they would run it: after each command",
        "(shown after >) come the engine's replies to it. On start it prints its name.",
    )
    status = _engine(out, tour)
    tour.say(f"hub engine exited with status {status}.")
    return status


def _session(console: Console, commands: Sequence[str], out: Output) -> None:
    for command in commands:
        out.line(f"> {command}")
        for line in console.handle(command):
            out.line(line)
    out.flush()


def _engine(out: Output, tour: Tour) -> int:
    """Talk to ``hub engine`` one command at a time, then ``quit``; its exit status. A Ctrl-C
    is raised only at a checkpoint of this one task, never between starting the engine and
    the ``try`` that stops it."""
    return trio.run(_talk_to_engine, out, tour, restrict_keyboard_interrupt_to_checkpoints=True)


async def _talk_to_engine(out: Output, tour: Tour) -> int:
    """The conversation, under one deadline. The engine is a core `ChildProcess` in a
    process group of its own, stopped by `stop_all` however the conversation ends: at
    once (SIGTERM, then SIGKILL) when it broke, hung, or a Ctrl-C or SIGTERM reached the
    demo (at a terminal too: the engine's group does not get the terminal's Ctrl-C)."""
    try:
        engine = await ChildProcess.spawn([find_program("hub"), "engine"], stderr=None)
    except SpawnFailed as exc:
        tour.say(f"hub engine could not be started: {exc}")
        return 1
    try:
        with trio.fail_after(ENGINE_TIMEOUT):
            out.line(await engine.lines.receive_line())
            for exchange in ENGINE_EXCHANGES:
                tour.say(exchange.why)
                out.line(f"> {exchange.command}")
                out.flush()
                await engine.lines.send_line(exchange.command)
                if exchange.last is not None:
                    await _replies(engine.lines, exchange.last, out)
            tour.say("`quit` ends the engine.")
            out.line("> quit")
            await engine.lines.send_line("quit")
            await engine.close_stdin()
            await engine.wait_exited()
    except (LineError, trio.TooSlowError) as exc:
        tour.say(f"hub engine broke the conversation: {exc or type(exc).__name__}")
    finally:
        try:
            [status] = await stop_all([engine], grace=0.0, escalation=STOP_ESCALATION)
        finally:
            out.flush()
    return status.code if status.code is not None else -(status.signal or 0)


async def _replies(lines: LineStream, last: str, out: Output) -> None:
    """Show the engine's lines up to the one starting with ``last``."""
    while True:
        line = await lines.receive_line()
        out.line(line)
        if line.startswith(last):
            break
    out.flush()
