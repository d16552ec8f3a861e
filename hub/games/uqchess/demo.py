"""``hub demo uqchess``: the installed ``uqchessserver`` with Stockfish, and ``uqchessclient``s
typed into by a script: a few moves against the computer, then fool's mate between two
clients. Everything shown is what the programs really print (client output is indented,
what the script types is shown after ``>``)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

import trio

from hub.chess.engine_client import find_engine
from hub.core.lines import LineError, LineStream
from hub.core.output import Output
from hub.core.programs import find_program

STEP_TIMEOUT = 15.0


class _Client:
    def __init__(self, name: str, process: trio.Process, out: Output) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.name = name
        self.process = process
        self.lines = LineStream(process.stdout, None)
        self.stdin = process.stdin
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
        await self.stdin.send_all(line.encode() + b"\n")


async def _client(name: str, port: int, args: Sequence[str], out: Output) -> _Client:
    process = await trio.lowlevel.open_process(
        [find_program("uqchessclient"), str(port), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    return _Client(name, process, out)


async def _close(clients: Sequence[_Client]) -> None:
    with trio.CancelScope(shield=True):
        for client in clients:
            if client.process.returncode is None:
                client.process.kill()
            await client.process.wait()
            await client.stdin.aclose()


async def _demo(out: Output) -> int:
    server = await trio.lowlevel.open_process(
        [find_program("uqchessserver")], stderr=subprocess.PIPE
    )
    clients: list[_Client] = []
    try:
        assert server.stderr is not None
        with trio.fail_after(STEP_TIMEOUT):
            port = int(await LineStream(server.stderr, None).receive_line())
        out.line(f"== uqchess: uqchessserver listening on port {port}, with Stockfish")
        out.line(f"-- a client against the computer: $ uqchessclient {port}")
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
        out.line(
            f"-- fool's mate: $ uqchessclient {port} --versus human --colour white"
            f"  and  $ uqchessclient {port} --versus human"
        )
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
        await white.until("gameover")
        await black.until("gameover")
        out.line("== uqchess: both clients saw gameover checkmate black")
        out.flush()
        return 0
    except (trio.TooSlowError, LineError, ValueError) as exc:
        out.line(f"== uqchess: the demo failed: {exc!r}")
        out.flush()
        return 1
    finally:
        await _close(clients)
        with trio.CancelScope(shield=True):
            server.kill()
            await server.wait()


def main(args: Sequence[str] = ()) -> int:
    out = Output(1)
    if find_engine() is None:
        out.line("== uqchess: Stockfish is not installed (apt-get install stockfish): skipped")
        out.flush()
        return 0
    return trio.run(_demo, out)
