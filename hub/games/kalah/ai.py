"""The Kalah AI: iterative deepening negamax alpha-beta over whole turns.

A node is a board seen from the player to move (``relative``: my holes, my store, your
holes, your store) as a tuple, which is also its transposition-table key. Its children are
the positions after each distinct whole turn, seen from the opponent: the turn generator
follows every chain of sowings that end in the store (depth first, mid-turn positions
deduplicated) and merges turns that lead to the same position, so the branching factor is
the number of distinct outcomes, not of hole sequences. Turns that end the game are not
children: only the best final margin among them is kept.

Search:

* negamax with alpha-beta and principal-variation (null-window) search;
* a transposition table of (depth, bound, value, best child); a subtree whose every leaf
  is the end of the game is marked solved and stays valid at any depth, so iterative
  deepening stops as soon as the root is solved (endgames are played perfectly);
* move ordering: the table's best child first, then by the store difference after the turn;
* exact bounds from the stores: the final margin lies in ``[2*mine - total, total -
  2*theirs]``, which cuts lost or won positions at once;
* evaluation at the horizon: the store difference.

The pie rule is searched, not guessed: the second player's `PIE` is a root move whose
child is the very board it faces (after the swap the opponent moves from the position the
swapper had), and the first player's first turn is valued as ``-|v|`` of the position it
leaves, because the opponent will take the better of playing on (``v``) or swapping
(``-v``).

Time: `KalahSearch.run` is given a budget in seconds and a clock (injectable, so tests need no
real time). It starts a new iteration only while less than `SOFT_SHARE` of the budget is
spent, checks the clock every 256 nodes, and on expiry returns the best move of the last
complete iteration (or of the current one once its first move, the previous best, has
been searched). It always returns a legal move. This module does no I/O and no threads.

Speed: `negamax` (with `expand`) is repeated step for step in C (``_search.c``, an optional
extension that ``pip install`` builds): when it is importable (`NATIVE`) a `KalahSearch` uses it,
with the same moves, values and node counts, about ten times faster and without the GIL
(docs/decisions.md, "Kalah: a C search"); `KalahSearch(native=False)` is the Python search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from operator import add

import attrs

from hub.games.kalah.rules import AGAIN, OVER, PIE, KalahState, Move, sow

try:
    from hub.games.kalah import _search as _native
except ImportError:  # not built (no compiler at install): the pure-Python search, same moves
    _native = None  # type: ignore[assignment]

NATIVE = _native is not None
"""The C search (``hub/games/kalah/_search.c``, built by ``pip install``) is available."""
POLL_EVERY = 64
"""Clock checks between two calls of the stop flags from the C search (it reads the clock
itself at every check, without the GIL)."""

INF = 1 << 30
SOLVED = 1 << 20
"""The depth recorded for a subtree searched to the end of the game in every line."""
EXACT, LOWER, UPPER = 0, 1, 2
SOFT_SHARE = 0.45
"""A new iteration starts only while less than this share of the budget is spent."""
CHECK_EVERY = 256
"""Nodes between two readings of the clock."""
DEFAULT_TABLE_SIZE = 1 << 18

MIN_LEVEL, MAX_LEVEL = 1, 9
DEFAULT_LEVEL = MAX_LEVEL
LEVEL_DEPTH = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 10, 8: 14, 9: 1000}
"""The deepest iteration of each level (in whole turns)."""
LEVEL_NODES: dict[int, int | None] = {6: 25_000, 7: 100_000, 8: 400_000}
"""The most nodes a turn's search of each level visits (None or absent: as many as its
clock allows). The top levels differ by the work they do, four times as much a level, not
by depth caps, which a short clock truncates alike (at 100 ms a move levels 7, 8 and 9 all
reached about 10 turns and were even); at a move's nodes per second the C search's is
about 5 M on a quiet core (docs/kalah.md, "The ladder")."""
UNLIMITED_BUDGET = 1.0
"""Seconds an AI thinks per turn when the game has no time limit."""
TIME_SHARE = 0.4
"""The share of a turn's time limit the AI spends searching (the rest is margin)."""
TIME_MARGIN = 0.010
"""Seconds kept back from every limited turn for sending the move."""
MOVES_AHEAD = 15
"""`game_clock_budget`: the turns a game clock is shared over (a 6x4 game has 15-25 a side)."""
INCREMENT_SHARE = 0.8
"""`game_clock_budget`: the share of the increment a turn may spend besides."""
HARD_MARGIN_SHARE, HARD_MARGIN_MIN, HARD_MARGIN_MAX = 0.2, 0.003, 0.050
"""`hard_margin`: the seat's hard stop, this share of the time left before the deadline."""


