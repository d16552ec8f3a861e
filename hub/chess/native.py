"""`hub engine`'s compiled search (``hub/chess/_engine.c``) behind `EngineSearcher`'s interface.

`NativeSearcher` hands the C engine the game as a FEN and the moves played from it (so that
repetitions against the game's history are seen), turns its answer into the
`SearchResult` and `SearchInfo` values of `hub.chess.search` (the same mate encoding, so
``info_line`` prints ``score mate N``), and checks every move it returns with python-chess:
a missing or illegal move, or an engine error, is searched again by `EngineSearcher` for that
move. The principal variation is cut at its first move python-chess does not accept.

The extension is optional (setup.py, ``optional=True``): where it is not built, `NATIVE` is
False and `make_searcher` gives `EngineSearcher`, the same interface, weaker
(docs/decisions.md, "`hub engine`: a C search").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import chess

from hub.chess.search import MATE, EngineSearcher, Limits, SearchInfo, SearchResult

try:
    from hub.chess import _engine
except ImportError:  # pragma: no cover - the extension is built by pip install
    _engine = None  # type: ignore[assignment]

NATIVE = _engine is not None
"""The C search (``hub/chess/_engine.c``, built by ``pip install``) is available."""

HASH_MB = 32
"""The C engine's transposition table, mapped once per searcher."""


def game_of(board: chess.Board) -> tuple[str, list[str]]:
    """A FEN and the moves (UCI) from it to ``board``: from the last capture or pawn move of
    the move stack (no position before it can come back), else from the game's start."""
    back = min(board.halfmove_clock, len(board.move_stack))
    work = board.copy(stack=back)
    tail = [work.pop() for _ in range(back)]
    return work.fen(), [move.uci() for move in reversed(tail)]


def checked_line(board: chess.Board, moves: Sequence[str]) -> tuple[chess.Move, ...]:
    """The longest prefix of ``moves`` that python-chess plays from ``board``."""
    work = board.copy(stack=False)
    line: list[chess.Move] = []
    for text in moves:
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            break
        if not work.is_legal(move):
            break
        line.append(move)
        work.push(move)
    return tuple(line)


class NativeSearcher:
    """`EngineSearcher`'s interface (`search`, `clear`) over the C engine.

    One instance per engine conversation keeps the C engine's table between moves; `search`
    is synchronous, CPU-bound and releases the GIL (call it from a worker thread).
    """

    def __init__(self, hash_mb: int = HASH_MB) -> None:
        if _engine is None:
            raise RuntimeError("the C search (hub.chess._engine) is not built")
        self.engine = _engine.Engine(hash_mb)
        self.fallback = EngineSearcher()
        self.fallbacks = 0
        """Moves the C engine did not answer legally, searched by `fallback` instead."""

    def clear(self) -> None:
        """Forget everything learnt (a new game)."""
        self.engine.clear()
        self.fallback.clear()

    def search(
        self,
        board: chess.Board,
        limits: Limits,
        on_info: Callable[[SearchInfo], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """The best move within ``limits``; ``board`` is left as it was."""
        start = time.monotonic()
        if not any(board.generate_legal_moves()):
            score = -MATE if board.is_check() else 0
            return SearchResult(None, score, 0, 0, 0.0, ())
        fen, moves = game_of(board)
        hard = limits.maxtime if limits.maxtime is not None else limits.movetime
        # With a hard stop the C engine aims at ``movetime``; without one (``go movetime``)
        # ``movetime`` is the hard stop and no iteration starts that could not end in it.
        optimum = limits.movetime if limits.movetime is not None else 0.0

        def report(
            depth: int, seldepth: int, score: int, nodes: int, seconds: float, pv: list[str]
        ) -> None:
            if on_info is not None:
                line = checked_line(board, pv)
                on_info(SearchInfo(depth, seldepth, score, nodes, seconds, line))

        try:
            text, score, depth, nodes, pv = self.engine.search(
                fen,
                moves,
                optimum,
                hard or 0.0,
                limits.depth or 0,
                limits.nodes or 0,
                should_stop,
                report,
            )
        except (ValueError, RuntimeError):
            # a position the C engine does not read, or it is busy in an abandoned thread:
            # search this move in Python
            text = None
            score = depth = nodes = 0
            pv = []
        move = chess.Move.from_uci(text) if text is not None else None
        if move is None or not board.is_legal(move):
            self.fallbacks += 1
            spent = time.monotonic() - start
            return self.fallback.search(board, _less(limits, spent), on_info, should_stop)
        line = checked_line(board, pv)
        if not line or line[0] != move:
            line = (move,)
        return SearchResult(move, score, depth, nodes, time.monotonic() - start, line)


def _less(limits: Limits, spent: float) -> Limits:
    """``limits`` with ``spent`` seconds taken off its clocks (at least a millisecond left)."""
    movetime = None if limits.movetime is None else max(limits.movetime - spent, 0.001)
    maxtime = None if limits.maxtime is None else max(limits.maxtime - spent, 0.001)
    return Limits(movetime=movetime, depth=limits.depth, nodes=limits.nodes, maxtime=maxtime)


def make_searcher(native: bool | None = None) -> NativeSearcher | EngineSearcher:
    """`hub engine`'s searcher: the C one when it is built (``native`` None) or asked for
    (True: it must be), else `EngineSearcher`."""
    if native is None:
        native = NATIVE
    return NativeSearcher() if native else EngineSearcher()
