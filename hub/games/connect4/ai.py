"""Connect Four's built-in player: negamax with alpha-beta over bitboards, to a depth set by the
level, with the standard evaluation (docs/matches.md, "The built-in levels' ladders").

A grid of ``rows`` by ``columns`` is two integers, each column ``rows + 1`` bits high (the top
bit always empty, so a line never runs from one column's top into the next one's bottom):
``mine``, the discs of the side to move, and ``mask``, every disc. Why each part is there:

- **Immediate threats in the search**, not the evaluation: a side that can complete a line
  wins at once; a side facing two cells it must block at once has lost; a side facing one
  must play there; a move under a cell that completes the opponent's line is played last
  (it hands them the win). Every node, at no depth, so a won threat is seen at level 1.
- **The evaluation at the horizon** (from the side to move's seat; a position and the same
  one with the colours swapped score opposite): every ``connect``-cell window that holds
  discs of one side only scores for that side by how many (2 and 3 of 4 matter most); each
  *threat* (an empty cell that would complete a window of one side) scores by the odd/even
  rule: the first player's threats on odd rows (1 = the bottom), the second's on even rows
  are the ones that win a filled-up grid by zugzwang, and score several times the others.
  A threat on a cell just above an opponent's threat is worth little (it cannot be reached),
  and is scored as an ordinary one. The side to move's tempo is worth a little, so an odd
  and an even depth value the same position alike (the odd/even horizon effect of a
  material-only count, which kept the old levels from climbing).
- **Move ordering**: the transposition table's move first (the previous iteration's best),
  then the centre out.
- **A transposition table** keyed by the position (``mine + mask`` is unique), bounded
  (cleared when full), one per call so the answer depends on the position alone.

Levels are plies of look-ahead (`DEPTHS`), so at ``--tc none`` a level plays the same moves
on any machine at any load; on a clock, iterative deepening offers each finished depth to the
seat (whose hard stop plays the last offer) and drops the depth the clock cuts short."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hub.core.play.game import Game
    from hub.core.play.threads import StopFlag

    from . import Board

WIN = 1_000_000  # a win in k plies scores WIN - k; evaluations stay far below it
PROVEN = WIN - 1_000  # scores beyond this are proven wins (or losses, negated)
DEPTHS = {level: level for level in range(1, 9)}
"""Each level's look-ahead in plies (without the forced replies, which cost no depth)."""
TABLE_SIZE = 1 << 18
"""The transposition table's bound (entries): it is cleared when it fills."""
WINDOW = (0, 0, 2, 6)  # a window of 4 holding 1, 2, 3 discs of one side only (index: count - 1)
GOOD_THREAT, OTHER_THREAT, TEMPO = 24, 8, 2


class Grid:
    """One grid size's masks (built once per size, `grid`): columns, windows, rows' parity."""

    def __init__(self, rows: int, columns: int, connect: int) -> None:
        self.rows, self.columns, self.connect = rows, columns, connect
        self.height = h = rows + 1
        self.bottom = sum(1 << (c * h) for c in range(columns))
        self.full = self.bottom * ((1 << rows) - 1)  # every cell of the grid
        middle = (columns - 1) / 2
        self.order = sorted(range(columns), key=lambda c: (abs(c - middle), c))
        self.column_bits = [((1 << rows) - 1) << (c * h) for c in range(columns)]
        self.directions = (1, h, h - 1, h + 1)  # up, across, down-right, up-right
        cells = [(c, r) for c in range(columns) for r in range(rows)]
        windows = []
        for c, r in cells:
            for dc, dr in ((0, 1), (1, 0), (1, -1), (1, 1)):
                end_c, end_r = c + dc * (connect - 1), r + dr * (connect - 1)
                if 0 <= end_c < columns and 0 <= end_r < rows:
                    windows.append(
                        sum(1 << ((c + dc * i) * h + r + dr * i) for i in range(connect))
                    )
        self.windows = tuple(windows)
        weights = list(WINDOW[:connect])
        self.weights = tuple([0, *weights[: connect - 1], 0])  # by count; the full one: a win
        # rows 1, 3, 5 (from the bottom): the first player's; 2, 4, 6: the second's
        self.odd = sum(1 << (c * h + r) for c in range(columns) for r in range(0, rows, 2))
        self.even = self.full & ~self.odd

    def wins(self, discs: int) -> bool:
        """Whether ``discs`` hold a line of ``connect``."""
        for d in self.directions:
            run = discs
            for i in range(1, self.connect):
                run &= discs >> (d * i)
                if not run:
                    break
            else:
                return True
        return False

    def evaluate(self, mine: int, mask: int) -> int:
        """The horizon's score for the side to move (``mine``): windows, threats by parity,
        the tempo; a position and the same with the colours swapped score opposite."""
        theirs, weights, need = mine ^ mask, self.weights, self.connect - 1
        score, my_threats, their_threats = 0, 0, 0
        for w in self.windows:
            a, b = w & mine, w & theirs
            if a:
                if not b:
                    n = a.bit_count()
                    score += weights[n]
                    if n == need:
                        my_threats |= w & ~mine
            elif b:
                n = b.bit_count()
                score -= weights[n]
                if n == need:
                    their_threats |= w & ~theirs
        if my_threats or their_threats:
            # whose move it is: the first player's when the discs are even in number
            first = mask.bit_count() % 2 == 0
            my_rows, their_rows = (self.odd, self.even) if first else (self.even, self.odd)
            score += GOOD_THREAT * (my_threats & my_rows).bit_count()
            score += OTHER_THREAT * (my_threats & their_rows).bit_count()
            score -= GOOD_THREAT * (their_threats & their_rows).bit_count()
            score -= OTHER_THREAT * (their_threats & my_rows).bit_count()
        return score + TEMPO