class _Timeout(Exception):
    pass


def _never() -> bool:
    return False


@attrs.frozen
class KalahSearchResult:
    move: Move
    value: int
    """The expected final margin (mover minus opponent) at the searched depth."""
    depth: int
    """The deepest complete iteration (0: none completed, a fallback move)."""
    nodes: int
    solved: bool
    """``value`` is the game-theoretic value (every line was searched to the end)."""
    elapsed: float


def budget_seconds(limit_ms: int) -> float:
    """How long to search for a turn with ``limit_ms`` per turn (0 = no limit)."""
    if limit_ms <= 0:
        return UNLIMITED_BUDGET
    return max(0.0, limit_ms / 1000 * TIME_SHARE - TIME_MARGIN)


def game_clock_budget(left: float, increment: float = 0.0) -> float:
    """How long to search for a turn on a game clock with ``left`` seconds on it and
    ``increment`` added after each turn: a `MOVES_AHEAD`-th of it plus most of the increment,
    never more than `TIME_SHARE` of it, less `TIME_MARGIN`."""
    share = min(left * TIME_SHARE, left / MOVES_AHEAD + increment * INCREMENT_SHARE)
    return max(0.0, share - TIME_MARGIN)


def check_level(level: int) -> int:
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"level must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")
    return level


@attrs.define(eq=False)
class _RootMove:
    move: Move
    child: tuple[int, ...] | None
    """The position the opponent faces, or None if the turn ends the game."""
    final: int
    """The final margin if the turn ends the game."""
    value: int = -INF


