"""``hub demo uqchess``: a narrated tour of the UQChess server and its clients.

It runs the installed ``uqchessserver`` (or, when Stockfish is not installed, ``hub serve
uqchess``, which falls back to the built-in engine ``hub engine``) and ``uqchessclient``s typed
into by a script: a few moves against the computer, then fool's mate between two clients.
Everything shown after ``name|`` is what the programs really print; what the script types is
shown after ``name>``.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Sequence

import trio

from hub.chess.engine_client import find_engine
from hub.core.commands.tour import Tour
from hub.core.io.lines import LineError, LineStream
from hub.core.io.output import Output
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.io.programs import find_program

STEP_TIMEOUT = 15.0
STEPS = 4
STOP_ESCALATION = ((0.0, signal.SIGTERM), (1.0, signal.SIGKILL))
"""The clients and the server get SIGTERM once the demo is done with them (or is
interrupted), SIGKILL a second later if they still run."""


class _Client:
    def __init__(self, name: str, child: ChildProcess, out: Output) -> None:
        self.name = name
        self.child = child
        self.lines = child.lines
        self.out = out

    def show(self, text: str) -> None:
        self.out.line(
            f"  {self.name}| {text}".rstrip(" ") if not text else f"  {self.name}| {text}"
        )
        self.out.flush()

    async def until(self, predicate: str) -> str:
        """Show output lines up to one starting with ``predicate``; return that line."""
        with trio.fail_after(STEP_TIMEOUT):
            while True:
                line = await self.lines.receive_line()
                self.show(line)
                if line.startswith(predicate):
                    return line

    async def lines_(self, count: int) -> None:
        with trio.fail_after(STEP_TIMEOUT):
            for _ in range(count):
                self.show(await self.lines.receive_line())

    async def type(self, line: str) -> None:
        self.out.line(f"  {self.name}> {line}")
        self.out.flush()
        await self.lines.send_line(line)


async def _client(name: str, port: int, args: Sequence[str], out: Output) -> _Client:
    """A ``uqchessclient`` (its stderr in its stdout, as a terminal shows both)."""
    child = await ChildProcess.spawn(
        [find_program("uqchessclient"), str(port), *args], stderr=subprocess.STDOUT
    )
    return _Client(name, child, out)


async def _server(tour: Tour) -> tuple[ChildProcess, int]:
    """Start the server and read its port (after any line it says first, shown)."""
    if find_engine() is not None:
        command = [find_program("uqchessserver")]
        tour.step(
            "the server",
            "`uqchessserver` listens on a free TCP port and prints it; each client plays",
            "a person at another client or the computer, whose moves and hints come from",
            "Stockfish (half a second a move, so they may differ between runs).",
        )
    else:
        command = [find_program("hub"), "serve", "uqchess"]
        tour.step(
            "the server",
            "Stockfish is not installed, so the demo runs `hub serve uqchess`, which is",
            "`uqchessserver` but falls back to the built-in engine (`hub engine`) for the",
            "computer's moves and hints. It listens on a free TCP port and prints it.",
        )
    tour.out.line("$ uqchessserver" if len(command) == 1 else "$ hub serve uqchess")
    tour.out.flush()
    # in a process group of its own, which `_stop` signals: its engine goes too
    server = await ChildProcess.spawn(command, stderr=subprocess.PIPE)
    try:
        assert isinstance(server.process, trio.Process) and server.process.stderr is not None
        stderr = LineStream(server.process.stderr, None)
        with trio.fail_after(STEP_TIMEOUT):
            while not (line := await stderr.receive_line()).isdigit():
                tour.out.line(line)
        tour.out.line(line)
        tour.out.flush()
        return server, int(line)
    except BaseException:
        await _stop([server])
        raise


async def _stop(children: Sequence[ChildProcess]) -> None:
    """End the clients or the server (each with its process group: the server's engine
    goes too) at once and reap them, even when cancelled or interrupted (a Ctrl-C at a
    terminal reaches only the demo, which ends them)."""
    await stop_all(children, grace=0.0, escalation=STOP_ESCALATION)


async def _demo(out: Output) -> int:
    tour = Tour(out, "uqchess", STEPS)
    try:
        server, port = await _server(tour)
    except (trio.TooSlowError, LineError, SpawnFailed) as exc:
        tour.say(f"The server did not start: {exc!r}.")
        return 1
    clients: list[_Client] = []
    try:
        tour.step(
            "a client against the computer",
            f"`uqchessclient {port}` connects and starts a game against the computer, with",
            "white. It turns what the user types into protocol messages and prints the",
            "server's answers: `ok` for a legal move, then the computer's `moved` reply.",
            "`hint` asks the engine for the best move, `print` draws the board and `resign`",
            "gives the game up.",
        )
        out.line(f"$ uqchessclient {port}")
        out.flush()
        you = await _client("you", port, [], out)
        clients.append(you)
        await you.until("started")
        await you.type("move e2e4")
        await you.until("moved")
        await you.type("move d2d4")
        await you.until("moved")
        await you.type("hint")
        await you.until("moves")
        await you.type("print")
        await you.lines_(20)
        await you.type("resign")
        await you.until("gameover")
        await you.type("quit")
        tour.step(
            "two people over the network: fool's mate",
            "Two clients that both ask for a human opponent are paired by the server: one",
            "asked for white, the other takes black. Each move goes to the server, which",
            "checks it and tells the mover `ok` and the other client `moved`.",
        )
        out.line(f"$ uqchessclient {port} --versus human --colour white")
        out.line(f"$ uqchessclient {port} --versus human")
        out.flush()
        white = await _client("white", port, ["--versus", "human", "--colour", "white"], out)
        clients.append(white)
        await white.until("Welcome")
        black = await _client("black", port, ["--versus", "human"], out)
        clients.append(black)
        await black.until("started")
        await white.until("started")
        for index, move in enumerate(("f2f3", "e7e5", "g2g4", "d8h4")):
            mover, other = (white, black) if index % 2 == 0 else (black, white)
            await mover.type(f"move {move}")
            await mover.until("ok")
            await other.until("moved")
        tour.step(
            "checkmate",
            "The server decides checkmate itself (with python-chess) and tells both clients",
            "how the game ended and who won.",
        )
        await white.until("gameover")
        await black.until("gameover")
        tour.say("Both clients saw `gameover checkmate black`.")
        return 0
    except (trio.TooSlowError, LineError, ValueError, SpawnFailed) as exc:
        tour.say(f"The demo failed: {exc!r}.")
        return 1
    finally:  # one stop for all: a Ctrl-C that comes meanwhile cannot skip the server's
        await _stop([*(client.child for client in clients), server])


def main(args: Sequence[str] = ()) -> int:
    """The demo. A Ctrl-C is raised only at a checkpoint of its one task, never between
    starting a program and the ``try`` that stops it."""
    return trio.run(_demo, Output(1), restrict_keyboard_interrupt_to_checkpoints=True)