_GRIDS: dict[tuple[int, int, int], Grid] = {}


def grid(rows: int, columns: int, connect: int) -> Grid:
    key = (rows, columns, connect)
    if key not in _GRIDS:
        _GRIDS[key] = Grid(rows, columns, connect)
    return _GRIDS[key]


def bitboards(g: Grid, state: Board, discs: str) -> tuple[int, int]:
    """The side to move's discs and every disc of ``state``."""
    mine, mask, own = 0, 0, discs[state.mover]
    for c, column in enumerate(state.columns):
        for r, disc in enumerate(column):
            bit = 1 << (c * g.height + r)
            mask |= bit
            if disc == own:
                mine |= bit
    return mine, mask


class Search:
    """One call's search: the grid, the table, the clock (``until``; ``inf``: none)."""

    def __init__(self, g: Grid, until: float, stop: StopFlag) -> None:
        self.g, self.until, self.stop = g, until, stop
        self.table: dict[int, tuple[int, int, int, int]] = {}  # key: depth, kind, score, column
        self.nodes, self.timed = 0, False

    def root(self, mine: int, mask: int, depth: int, moves: list[int]) -> tuple[int, int]:
        """The best score and column at the root, the columns tried in the order given."""
        g, alpha, best = self.g, -2 * WIN, moves[0]
        playable = (mask + g.bottom) & g.full
        for c in moves:
            cell = playable & g.column_bits[c]
            score = -self.negamax(mine ^ mask, mask | cell, depth - 1, -2 * WIN, -alpha, 1)
            if score > alpha:
                alpha, best = score, c
        return alpha, best

    def negamax(self, mine: int, mask: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side to move, ``ply`` plies from the root."""
        g = self.g
        self.nodes += 1
        if self.timed and (self.stop.is_set() or time.perf_counter() >= self.until):
            raise TimeoutError
        theirs = mine ^ mask
        playable = (mask + g.bottom) & g.full
        if not playable:
            return 0  # a full grid: a draw
        moves = []  # (column, cell)
        for c in g.order:
            cell = playable & g.column_bits[c]
            if cell:
                if g.wins(mine | cell):
                    return WIN - ply - 1
                moves.append((c, cell))
        forced = [m for m in moves if g.wins(theirs | m[1])]
        if len(forced) > 1:
            return -(WIN - ply - 2)  # two cells to block at once
        if forced:
            moves = forced  # a forced reply: no depth spent (it is not a choice)
        elif depth <= 0:
            return g.evaluate(mine, mask)
        else:
            depth -= 1
        key = mine + mask
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            e_depth, kind, e_score, first = entry
            if e_depth >= depth:
                if e_score > PROVEN:
                    e_score -= ply
                elif e_score < -PROVEN:
                    e_score += ply
                if kind == 0:
                    return e_score
                if kind > 0 and e_score >= beta:
                    return e_score
                if kind < 0 and e_score <= alpha:
                    return e_score
        if len(moves) > 1:
            # under their threat: played last (it hands them the win); the table's move first
            moves.sort(key=lambda m: (g.wins(theirs | (m[1] << 1) & g.full), m[0] != first))
        start, best, best_column = alpha, -2 * WIN, moves[0][0]
        for c, cell in moves:
            score = -self.negamax(theirs, mask | cell, depth, -beta, -alpha, ply + 1)
            if score > best:
                best, best_column = score, c
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        if len(self.table) >= TABLE_SIZE:
            self.table.clear()
        kind = 1 if best >= beta else -1 if best <= start else 0
        stored = best + ply if best > PROVEN else best - ply if best < -PROVEN else best
        self.table[key] = (depth, kind, stored, best_column)
        return best


def negamax(game: Game[Board, int], state: Board, level: int, secs: float, stop: StopFlag) -> int:
    """The move of level ``level``: one ply deeper at a time up to `DEPTHS`[level] within
    ``secs``; each finished depth's move is offered to the seat (whose hard stop plays it); a
    depth cut short is dropped (depth 1 never is: there is always a move). No clock
    (``inf``): the full depth's move. A proven win ends the deepening."""
    from . import DISCS

    s = game.settings
    g = grid(int(s["rows"]), int(s["columns"]), int(s["connect"]))
    mine, mask = bitboards(g, state, DISCS)
    search = Search(g, time.perf_counter() + secs if secs < math.inf else math.inf, stop)
    playable = (mask + g.bottom) & g.full
    moves = [c for c in g.order if playable & g.column_bits[c]]
    for c in moves:  # a win at once needs no search
        if g.wins(mine | (playable & g.column_bits[c])):
            stop.offer(c + 1)
            return c + 1
    best = moves[0]
    for depth in range(1, DEPTHS[level] + 1):
        search.timed = depth > 1 and secs < math.inf
        try:
            score, best = search.root(mine, mask, depth, [best, *(c for c in moves if c != best)])
        except TimeoutError:
            break
        stop.offer(best + 1)
        if abs(score) > PROVEN:
            break
    return best + 1