class KalahSearch:
    """One search context for one board size (reusable across turns of a game)."""

    def __init__(
        self,
        holes: int,
        total: int,
        *,
        clock: Callable[[], float] = time.perf_counter,
        table_size: int = DEFAULT_TABLE_SIZE,
        use_table: bool = True,
        native: bool | None = None,
    ) -> None:
        """``native``: the C search (None: when it is built; True: it must be)."""
        if native and _native is None:
            raise RuntimeError("the C search of hub.games.kalah is not built")
        self.h = holes
        self.n = 2 * holes + 1
        self.total = total
        self.clock = clock
        self.table_size = table_size
        self.use_table = use_table
        self.table: dict[tuple[int, ...], tuple[int, int, int, tuple[int, ...] | None]] = {}
        self.nodes = 0
        self.next_check = 0
        self.cut = False
        self.deadline = float("inf")
        self.max_nodes = 1 << 62
        self.sowings = self._sowing_table()
        self.stop = False
        """Set from another thread to make a running search return at its next check."""
        self.stopped: Callable[[], bool] = _never
        """Also asked at every check (`run`'s ``stop``: a worker thread's stop flag)."""
        self.best: tuple[KalahState, Move] | None = None
        """The running search's best move so far and its state (read by another thread: the
        seat's hard stop answers with it when the search has not answered in time)."""
        self.native = (native is None and _native is not None) or bool(native)
        self._engine = (
            _native.Engine(holes, total, table_size, use_table)
            if self.native and _native is not None and 2 * holes + 2 <= 42 and total <= 30000
            else None
        )
        # (No `self.negamax = self._native_negamax`: a bound method kept on its instance is
        # a reference cycle, and the engine's table (tens of MB) then waited for the cyclic
        # collector: `hub serve kalah`'s memory grew with every move. `_root` chooses.)

    # -- generation ------------------------------------------------------------------------

    def _sowing_table(self) -> list[list[tuple[tuple[int, ...], int]]]:
        """For each hole and seed count: the change to every pit and the last pit sown."""
        h, n = self.h, self.n
        table: list[list[tuple[tuple[int, ...], int]]] = []
        for hole in range(h):
            row: list[tuple[tuple[int, ...], int]] = [((0,) * (n + 1), hole)]
            for seeds in range(1, self.total + 1):
                delta = [0] * (n + 1)
                delta[hole] -= seeds
                pit = hole
                for _ in range(seeds):
                    pit = (pit + 1) % n
                    delta[pit] += 1
                row.append((tuple(delta), pit))
            table.append(row)
        return table

    def expand(self, board: tuple[int, ...]) -> tuple[int, dict[tuple[int, ...], int]]:
        """The best final margin of the turns that end the game (-INF if none) and the
        distinct positions (seen by the opponent) after the other turns, each with the
        mover's store difference after it (its value at the horizon)."""
        h = self.h
        n = self.n
        h1 = h + 1
        h2 = 2 * h
        total = self.total
        sowings = self.sowings
        best_end = -INF
        kids: dict[tuple[int, ...], int] = {}
        stack = [board]
        seen: set[tuple[int, ...]] = set()
        while stack:
            cur = stack.pop()
            for i in range(h):
                seeds = cur[i]
                if not seeds:
                    continue
                delta, last = sowings[i][seeds]
                nb = list(map(add, cur, delta))
                if last < h and nb[last] == 1:
                    opposite = h2 - last
                    if nb[opposite]:
                        nb[h] += nb[opposite] + 1
                        nb[last] = nb[opposite] = 0
                        if not any(nb[h1:n]):  # sowing alone never empties their side
                            final = 2 * (total - nb[n]) - total
                            if final > best_end:  # noqa: PLR1730 (faster than max)
                                best_end = final
                            continue
                mine = sum(nb[:h])
                if not mine:
                    final = 2 * nb[h] - total
                    if final > best_end:  # noqa: PLR1730
                        best_end = final
                elif last == h:
                    key = tuple(nb)
                    if key not in seen:
                        seen.add(key)
                        stack.append(key)
                else:
                    kids[tuple(nb[h1:] + nb[:h1])] = nb[h] - nb[n]
        return best_end, kids

    def root_moves(self, state: KalahState) -> list[_RootMove]:
        """The distinct whole turns from ``state`` with the first hole sequence for each."""
        h = self.h
        n = self.n
        moves: dict[tuple[int, ...], _RootMove] = {}
        endings: dict[tuple[int, ...], _RootMove] = {}
        stack: list[tuple[tuple[int, ...], tuple[int, ...]]] = [(state.relative(), ())]
        seen: set[tuple[int, ...]] = set()
        while stack:
            cur, prefix = stack.pop()
            extensions = []
            for i in range(h):
                if not cur[i]:
                    continue
                nb = list(cur)
                result = sow(nb, i, h)
                sequence = (*prefix, i + 1)
                if result == AGAIN:
                    key = tuple(nb)
                    if key not in seen:
                        seen.add(key)
                        extensions.append((key, sequence))
                elif result == OVER:
                    endings.setdefault(tuple(nb), _RootMove(Move(sequence), None, nb[h] - nb[n]))
                else:
                    child = tuple(nb[h + 1 :] + nb[: h + 1])
                    moves.setdefault(child, _RootMove(Move(sequence), child, 0))
            stack.extend(reversed(extensions))
        found = [*moves.values(), *endings.values()]
        if state.pie_available:
            found.append(_RootMove(PIE, state.relative(), 0))
        # Order: immediate store difference, then the order found (deterministic).
        found.sort(key=lambda m: -self._gain(m))
        return found

    def _gain(self, move: _RootMove) -> int:
        if move.child is None:
            return move.final
        return move.child[self.n] - move.child[self.h]

    # -- search ------------------------------------------------------------------------------

    def _check(self) -> None:
        if (
            self.stop
            or self.stopped()
            or self.nodes >= self.max_nodes
            or self.clock() >= self.deadline
        ):
            raise _Timeout

    def _polled(self) -> bool:
        return self.stop or self.stopped()

    def _clock_polled(self) -> bool:
        return self.stop or self.stopped() or self.clock() >= self.deadline

    def _native_negamax(self, board: tuple[int, ...], depth: int, alpha: int, beta: int) -> int:
        """`negamax` in C (the same steps): it reads the monotonic clock itself when ours is
        `time.perf_counter`, and asks an injected clock (tests) with the flags at every check."""
        engine = self._engine
        assert engine is not None
        if self.clock is time.perf_counter:
            seconds, poll, every = self.deadline - self.clock(), self._polled, POLL_EVERY
        else:
            seconds, poll, every = float("inf"), self._clock_polled, 1
        value, self.nodes, self.next_check, self.cut, timed_out = engine.negamax(
            board,
            depth,
            alpha,
            beta,
            self.nodes,
            self.next_check,
            self.cut,
            self.max_nodes,
            seconds,
            poll,
            every,
        )
        if timed_out:
            raise _Timeout
        return value

    def negamax(self, board: tuple[int, ...], depth: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + CHECK_EVERY
            self._check()
        h = self.h
        mine = board[h]
        theirs = board[self.n]
        low = 2 * mine - self.total
        if low >= beta:
            return low
        high = self.total - 2 * theirs
        if high <= alpha:
            return high
        if depth <= 0:
            self.cut = True
            return mine - theirs
        table = self.table
        entry = table.get(board) if self.use_table else None
        first = None
        if entry is not None:
            stored_depth, flag, value, first = entry
            if stored_depth >= depth and (
                flag == EXACT
                or (flag == LOWER and value >= beta)
                or (flag == UPPER and value <= alpha)
            ):
                if stored_depth < SOLVED:
                    self.cut = True
                return value
        best_end, scores = self.expand(board)
        if depth == 1:
            # The frontier: every child's value is its store difference, already known.
            self.nodes += len(scores)
            best = best_end
            best_kid = None
            if scores:
                self.cut = True
                best_kid = max(scores, key=scores.__getitem__)
                best = max(best, scores[best_kid])
            if self.use_table:
                if len(table) >= self.table_size:
                    table.clear()
                table[board] = (1 if scores else SOLVED, EXACT, best, best_kid)
            return best
        kids = sorted(scores, key=scores.__getitem__, reverse=True)
        if first is not None and len(kids) > 1 and first in scores:
            kids.remove(first)
            kids.insert(0, first)
        outer_cut = self.cut
        self.cut = False
        start_alpha = alpha
        best = best_end
        best_kid = None
        if best > alpha:  # noqa: PLR1730
            alpha = best
        if best < beta:
            pv = True
            for kid in kids:
                if pv:
                    value = -self.negamax(kid, depth - 1, -beta, -alpha)
                    pv = False
                else:
                    value = -self.negamax(kid, depth - 1, -alpha - 1, -alpha)
                    if alpha < value < beta:
                        value = -self.negamax(kid, depth - 1, -beta, -value)
                if value > best:
                    best = value
                    best_kid = kid
                    if value > alpha:
                        if value >= beta:
                            break
                        alpha = value
        solved = not self.cut
        self.cut = self.cut or outer_cut
        if self.use_table:
            if len(table) >= self.table_size:
                table.clear()
            if best <= start_alpha:
                flag = UPPER
            elif best >= beta:
                flag = LOWER
            else:
                flag = EXACT
            table[board] = (SOLVED if solved else depth, flag, best, best_kid or first)
        return best

    def _value(self, move: _RootMove, depth: int, alpha: int, pie_next: bool) -> int:
        if move.child is None:
            return move.final
        if pie_next:
            # The opponent may swap: it gets max(v, -v) = |v| of the position we leave, so
            # -|v| beats alpha only if alpha < 0 and alpha < v < -alpha: search that window.
            # (Outside it the result is still an upper bound of the move's value.)
            if alpha >= 0:
                return alpha
            return -abs(self._root(move.child, depth - 1, alpha, -alpha))
        return -self._root(move.child, depth - 1, -INF, -alpha)

    def _root(self, board: tuple[int, ...], depth: int, alpha: int, beta: int) -> int:
        """`negamax` below the root: in C when the engine is there, else in Python."""
        if self._engine is not None:
            return self._native_negamax(board, depth, alpha, beta)
        return self.negamax(board, depth, alpha, beta)

    def run(
        self,
        state: KalahState,
        *,
        budget: float = float("inf"),
        max_depth: int = LEVEL_DEPTH[MAX_LEVEL],
        max_nodes: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> KalahSearchResult:
        """The best whole turn for the player to move in ``state`` (which must not be over);
        ``stop`` returning True ends it early, like the deadline (it is asked with the clock)."""
        if state.over:
            raise ValueError("the game is over")
        started = self.clock()
        self.deadline = started + budget
        self.max_nodes = self.nodes + max_nodes if max_nodes is not None else 1 << 62
        self.stop = False
        self.stopped = stop or _never
        nodes_before = self.nodes
        moves = self.root_moves(state)
        pie_next = state.pie and state.turns == 0 and state.mover == 0
        best = moves[0]
        best_value = moves[0].value = self._gain(moves[0])
        self.best = (state, best.move)
        done_depth = 0
        solved = False
        if len(moves) == 1 and not pie_next:
            max_depth = min(max_depth, 1)  # one choice: no need to look further
        searched: list[_RootMove] = []
        try:
            for depth in range(1, max_depth + 1):
                self.cut = False
                alpha = -INF
                searched = []
                for move in moves:
                    move.value = self._value(move, depth, alpha, pie_next)
                    searched.append(move)
                    alpha = max(alpha, move.value)
                moves.sort(key=lambda m: -m.value)  # stable: ties keep the earlier order
                best, best_value, done_depth = moves[0], moves[0].value, depth
                self.best = (state, best.move)
                searched = []
                if not self.cut:
                    solved = True
                    break
                if self.clock() - started >= budget * SOFT_SHARE:
                    break
        except _Timeout:
            # The moves searched in the unfinished iteration carry deeper values; the first
            # of them is the previous best, so a move that beat it is better informed.
            if searched and done_depth:
                best = max(searched, key=lambda m: m.value)
                best_value = best.value
        return KalahSearchResult(
            move=best.move,
            value=best_value,
            depth=done_depth,
            nodes=self.nodes - nodes_before,
            solved=solved,
            elapsed=self.clock() - started,
        )


def choose(
    state: KalahState,
    *,
    level: int = DEFAULT_LEVEL,
    budget: float = UNLIMITED_BUDGET,
    clock: Callable[[], float] = time.perf_counter,
    search: KalahSearch | None = None,
) -> KalahSearchResult:
    """The AI's turn at ``level`` within ``budget`` seconds (a fresh search unless given)."""
    check_level(level)
    if search is None:
        search = KalahSearch(state.holes, state.total, clock=clock)
    return search.run(state, budget=budget, max_depth=LEVEL_DEPTH[level])


def hard_margin(left: float) -> float:
    """Seconds before a turn's deadline at which a seat answers with the best move found so
    far if its search has not answered (a fifth of the time left, 3 to 50 ms): what the
    thread's own deadline cannot promise on a busy machine, where the thread may not run."""
    return min(HARD_MARGIN_MAX, max(HARD_MARGIN_MIN, left * HARD_MARGIN_SHARE))


def greedy(state: KalahState) -> Move:
    """The baseline: the turn with the best immediate store difference (first on ties)."""
    search = KalahSearch(state.holes, state.total, table_size=1)
    moves = search.root_moves(state)
    return max(moves, key=search._gain).move
