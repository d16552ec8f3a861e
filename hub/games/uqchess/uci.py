"""``hub engine``: the level-4 search as a UCI engine on standard input and output.

Commands: ``uci``, ``isready``, ``ucinewgame``, ``position startpos|fen F [moves ...]``,
``go`` (``movetime``, ``depth``, ``nodes``, ``wtime``/``btime``/``winc``/``binc``/
``movestogo``, ``infinite``, and ``perft N``), ``stop``, ``d``, ``setoption`` and ``quit``.
What the UQChess server parses is byte for byte Stockfish 15.1's: ``d`` (`board_art`),
``go perft N`` (`perft`, in Stockfish's move order), ``bestmove X [ponder Y]`` and
``bestmove (none)``, and ``Unknown command: '...'. Type help for more information.``
``position`` reads its moves as Stockfish does: up to the first one that is not legal, a
promotion letter in either case.

Layers: `parse_go`, `parse_position` and the ``*_line`` formatters are pure; `UciEngine`
is the trio adapter. It reads commands in one task while a search runs in a worker thread
(`Searcher` is CPU-bound), so ``isready`` and ``stop`` are answered during a search. Output
goes through one lock-protected writer, whole lines at a time, and a closed stdout is
ignored (the engine then ends at the end of its input). End of input acts as ``quit``: a
running search is stopped and its ``bestmove`` printed first.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence

import attrs
import chess
import trio

from hub import __version__
from hub.core.lines import LineError, LineStream, LineTooLong, PeerClosed
from hub.core.output import write_all
from hub.core.running import run_program
from hub.core.stdin import ThreadedFdReceiveStream
from hub.core.text import parse_whole_number
from hub.games.uqchess.ai import Info, Limits, Searcher, SearchResult
from hub.games.uqchess.board_art import d_lines
from hub.games.uqchess.perft import PerftStopped, perft_lines

NAME = f"hub {__version__}"
AUTHOR = "the hub developers"
BANNER = f"{NAME} (level-4 search, UCI) by {AUTHOR}"
USAGE = "usage: hub engine   (a UCI chess engine on standard input and output)"
MAX_LINE = 1 << 20
"""A longer command is skipped (a ``position`` of a 100,000-ply game still fits)."""
MOVE_OVERHEAD = 0.03
"""Seconds kept back from each time-controlled move for the GUI and the pipes."""
MIN_MOVETIME = 0.005


# -- pure: parsing and formatting ------------------------------------------------------------


@attrs.frozen
class Go:
    """A parsed ``go`` command; times are in milliseconds, as UCI sends them."""

    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    mate: int | None = None
    infinite: bool = False
    perft: int | None = None

    def limits(self, turn: chess.Color) -> Limits:
        """The search bounds this command means for the side ``turn`` (no bound: infinite)."""
        seconds: float | None = None
        if self.movetime is not None:
            seconds = max(self.movetime / 1000 - MOVE_OVERHEAD / 3, MIN_MOVETIME)
        else:
            left = self.wtime if turn == chess.WHITE else self.btime
            increment = (self.winc if turn == chess.WHITE else self.binc) / 1000
            if left is not None and not self.infinite:
                left_s = left / 1000
                share = left_s / max(self.movestogo or 30, 1) + increment * 0.75
                seconds = max(min(share, left_s * 0.5 - MOVE_OVERHEAD), MIN_MOVETIME)
        depth = self.depth
        if self.mate is not None:
            depth = min(depth or 2 * self.mate, 2 * self.mate)
        return Limits(movetime=seconds, depth=depth, nodes=self.nodes)


_NUMBER_WORDS = (
    "movetime",
    "depth",
    "nodes",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "perft",
)


def parse_go(words: Sequence[str]) -> Go:
    """The ``go`` arguments (after ``go``); unknown words and bad numbers are skipped."""
    values: dict[str, int] = {}
    infinite = False
    index = 0
    while index < len(words):
        word = words[index]
        if word in _NUMBER_WORDS and index + 1 < len(words):
            number = _number(words[index + 1])
            if number is not None:
                values[word] = number
            index += 2
            continue
        if word in ("infinite", "ponder"):
            infinite = True
        index += 1
    return Go(
        movetime=values.get("movetime"),
        depth=values.get("depth"),
        nodes=values.get("nodes"),
        wtime=values.get("wtime"),
        btime=values.get("btime"),
        winc=values.get("winc", 0),
        binc=values.get("binc", 0),
        movestogo=values.get("movestogo"),
        mate=values.get("mate"),
        infinite=infinite,
        perft=values.get("perft"),
    )


def _number(text: str) -> int | None:
    """A whole number; a negative one (a clock that ran out) reads as 0."""
    if text.startswith("-") and parse_whole_number(text[1:]) is not None:
        return 0
    return parse_whole_number(text)


_UNPLAYABLE = (
    chess.STATUS_NO_WHITE_KING
    | chess.STATUS_NO_BLACK_KING
    | chess.STATUS_TOO_MANY_KINGS
    | chess.STATUS_OPPOSITE_CHECK
    | chess.STATUS_PAWNS_ON_BACKRANK
    | chess.STATUS_TOO_MANY_CHECKERS
)


class PositionError(ValueError):
    """A ``position`` command whose FEN cannot be played (the position is left unchanged)."""


def parse_position(words: Sequence[str]) -> chess.Board | None:
    """The board a ``position`` command sets up (arguments after ``position``).

    None when the command is not ``startpos`` or ``fen`` (Stockfish ignores it then); raises
    `PositionError` for a FEN that python-chess rejects or that has no sensible game (no
    king, pawns on the back rank, the side not to move in check ...). As in Stockfish, the
    word after ``startpos`` is skipped (it should be ``moves``) and moves are applied up to
    the first that is not legal.
    """
    if not words:
        return None
    rest: list[str]
    if words[0] == "startpos":
        board = chess.Board()
        rest = list(words[2:])
    elif words[0] == "fen":
        fields: list[str] = []
        index = 1
        while index < len(words) and words[index] != "moves":
            fields.append(words[index])
            index += 1
        rest = list(words[index + 1 :])
        try:
            board = chess.Board(" ".join(fields))
        except ValueError as exc:
            raise PositionError(f"invalid FEN: {exc}") from None
        if board.status() & _UNPLAYABLE:
            raise PositionError("invalid FEN: not a playable position")
    else:
        return None
    for text in rest:
        move = legal_move(board, text)
        if move is None:
            break
        board.push(move)
    return board


def legal_move(board: chess.Board, text: str) -> chess.Move | None:
    """The legal move ``text`` names in long algebraic notation (Stockfish's reading)."""
    if len(text) == 5:
        text = text[:4] + text[4].lower()
    for move in board.generate_legal_moves():
        if move.uci() == text:
            return move
    return None


def score_text(info: Info) -> str:
    mate = info.mate_in
    return f"mate {mate}" if mate is not None else f"cp {info.score}"


def info_line(info: Info) -> str:
    millis = int(info.seconds * 1000)
    nps = int(info.nodes / info.seconds) if info.seconds > 0 else 0
    pv = " ".join(move.uci() for move in info.pv)
    return (
        f"info depth {info.depth} seldepth {info.seldepth} multipv 1 score {score_text(info)} "
        f"nodes {info.nodes} nps {nps} time {millis} pv {pv}"
    )


def bestmove_lines(board: chess.Board, result: SearchResult) -> list[str]:
    """What ends a search: ``bestmove X [ponder Y]``, or Stockfish's lines for no move."""
    if result.move is None:
        score = "mate 0" if board.is_check() else "cp 0"
        return [f"info depth 0 score {score}", "bestmove (none)"]
    if len(result.pv) >= 2 and result.pv[0] == result.move:
        return [f"bestmove {result.move.uci()} ponder {result.pv[1].uci()}"]
    return [f"bestmove {result.move.uci()}"]


def unknown_command_line(line: str) -> str:
    return f"Unknown command: '{line}'. Type help for more information."


def uci_lines() -> list[str]:
    return [f"id name {NAME}", f"id author {AUTHOR}", "", "uciok"]


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


class UciEngine:
    """One engine conversation: the current position, the searcher, at most one search.

    A search (or a perft deeper than 1) runs in a worker thread owned by a task of the
    conversation's nursery; `_stop_event` is that job's stop flag and `_done` is set when it
    has printed its result.
    """

    def __init__(self, out: LineWriter) -> None:
        self.out = out
        self.board = chess.Board()
        self.searcher = Searcher()
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
        while True:
            try:
                line = await stream.receive_line()
            except PeerClosed as closed:
                if closed.partial:
                    await self.command(closed.partial.decode("latin-1"), nursery)
                return
            except LineTooLong as exc:
                if not exc.dropped:
                    try:
                        await stream.skip_line()
                    except PeerClosed:
                        return
                self.out.line(f"info string command longer than {MAX_LINE} bytes skipped")
                continue
            if not await self.command(line, nursery):
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
            limits = go.limits(board.turn)
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


async def _main() -> None:
    out = LineWriter(1)
    out.line(BANNER)
    engine = UciEngine(out)
    stream = LineStream(ThreadedFdReceiveStream(0), None, max_line=MAX_LINE)
    await engine.run(stream)


def main(args: Sequence[str] = ()) -> int:
    """``hub engine``: exit 0 at ``quit`` or end of input, 2 for arguments."""
    if args:
        stream = sys.stdout if list(args) in (["-h"], ["--help"]) else sys.stderr
        write_all(stream.fileno(), (USAGE + "\n").encode())
        return 0 if stream is sys.stdout else 2
    return run_program(_main) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
