"""``hub engine``: our chess search as a UCI engine on standard input and output.

The search is `NativeSearcher` (hub/chess/native.py: the C search of ``hub/chess/_engine.c``,
every move it returns checked by python-chess) when the optional extension is built, else
`EngineSearcher` (level 4's tree with more pruning and a fuller evaluation; the console's
level 4 itself is unchanged); `make_searcher` picks. Either is budgeted on a game clock by
`engine_limits` (`allot_time`: a share of the time left and of the increment, a hard stop
behind it).

Commands: ``uci``, ``isready``, ``ucinewgame``, ``position startpos|fen F [moves ...]``,
``go`` (``movetime``, ``depth``, ``nodes``, ``wtime``/``btime``/``winc``/``binc``/
``movestogo``, ``infinite``, and ``perft N``), ``stop``, ``d``, ``setoption`` and ``quit``.
What the UQChess server parses is byte for byte Stockfish 15.1's: ``d`` (`board_art`),
``go perft N`` (`perft`, in Stockfish's move order), ``bestmove X [ponder Y]`` and
``bestmove (none)``, and ``Unknown command: '...'. Type help for more information.``
``position`` reads its moves as Stockfish does: up to the first one that is not legal, a
promotion letter in either case.

Layers: `parse_go`, `parse_position` and the ``*_line`` formatters are pure (in
`hub.chess.uci`); `UciServer` is the trio adapter. It reads commands in one task while a
search runs in a worker thread (`Searcher` is CPU-bound), so ``isready`` and ``stop`` are
answered during a search. Output goes through one lock-protected writer, whole lines at a
time, and a closed stdout is ignored (the engine then ends at the end of its input). End of
input acts as ``quit``: a running search is stopped and its ``bestmove`` printed first.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

import attrs
import chess
import trio

from hub.chess import native
from hub.chess.board_art import d_lines
from hub.chess.native import make_searcher
from hub.chess.perft import PerftStopped, perft_lines
from hub.chess.search import Limits, SearchResult, allot_time
from hub.chess.uci import (
    AUTHOR,
    NAME,
    Go,
    PositionError,
    bestmove_lines,
    info_line,
    parse_go,
    parse_position,
    uci_lines,
    unknown_command_line,
)
from hub.core.commands.running import run_program
from hub.core.commands.usage import HelpRequested, Parser, UsageError, show_help
from hub.core.io.lines import LineError, LineStream, LineTooLong, iter_lines
from hub.core.io.output import write_all
from hub.core.io.stdin import ThreadedFdReceiveStream

PROG = "hub engine"
DESCRIPTION = (
    "Our chess search (a compiled alpha-beta search where it is built, else level 4's, "
    "strengthened) as a UCI engine on standard input and output, for chess GUIs, "
    "cutechess-cli, fastchess or hub match (player hub-engine). Commands: uci, isready, "
    "ucinewgame, position startpos|fen F [moves ...], go (movetime, depth, nodes, wtime, btime, "
    "winc, binc, movestogo, infinite, perft N), stop, d, setoption and quit; the end of input "
    "is quit. It takes no arguments."
)
MAX_LINE = 1 << 20
"""A longer command is skipped (a ``position`` of a 100,000-ply game still fits)."""


def banner() -> str:
    """The first line ``hub engine`` prints: which search it runs."""
    search = "C search" if native.NATIVE else "level-4 search"
    return f"{NAME} ({search}, UCI) by {AUTHOR}"


# -- the adapter ----------------------------------------------------------------------


class LineWriter:
    """Whole lines to a file descriptor from any thread; a broken pipe silences it."""

    def __init__(self, fd: int = 1) -> None:
        self.fd = fd
        self._lock = threading.Lock()
        self.broken = False

    def lines(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        data = ("\n".join(lines) + "\n").encode("latin-1", "replace")
        with self._lock:
            if not self.broken:
                self.broken = not write_all(self.fd, data)

    def line(self, text: str) -> None:
        self.lines([text])


class UciServer:
    """One engine conversation: the current position, the searcher, at most one search.

    A search (or a perft deeper than 1) runs in a worker thread owned by a task of the
    conversation's nursery; `_stop_event` is that job's stop flag and `_done` is set when it
    has printed its result.
    """

    def __init__(self, out: LineWriter) -> None:
        self.out = out
        self.board = chess.Board()
        self.searcher = make_searcher()
        self._done = trio.Event()
        self._done.set()
        self._stop_event = threading.Event()
        self._perft_running = False

    @property
    def busy(self) -> bool:
        return not self._done.is_set()

    async def run(self, stream: LineStream) -> None:
        """Read and carry out commands until ``quit`` or the end of the input."""
        async with trio.open_nursery() as nursery:
            try:
                await self._loop(stream, nursery)
            except LineError:
                pass  # stdin failed: end as at the end of the input
            finally:
                if not self._perft_running:  # a deep perft runs to its end, as in Stockfish
                    self._stop_event.set()

    async def _loop(self, stream: LineStream, nursery: trio.Nursery) -> None:
        async for line in iter_lines(stream, final_partial=True):
            if isinstance(line, LineTooLong):
                self.out.line(f"info string command longer than {MAX_LINE} bytes skipped")
            elif not await self.command(line, nursery):
                return

    async def command(self, line: str, nursery: trio.Nursery) -> bool:
        """Carry out one command line; False for ``quit``."""
        words = line.split()
        if not words:
            return True
        verb, args = words[0], words[1:]
        if verb == "quit":
            return False
        if verb in ("stop", "ponderhit"):
            self._stop_event.set()
        elif verb == "isready":
            self.out.line("readyok")
        elif verb == "uci":
            self.out.lines(uci_lines())
        elif verb == "ucinewgame":
            await self._finish()
            self.searcher.clear()
        elif verb == "position":
            try:
                board = parse_position(args)
            except PositionError as exc:
                self.out.line(f"info string {exc}")
            else:
                if board is not None:
                    self.board = board
        elif verb == "d":
            self.out.lines(d_lines(self.board))
        elif verb == "go":
            await self._finish()
            self._go(parse_go(args), nursery)
        elif verb == "setoption":
            name = " ".join(args[1 : args.index("value")] if "value" in args else args[1:])
            self.out.line(f"No such option: {name}")
        else:
            self.out.line(unknown_command_line(line))
        return True

    def _go(self, go: Go, nursery: trio.Nursery) -> None:
        board = self.board.copy()
        if go.perft is not None and go.perft <= 1:
            self.out.lines(perft_lines(board, 1))
            return
        self._done = trio.Event()
        self._stop_event = threading.Event()
        self._perft_running = go.perft is not None
        if go.perft is not None:
            nursery.start_soon(self._perft, board, go.perft, self._stop_event, self._done)
        else:
            limits = engine_limits(go, board.turn)
            nursery.start_soon(self._search, board, limits, self._stop_event, self._done)

    async def _finish(self) -> None:
        """Stop a running job and wait for it (a GUI should have sent ``stop``; if it did not,
        we do not hang on an infinite search)."""
        if self.busy:
            self._stop_event.set()
            await self._done.wait()

    async def _perft(
        self, board: chess.Board, depth: int, stop: threading.Event, done: trio.Event
    ) -> None:
        """A deep perft runs like a search: in a thread; ``stop`` abandons it (no output)."""
        try:
            lines = await trio.to_thread.run_sync(
                perft_lines, board, depth, stop.is_set, abandon_on_cancel=True
            )
            self.out.lines(lines)
        except PerftStopped:
            pass
        finally:
            self._perft_running = False
            done.set()

    async def _search(
        self, board: chess.Board, limits: Limits, stop: threading.Event, done: trio.Event
    ) -> None:
        def search() -> SearchResult:
            report = self.out.line
            return self.searcher.search(
                board, limits, lambda info: report(info_line(info)), stop.is_set
            )

        try:
            result = await trio.to_thread.run_sync(search, abandon_on_cancel=True)
            self.out.lines(bestmove_lines(board, result))
        finally:
            done.set()


def engine_limits(go: Go, turn: chess.Color) -> Limits:
    """The search's bounds for ``go``: on a game clock (no ``movetime``), the time aimed at
    and the hard stop of `allot_time`; otherwise what the command says (`Go.limits`)."""
    limits = go.limits(turn)
    left = go.wtime if turn == chess.WHITE else go.btime
    if go.movetime is None and left is not None and not go.infinite:
        increment = go.winc if turn == chess.WHITE else go.binc
        optimum, hard = allot_time(left / 1000, increment / 1000, go.movestogo)
        limits = attrs.evolve(limits, movetime=optimum, maxtime=hard)
    return limits


async def _main() -> None:
    out = LineWriter(1)
    out.line(banner())
    engine = UciServer(out)
    stream = LineStream(ThreadedFdReceiveStream(0), None, max_line=MAX_LINE)
    await engine.run(stream)


def main(args: Sequence[str] = ()) -> int:
    """``hub engine``: exit 0 at ``quit`` or end of input, 2 for arguments."""
    try:
        build_parser().parse_args(list(args))
    except HelpRequested as exc:
        return show_help(exc)
    except UsageError as exc:
        write_all(2, f"{exc}\n".encode())
        return 2
    return run_program(_main) or 0


def build_parser() -> Parser:
    """``hub engine``'s command line: only ``--help``."""
    return Parser(PROG, description=DESCRIPTION)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
