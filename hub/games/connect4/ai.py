"""Connect Four's built-in player: negamax with alpha-beta over bitboards, to a depth set by the
level, with the standard evaluation (docs/matches.md, "The built-in levels' ladders").

A grid of ``rows`` by ``columns`` is two integers, each column ``rows + 1`` bits high (the top
bit always empty, so a line never runs from one column's top into the next one's bottom):
``mine``, the discs of the side to move, and ``mask``, every disc. Why each part is there:

- **Immediate threats in the search**, not the evaluation: a side that can complete a line
  wins at once; a side facing two cells it must block at once has lost; a side facing one
  must play there, at no cost in depth (a forced reply is no choice). Every node, so from
  level 2 on a won threat is seen and one to block is blocked.
- **The evaluation at the horizon** (for the side to move): every ``connect``-cell window
  that holds discs of one side only scores for that side by how many (`WINDOW`: 9, 3, 1 for
  a window short of a line by 1, 2, 3 discs); each *threat* (an empty cell that would
  complete a line of one side) scores by the odd/even rule: the first player's threats on
  odd rows (1 = the bottom), the second's on even rows, the ones that win a filling grid by
  zugzwang, score three times the others. The move itself is worth `TEMPO`: the side that
  has just moved has a disc more in the windows, and without it an odd depth overrates the
  root's side and an even one underrates it (the odd/even horizon effect, which kept the old
  levels, valued by how central the discs were, from climbing). The same discs with the
  other side to move score the opposite, but for the tempo (without threats; a threat's
  worth depends on whose row it is on); mirror images score alike.
- **A quiet horizon** (levels 4-6, `QUIET`): at the horizon the side to move may also play
  the moves that make a threat the opponent must block at once, each followed by the forced
  reply (no choice, so no depth) to the next horizon, where the same holds; the evaluation
  stands for the other moves (`AlphaBeta.quiesce`). Each pair fills two cells, so it ends.
  It sees the double threats (and the chains of threats to them) a ply or two past the
  depth: without it three plies (level 4) did not beat two (level 3) from three-ply
  openings (50.9%, the second player to move at the root), with it they do (61%).
- **Move ordering**: the transposition table's move first (at the root: the previous
  iteration's best), then the centre out; a move under a cell that completes the opponent's
  line last.
- **A transposition table** keyed by the position (``mine + mask`` is unique), bounded
  (`TABLE_SIZE`, cleared when full), one per call so the answer depends on the position alone.
- **An exact endgame** (`SOLVE`, levels 7 and 8): with few empty cells left the same search
  runs to the full grid with the null window around a draw (`AlphaBeta.solve`), column by
  column, within a node budget: a winning column is played at once, columns that lose are
  dropped and the look-ahead chooses among the draws (or among all columns when every one
  loses: the opponent may yet go wrong). Beyond five plies the evaluation gains little a
  ply (docs/matches.md), so the top levels differ by what they prove, not only by depth.

Levels are plies of look-ahead (`DEPTHS`): level 1 none (a win at once, else the centre),
levels 2-5 one to four plies (4 and 5 with the quiet horizon), level 6 seven plies with the
quiet horizon (five, or six, with it did not beat level 5 from both opening sets), levels 7
and 8 seven and nine (one ply more from five up gained too little to measure, and eleven
plies took up to 12 s a move and did not beat nine), and levels 7 and 8 solve the endgame
from 24 and 28 empty cells within 250,000 and 500,000 nodes (`SOLVE`). Depths and node
budgets do not depend on the machine, so at ``--tc none`` a level plays the same moves on
any machine at any load; on a clock, the solve may use half of the budget, then iterative
deepening offers each finished depth to the seat (whose hard stop plays the last offer) and
drops the depth the clock cuts short."""

from __future__ import annotations

import contextlib
import math
import time
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hub.core.play.game import Game
    from hub.core.play.threads import StopFlag


class DiscColumns(Protocol):
    """What the search reads of a `hub.games.connect4.Board` (this module does not import
    the declaration, which imports it)."""

    @property
    def columns(self) -> tuple[str, ...]: ...
    @property
    def mover(self) -> int: ...


DISCS = "RY"  # the first player's disc, the second's
WIN = 1_000_000  # a win in k plies scores WIN - k; evaluations stay far below it
PROVEN = WIN - 1_000  # scores beyond this are proven wins (or losses, negated)
DEPTHS = dict(enumerate((0, 1, 2, 3, 4, 7, 7, 9), start=1))
"""Each level's look-ahead in plies (without the forced replies, which cost no depth; 0:
a win at once, else the most central column, blind to the opponent's threats). Level 6
sees as far as level 7 but with the quiet horizon (`QUIET`) and without the endgame solve;
level 7 beats it from three-ply openings (59.0% ± 4.6) but not clearly from the default
two-ply ones (57.1% ± 9.3 in 98 games; docs/matches.md)."""
SOLVE = {7: (24, 250_000), 8: (28, 500_000)}
"""The levels that solve the endgame: up to how many empty cells, within how many nodes (a
solve past its budget is dropped, but for what it proved); `endgame`."""
TABLE_SIZE = 1 << 18
"""The transposition table's bound (entries): it is cleared when it fills."""
WINDOW = (9, 3, 1)  # a window of one side's discs only, short of a line by 1, 2, 3 discs
GOOD_THREAT, OTHER_THREAT, TEMPO = 24, 8, 4
QUIET = frozenset((4, 5, 6))
"""The levels whose horizon is quiet: the moves that make a threat to block at once are
searched beyond it (`AlphaBeta.quiesce`)."""


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
        # by how many discs of one side a window holds: 0 for none (and a full one: a win)
        self.weights = tuple(
            WINDOW[connect - n - 1] if 0 < connect - n <= len(WINDOW) else 0
            for n in range(connect + 1)
        )
        # rows 1, 3, 5 (from the bottom): the first player's; 2, 4, 6: the second's
        self.odd = sum(1 << (c * h + r) for c in range(columns) for r in range(0, rows, 2))
        self.even = self.full & ~self.odd

    def threats(self, discs: int) -> int:
        """The empty cells (in the grid or not yet reachable) that would complete a line of
        ``discs``: for each direction, the cells with ``connect - 1`` of them on the two sides."""
        if self.connect == 4:  # unrolled, the usual case (Pascal Pons's solver's way)
            h = self.height
            found = (discs << 1) & (discs << 2) & (discs << 3)
            for d in (h, h - 1, h + 1):
                d2 = d + d
                pair = (discs << d) & (discs << d2)
                found |= pair & ((discs << (d2 + d)) | (discs >> d))
                pair = (discs >> d) & (discs >> d2)
                found |= pair & ((discs << d) | (discs >> (d2 + d)))
            return found & self.full & ~discs
        found, n = 0, self.connect - 1
        for d in self.directions:
            below, above = [-1], [-1]  # below[i]: the i cells before a cell are all ``discs``
            for i in range(1, n + 1):
                below.append(below[-1] & (discs << (d * i)))
                above.append(above[-1] & (discs >> (d * i)))
            for j in range(n + 1):  # j of them before the cell, n - j after it
                found |= below[j] & above[n - j]
        return found & self.full & ~discs

    def parity(self, mine: int, theirs: int, first: bool) -> int:
        """The threats' score for the side to move (threat cells ``mine``, the opponent's
        ``theirs``; ``first``: the side to move is the first player) by the odd/even rule."""
        my_rows, their_rows = (self.odd, self.even) if first else (self.even, self.odd)
        return GOOD_THREAT * (
            (mine & my_rows).bit_count() - (theirs & their_rows).bit_count()
        ) + OTHER_THREAT * ((mine & their_rows).bit_count() - (theirs & my_rows).bit_count())

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
            # the first player's move when the discs are even in number
            score += self.parity(my_threats, their_threats, mask.bit_count() % 2 == 0)
        return score + TEMPO


_GRIDS: dict[tuple[int, int, int], Grid] = {}


def grid(rows: int, columns: int, connect: int) -> Grid:
    key = (rows, columns, connect)
    if key not in _GRIDS:
        _GRIDS[key] = Grid(rows, columns, connect)
    return _GRIDS[key]


def bitboards(g: Grid, state: DiscColumns, discs: str = DISCS) -> tuple[int, int]:
    """The side to move's discs and every disc of ``state``."""
    mine, mask, own = 0, 0, discs[state.mover]
    for c, column in enumerate(state.columns):
        for r, disc in enumerate(column):
            bit = 1 << (c * g.height + r)
            mask |= bit
            if disc == own:
                mine |= bit
    return mine, mask


class AlphaBeta:
    """One call's search: the grid, the table, the clock (``until``; ``inf``: none)."""

    def __init__(self, g: Grid, until: float, stop: StopFlag, limit: float = math.inf) -> None:
        self.g, self.until, self.stop, self.limit = g, until, stop, limit
        self.table: dict[int, tuple[int, int, int, int]] = {}  # key: depth, kind, score, column
        self.nodes, self.timed = 0, False
        self.quiet = False  # `quiesce` at the horizon (the levels in `QUIET`)

    def solve(self, mine: int, mask: int, moves: list[int], worth: dict[int, int]) -> None:
        """Each column's exact worth to the side to move into ``worth`` (1 a win, 0 a draw,
        -1 a loss, with best play to the end), in the order given, by searches to the full
        grid with the null window around a draw (a win found ends it: it is the move);
        raises `TimeoutError` past the clock or the node budget (``limit``), the columns
        solved so far in ``worth``."""
        g = self.g
        playable = (mask + g.bottom) & g.full
        wins = g.threats(mine) & playable
        for c in moves:
            cell = playable & g.column_bits[c]
            if cell & wins:  # a line at once (`negamax` takes the position as not won)
                worth[c] = 1
                return
            score = -self.negamax(mine ^ mask, mask | cell, g.rows * g.columns, -1, 1, 1)
            worth[c] = (score > 0) - (score < 0)
            if score > 0:
                return

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

    def quiesce(self, mine: int, mask: int, playable: int, alpha: int, beta: int, ply: int) -> int:
        """The horizon's score for the side to move (no threat to block, no line at once):
        the evaluation, or better, a move that makes a threat the opponent must block at
        once, searched with the forced reply (which is not a choice) to the next quiet
        position. Each such pair fills two cells, so it ends; it sees the double threats
        (and the forced lines to them) that fall one or two plies past the depth, which a
        depth of three plies (level 4) otherwise misjudges from a position of either side
        to move (issue 28: three plies did not beat two from three-ply openings)."""
        g = self.g
        best = g.evaluate(mine, mask)
        if best >= beta:
            return best
        alpha = max(alpha, best)
        theirs = mine ^ mask
        for c in g.order:
            cell = playable & g.column_bits[c]
            if not cell:
                continue
            after = mask | cell
            if not g.threats(mine | cell) & (after + g.bottom) & g.full:
                continue  # not forcing: the evaluation stands for it
            score = -self.negamax(theirs, after, 0, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def negamax(self, mine: int, mask: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of the position for the side to move, ``ply`` plies from the root."""
        g = self.g
        self.nodes += 1
        if self.nodes > self.limit:
            raise TimeoutError
        if self.timed and (self.stop.is_set() or time.perf_counter() >= self.until):
            raise TimeoutError
        theirs = mine ^ mask
        playable = (mask + g.bottom) & g.full
        if not playable:
            return 0  # a full grid: a draw
        if g.threats(mine) & playable:
            return WIN - ply - 1
        danger = g.threats(theirs)
        forced = danger & playable
        if forced:
            if forced & (forced - 1):
                return -(WIN - ply - 2)  # two cells to block at once
            playable = forced  # a forced reply: no depth spent (it is not a choice)
        elif depth <= 0:
            if not self.quiet:
                return g.evaluate(mine, mask)
            return self.quiesce(mine, mask, playable, alpha, beta, ply)
        else:
            depth -= 1
        moves = [(c, playable & g.column_bits[c]) for c in g.order if playable & g.column_bits[c]]
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
            moves.sort(key=lambda m: (bool(danger & (m[1] << 1)), m[0] != first))
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


def endgame(
    g: Grid, mine: int, mask: int, moves: list[int], budget: int, secs: float, stop: StopFlag
) -> list[int]:
    """The columns left to choose from once the endgame is solved (within ``budget`` nodes
    and ``secs``): a winning one alone; else those that keep the best result (the draws), or
    every one if all lose (the opponent may yet go wrong). A solve cut short keeps its
    answers: a win found is the move, the columns proven lost are dropped."""
    solver = AlphaBeta(g, time.perf_counter() + secs, stop, limit=budget)
    solver.timed = secs < math.inf
    worth: dict[int, int] = {}
    with contextlib.suppress(TimeoutError):
        solver.solve(mine, mask, moves, worth)
    wins = [c for c in moves if worth.get(c) == 1]
    if wins:
        return wins[:1]
    kept = [c for c in moves if worth.get(c, 0) == 0]  # a draw, or not solved
    return kept or moves


def negamax(
    game: Game[Any, int], state: DiscColumns, level: int, secs: float, stop: StopFlag
) -> int:
    """The move of level ``level``: a win at once; else, at a level that solves endgames
    and few enough empty cells (`SOLVE`), the `endgame`'s columns (a proven win is played,
    within half of ``secs``); then one ply deeper at a time up to `DEPTHS`[level] among those
    columns within ``secs``; each finished depth's move is offered to the seat (whose hard
    stop plays it); a depth cut short is dropped (depth 1 never is: there is always a move).
    No clock (``inf``): the full depth's move. A proven win or loss ends the deepening.
    Depth 0 (level 1): a win at once, else the most central column (it does not block: a
    beginner)."""
    s = game.settings
    g = grid(int(s["rows"]), int(s["columns"]), int(s["connect"]))
    mine, mask = bitboards(g, state, DISCS)
    search = AlphaBeta(g, time.perf_counter() + secs if secs < math.inf else math.inf, stop)
    search.quiet = level in QUIET
    playable = (mask + g.bottom) & g.full
    moves = [c for c in g.order if playable & g.column_bits[c]]
    for c in moves:  # a win at once needs no search
        if g.threats(mine) & playable & g.column_bits[c]:
            stop.offer(c + 1)
            return c + 1
    if DEPTHS[level] == 0:  # a beginner: blind to the opponent's threats
        stop.offer(moves[0] + 1)
        return moves[0] + 1
    danger = g.threats(mine ^ mask) & playable  # a cell to block first
    moves.sort(key=lambda c: not danger & g.column_bits[c])
    empties, (most, budget) = g.rows * g.columns - mask.bit_count(), SOLVE.get(level, (0, 0))
    if empties <= most:
        stop.offer(moves[0] + 1)  # the cell to block, else the centre: until the solve ends
        moves = endgame(g, mine, mask, moves, budget, secs / 2, stop)
        if len(moves) == 1:
            stop.offer(moves[0] + 1)
            return moves[0] + 1
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
