"""The computer players of ``hub play chess``, levels 1 to 4 (pure: no I/O, no global RNG).

* Level 1: a random legal move.
* Level 2: a random move among the captures and checks, if there are any; else any move.
* Level 3: the moves that leave the least to capture (the most valuable piece of ours the
  opponent could take next, 0 if none), among those the captures, among those the checks;
  a random one of the best.
* Level 4: `Searcher`, a real search: iterative deepening negamax alpha-beta with principal
  variation search, a transposition table, move ordering (hash move, MVV-LVA captures,
  promotions, killer moves, history), null-move pruning, late-move reductions, check
  extensions and a quiescence search over captures, on a tapered piece-square evaluation
  (material and Michniewski's simplified tables, a middle-game and an end-game king, pushed
  pawns, and a "mop-up" term that drives a lone king to the edge so that won endings end).
  Repeating a position counts as a draw inside the search, so a winning side makes progress.

Every choice takes its randomness from the ``random.Random`` it is given. A search limited by
`Limits.nodes` (and depth) alone is reproducible exactly; one limited by time depends on the
machine's speed, which is why ``hub play chess --seed N`` counts level 4's budget in nodes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence

import attrs
import chess

MATE = 100_000
MATE_BOUND = MATE - 1_000
"""Scores beyond this are mates; MATE - score is the distance to mate in plies."""
INFINITY = 1_000_000
MAX_PLY = 96
MAX_DEPTH = 64
TT_MAX_ENTRIES = 400_000
CHECK_EVERY = 16
"""Nodes between two looks at the clock and the stop flag (about a millisecond of CPU: a
time-limited search ends close to its budget, and a stopped one at once. At 128 it was
10-20 ms of CPU, and far more of wall time on a busy machine where the thread gets a share
of a core: level 4 overran its budget into its seat's hard stop, and an abandoned search
held the GIL that the event loop needed to answer; a look costs well under 1% of the
nodes between two, docs/performance.md)."""
NODE_CHECK_EVERY = 1024
"""Nodes between two looks at the node limit: a node-limited search stops at the first
multiple of this at or past its limit, so that seeded games replay exactly as before."""

VALUES = (0, 100, 320, 330, 500, 900, 0)
"""Material by python-chess piece type (index 1 pawn .. 6 king); the king is never traded."""
PHASE = (0, 0, 1, 1, 2, 4, 0)
PHASE_TOTAL = 24

# Tomasz Michniewski's simplified evaluation tables, from white's side, rank 8 first.
_PAWN = (
    0, 0, 0, 0, 0, 0, 0, 0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
    5, 5, 10, 25, 25, 10, 5, 5,
    0, 0, 0, 20, 20, 0, 0, 0,
    5, -5, -10, 0, 0, -10, -5, 5,
    5, 10, 10, -20, -20, 10, 10, 5,
    0, 0, 0, 0, 0, 0, 0, 0,
)  # fmt: skip
_PAWN_END_BONUS = (0, 0, 5, 10, 20, 35, 60, 0)
"""Extra worth of a pawn in the end game by rank (1 .. 8) from its own side."""
_KNIGHT = (
    -50, -40, -30, -30, -30, -30, -40, -50,
    -40, -20, 0, 0, 0, 0, -20, -40,
    -30, 0, 10, 15, 15, 10, 0, -30,
    -30, 5, 15, 20, 20, 15, 5, -30,
    -30, 0, 15, 20, 20, 15, 0, -30,
    -30, 5, 10, 15, 15, 10, 5, -30,
    -40, -20, 0, 5, 5, 0, -20, -40,
    -50, -40, -30, -30, -30, -30, -40, -50,
)  # fmt: skip
_BISHOP = (
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 10, 10, 5, 0, -10,
    -10, 5, 5, 10, 10, 5, 5, -10,
    -10, 0, 10, 10, 10, 10, 0, -10,
    -10, 10, 10, 10, 10, 10, 10, -10,
    -10, 5, 0, 0, 0, 0, 5, -10,
    -20, -10, -10, -10, -10, -10, -10, -20,
)  # fmt: skip
_ROOK = (
    0, 0, 0, 0, 0, 0, 0, 0,
    5, 10, 10, 10, 10, 10, 10, 5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    -5, 0, 0, 0, 0, 0, 0, -5,
    0, 0, 0, 5, 5, 0, 0, 0,
)  # fmt: skip
_QUEEN = (
    -20, -10, -10, -5, -5, -10, -10, -20,
    -10, 0, 0, 0, 0, 0, 0, -10,
    -10, 0, 5, 5, 5, 5, 0, -10,
    -5, 0, 5, 5, 5, 5, 0, -5,
    0, 0, 5, 5, 5, 5, 0, -5,
    -10, 5, 5, 5, 5, 5, 0, -10,
    -10, 0, 5, 0, 0, 0, 0, -10,
    -20, -10, -10, -5, -5, -10, -10, -20,
)  # fmt: skip
_KING_MIDDLE = (
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
    -10, -20, -20, -20, -20, -20, -20, -10,
    20, 20, 0, 0, 0, 0, 20, 20,
    20, 30, 10, 0, 0, 10, 30, 20,
)  # fmt: skip
_KING_END = (
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10, 0, 0, -10, -20, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 30, 40, 40, 30, -10, -30,
    -30, -10, 20, 30, 30, 20, -10, -30,
    -30, -30, 0, 0, 0, 0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
)  # fmt: skip


def _tables() -> tuple[list[list[list[int]]], list[list[list[int]]]]:
    """``MG[colour][piece_type][square]`` and ``EG[...]``: material plus placement, signed
    from white's side (black's entries are negative), indexed by python-chess squares."""
    middle = {1: _PAWN, 2: _KNIGHT, 3: _BISHOP, 4: _ROOK, 5: _QUEEN, 6: _KING_MIDDLE}
    end = {**middle, 6: _KING_END}
    mg: list[list[list[int]]] = [[[0] * 64 for _ in range(7)] for _ in range(2)]
    eg: list[list[list[int]]] = [[[0] * 64 for _ in range(7)] for _ in range(2)]
    for piece_type in range(1, 7):
        for square in range(64):
            file, rank = chess.square_file(square), chess.square_rank(square)
            white_index = (7 - rank) * 8 + file  # the tables list rank 8 first
            black_index = rank * 8 + file  # mirrored for black
            for colour, index, own_rank, sign in (
                (chess.WHITE, white_index, rank, 1),
                (chess.BLACK, black_index, 7 - rank, -1),
            ):
                base = VALUES[piece_type]
                mg[colour][piece_type][square] = sign * (base + middle[piece_type][index])
                bonus = _PAWN_END_BONUS[own_rank] if piece_type == chess.PAWN else 0
                eg[colour][piece_type][square] = sign * (base + end[piece_type][index] + bonus)
    return mg, eg


MG, EG = _tables()

_CENTRE_DISTANCE = [
    max(3 - min(chess.square_file(s), 7 - chess.square_file(s)), 0)
    + max(3 - min(chess.square_rank(s), 7 - chess.square_rank(s)), 0)
    for s in chess.SQUARES
]
"""0 on the four centre squares up to 6 in a corner."""


class SearchAborted(Exception):
    """The search ran out of time or nodes, or was asked to stop (internal)."""


@attrs.frozen
class Limits:
    """What bounds one search. None means unbounded; at least one bound should be given."""

    movetime: float | None = None
    """Seconds for this move."""
    depth: int | None = None
    nodes: int | None = None
    maxtime: float | None = None
    """A hard stop in seconds (`EngineSearcher`): ``movetime`` is then the time it aims at,
    and a search past it starts no new iteration; None: ``movetime`` is the hard stop."""

    @property
    def reproducible(self) -> bool:
        return self.movetime is None and self.maxtime is None


@attrs.frozen
class SearchInfo:
    """One completed iteration, as a UCI ``info`` line reports it."""

    depth: int
    seldepth: int
    score: int
    nodes: int
    seconds: float
    pv: tuple[chess.Move, ...]

    @property
    def mate_in(self) -> int | None:
        """Moves to mate (negative: we are mated), or None for a centipawn score."""
        if self.score >= MATE_BOUND:
            return (MATE - self.score + 1) // 2
        if self.score <= -MATE_BOUND:
            return -((MATE + self.score) // 2)
        return None


@attrs.frozen
class SearchResult:
    move: chess.Move | None
    """None only when the position has no legal move."""
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[chess.Move, ...]


_EXACT, _LOWER, _UPPER = 0, 1, 2


def material_phase(board: chess.BaseBoard) -> int:
    phase = 0
    for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        phase += PHASE[piece_type] * chess.popcount(board.pieces_mask(piece_type, chess.WHITE))
        phase += PHASE[piece_type] * chess.popcount(board.pieces_mask(piece_type, chess.BLACK))
    return phase


def eval_terms(board: chess.BaseBoard) -> tuple[int, int, int]:
    """(middle-game score, end-game score, phase), the scores from white's side."""
    mg = eg = 0
    for square, piece in board.piece_map().items():
        mg += MG[piece.color][piece.piece_type][square]
        eg += EG[piece.color][piece.piece_type][square]
    return mg, eg, material_phase(board)


def evaluate(board: chess.Board) -> int:
    """The static evaluation in centipawns from the side to move (not incremental)."""
    mg, eg, phase = eval_terms(board)
    return _blend(board, mg, eg, phase)


def _blend(board: chess.Board, mg: int, eg: int, phase: int) -> int:
    phase = min(phase, PHASE_TOTAL)
    score = (mg * phase + eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL
    score = _mop_up(board, score, phase)
    return score if board.turn == chess.WHITE else -score


def _mop_up(board: chess.Board, score: int, phase: int) -> int:
    """``score`` (white's side) with the mop-up term of a won ending added."""
    if phase <= 8 and (score > 250 or score < -250):
        # Mop-up: the side ahead wants the other king on the edge and its own king close.
        winner = chess.WHITE if score > 0 else chess.BLACK
        strong, weak = board.king(winner), board.king(not winner)
        if strong is not None and weak is not None:
            bonus = 10 * _CENTRE_DISTANCE[weak] + 4 * (
                14 - chess.square_manhattan_distance(strong, weak)
            )
            score += bonus if winner == chess.WHITE else -bonus
    return score


def _delta(board: chess.Board, move: chess.Move) -> tuple[int, int, int]:
    """How ``move`` changes (mg, eg, phase); call before pushing it."""
    us = board.turn
    origin, target = move.from_square, move.to_square
    moved = board.piece_type_at(origin) or chess.PAWN
    placed = move.promotion or moved
    mg_us, eg_us = MG[us], EG[us]
    dmg = mg_us[placed][target] - mg_us[moved][origin]
    deg = eg_us[placed][target] - eg_us[moved][origin]
    dphase = PHASE[placed] - PHASE[moved]
    captured = board.piece_type_at(target)
    if captured is not None:
        dmg -= MG[not us][captured][target]
        deg -= EG[not us][captured][target]
        dphase -= PHASE[captured]
    elif moved == chess.PAWN and target == board.ep_square and origin % 8 != target % 8:
        victim = target - 8 if us == chess.WHITE else target + 8
        dmg -= MG[not us][chess.PAWN][victim]
        deg -= EG[not us][chess.PAWN][victim]
    elif moved == chess.KING and abs(target - origin) == 2:
        rook_from, rook_to = (
            (origin + 3, origin + 1) if target > origin else (origin - 4, origin - 1)
        )
        dmg += mg_us[chess.ROOK][rook_to] - mg_us[chess.ROOK][rook_from]
        deg += EG[us][chess.ROOK][rook_to] - EG[us][chess.ROOK][rook_from]
    return dmg, deg, dphase


def _key(board: chess.Board) -> int:
    # python-chess's own transposition key (pieces, side, castling, en passant), hashed.
    return hash(board._transposition_key())


class Searcher:
    """Level 4's search. One instance per player keeps its transposition table between moves.

    `search` is synchronous and CPU-bound; its ``should_stop`` (polled with the clock, e.g. a
    ``threading.Event``'s ``is_set`` set from another thread) makes it return the best move
    found so far.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng
        self.tt: dict[int, tuple[int, int, int, chess.Move | None]] = {}
        self.history: dict[tuple[int, int], int] = {}
        self.killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.nodes = 0
        self.seldepth = 0
        self._should_stop: Callable[[], bool] | None = None
        self._deadline: float | None = None
        self._node_limit: int | None = None
        self._repetitions: dict[int, int] = {}
        self._root_best: tuple[chess.Move, int] | None = None

    def clear(self) -> None:
        """Forget everything learnt (a new game)."""
        self.tt.clear()
        self.history.clear()

    # -- the driver -------------------------------------------------------------------

    def search(
        self,
        board: chess.Board,
        limits: Limits,
        on_info: Callable[[SearchInfo], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """The best move within ``limits``; ``board`` is left as it was."""
        start = time.monotonic()
        self._should_stop = should_stop
        self.nodes = 0
        self.seldepth = 0
        self._deadline = start + limits.movetime if limits.movetime is not None else None
        soft_deadline = start + limits.movetime * 0.55 if limits.movetime is not None else None
        self._node_limit = limits.nodes
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        self.history = {move: score // 8 for move, score in self.history.items() if score >= 8}
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]
        work = board.copy()
        self._repetitions = _history_keys(work)
        moves = list(work.generate_legal_moves())
        if not moves:
            score = -MATE if work.is_check() else 0
            return SearchResult(None, score, 0, 0, time.monotonic() - start, ())
        if self.rng is not None:
            self.rng.shuffle(moves)
        tt_entry = self.tt.get(_key(work))
        moves = self._order(work, moves, tt_entry[3] if tt_entry else None, 0)
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        terms = eval_terms(work)
        best: chess.Move = moves[0]
        best_score = 0
        completed = 0
        pv: tuple[chess.Move, ...] = (best,)
        for depth in range(1, max_depth + 1):
            try:
                score, move = self._root(work, moves, depth, terms)
            except SearchAborted:
                if self._root_best is not None:
                    best, best_score = self._root_best
                    if pv[0] != best:
                        pv = (best,)
                break
            best, best_score, completed = move, score, depth
            moves.remove(move)
            moves.insert(0, move)
            pv = self._principal_variation(work, move, depth)
            elapsed = time.monotonic() - start
            if on_info is not None:
                on_info(
                    SearchInfo(depth, max(self.seldepth, depth), score, self.nodes, elapsed, pv)
                )
            if abs(score) >= MATE_BOUND and depth >= MATE - abs(score):
                break  # a mate found at full width cannot improve with depth
            if len(moves) == 1 and limits.movetime is not None:
                break
            if soft_deadline is not None and time.monotonic() > soft_deadline:
                break  # the next iteration would not finish in time
        return SearchResult(best, best_score, completed, self.nodes, time.monotonic() - start, pv)

    def _root(
        self, board: chess.Board, moves: list[chess.Move], depth: int, terms: tuple[int, int, int]
    ) -> tuple[int, chess.Move]:
        self._root_best = None
        alpha, beta = -INFINITY, INFINITY
        mg, eg, phase = terms
        key = _key(board)
        self._repetitions[key] = self._repetitions.get(key, 0) + 1
        try:
            best_move = moves[0]
            for index, move in enumerate(moves):
                dmg, deg, dphase = _delta(board, move)
                board.push(move)
                try:
                    args = (mg + dmg, eg + deg, phase + dphase)
                    if index == 0:
                        score = -self._negamax(board, depth - 1, -beta, -alpha, 1, *args, True)
                    else:
                        score = -self._negamax(board, depth - 1, -alpha - 1, -alpha, 1, *args, True)
                        if score > alpha:
                            score = -self._negamax(board, depth - 1, -beta, -alpha, 1, *args, True)
                finally:
                    board.pop()
                if score > alpha:
                    alpha, best_move = score, move
                    self._root_best = (move, score)
            self.tt[key] = (depth, _EXACT, alpha, best_move)
            return alpha, best_move
        finally:
            self._repetitions[key] -= 1

    def _check_limits(self) -> None:
        if self._should_stop is not None and self._should_stop():
            raise SearchAborted
        if (
            self._node_limit is not None
            and self.nodes >= self._node_limit
            and self.nodes % NODE_CHECK_EVERY == 0
        ):
            raise SearchAborted
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise SearchAborted

    # -- the tree ---------------------------------------------------------------------

    def _negamax(
        self,
        board: chess.Board,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        mg: int,
        eg: int,
        phase: int,
        null_ok: bool,
    ) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check_limits()
        key = _key(board)
        if self._repetitions.get(key, 0):
            return 0
        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(board, alpha, beta, ply, mg, eg, phase)
        pv_node = beta - alpha > 1
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth and not pv_node:
                score = _from_tt(e_score, ply)
                if (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and score >= beta)
                    or (e_flag == _UPPER and score <= alpha)
                ):
                    return score
        us = board.turn
        if (
            null_ok
            and not pv_node
            and not in_check
            and depth >= 3
            and abs(beta) < MATE_BOUND
            and board.occupied_co[us] & ~(board.pawns | board.kings)
            and _blend(board, mg, eg, phase) >= beta
        ):
            board.push(chess.Move.null())
            try:
                score = -self._negamax(
                    board, depth - 3, -beta, -beta + 1, ply + 1, mg, eg, phase, False
                )
            finally:
                board.pop()
            if score >= beta:
                return beta
        moves = list(board.generate_legal_moves())
        if not moves:
            return -MATE + ply if in_check else 0
        moves = self._order(board, moves, tt_move, ply)
        original_alpha = alpha
        best_score, best_move = -INFINITY, moves[0]
        self._repetitions[key] = 1
        try:
            for index, move in enumerate(moves):
                quiet = not move.promotion and not board.is_capture(move)
                dmg, deg, dphase = _delta(board, move)
                board.push(move)
                try:
                    args = (mg + dmg, eg + deg, phase + dphase)
                    if index == 0:
                        score = -self._negamax(
                            board, depth - 1, -beta, -alpha, ply + 1, *args, True
                        )
                    else:
                        reduce = 1 if depth >= 3 and index >= 3 and quiet and not in_check else 0
                        score = -self._negamax(
                            board, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1, *args, True
                        )
                        if score > alpha and reduce:
                            score = -self._negamax(
                                board, depth - 1, -alpha - 1, -alpha, ply + 1, *args, True
                            )
                        if alpha < score < beta:
                            score = -self._negamax(
                                board, depth - 1, -beta, -alpha, ply + 1, *args, True
                            )
                finally:
                    board.pop()
                if score > best_score:
                    best_score, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if quiet:
                                self._remember_quiet(move, ply, depth)
                            break
        finally:
            self._repetitions[key] = 0
        flag = _LOWER if best_score >= beta else _EXACT if best_score > original_alpha else _UPPER
        self.tt[key] = (depth, flag, _to_tt(best_score, ply), best_move)
        return best_score

    def _quiesce(
        self, board: chess.Board, alpha: int, beta: int, ply: int, mg: int, eg: int, phase: int
    ) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check_limits()
        self.seldepth = max(self.seldepth, ply)
        if ply >= MAX_PLY:
            return _blend(board, mg, eg, phase)
        in_check = board.is_check()
        if in_check:
            moves = list(board.generate_legal_moves())
            if not moves:
                return -MATE + ply
            best = -INFINITY
            stand = -INFINITY
        else:
            stand = _blend(board, mg, eg, phase)
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            moves = list(board.generate_legal_captures())
            promoting = (
                board.pawns
                & board.occupied_co[board.turn]
                & (chess.BB_RANK_7 if board.turn == chess.WHITE else chess.BB_RANK_2)
            )
            if promoting:
                moves += [
                    move
                    for move in board.generate_legal_moves(
                        promoting, ~board.occupied & chess.BB_ALL
                    )
                    if move.promotion == chess.QUEEN
                ]
        moves.sort(key=lambda move: _capture_order(board, move), reverse=True)
        for move in moves:
            dmg, deg, dphase = _delta(board, move)
            if not in_check and not move.promotion:
                victim = board.piece_type_at(move.to_square) or chess.PAWN
                if stand + VALUES[victim] + 200 < alpha:
                    continue  # delta pruning: even winning this cannot raise alpha
            board.push(move)
            try:
                score = -self._quiesce(
                    board, -beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dphase
                )
            finally:
                board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    # -- ordering and bookkeeping -----------------------------------------------------

    def _order(
        self, board: chess.Board, moves: list[chess.Move], tt_move: chess.Move | None, ply: int
    ) -> list[chess.Move]:
        killers = self.killers[ply]
        history = self.history

        def rank(move: chess.Move) -> int:
            if move == tt_move:
                return 100_000_000
            victim = board.piece_type_at(move.to_square)
            if victim is not None or board.is_en_passant(move):
                attacker = board.piece_type_at(move.from_square) or chess.PAWN
                return 50_000_000 + VALUES[victim or chess.PAWN] * 16 - VALUES[attacker] // 16
            if move.promotion:
                return 40_000_000 + VALUES[move.promotion]
            if move == killers[0]:
                return 30_000_001
            if move == killers[1]:
                return 30_000_000
            return history.get((move.from_square, move.to_square), 0)

        return sorted(moves, key=rank, reverse=True)

    def _remember_quiet(self, move: chess.Move, ply: int, depth: int) -> None:
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1], killers[0] = killers[0], move
        key = (move.from_square, move.to_square)
        self.history[key] = min(self.history.get(key, 0) + depth * depth, 20_000_000)

    def _principal_variation(
        self, board: chess.Board, first: chess.Move, depth: int
    ) -> tuple[chess.Move, ...]:
        pv = [first]
        work = board.copy(stack=False)
        work.push(first)
        seen = {_key(work)}
        while len(pv) < depth:
            entry = self.tt.get(_key(work))
            if entry is None or entry[3] is None or not work.is_legal(entry[3]):
                break
            work.push(entry[3])
            key = _key(work)
            if key in seen:
                break
            seen.add(key)
            pv.append(entry[3])
        return tuple(pv)


def _capture_order(board: chess.Board, move: chess.Move) -> int:
    victim = board.piece_type_at(move.to_square) or chess.PAWN
    attacker = board.piece_type_at(move.from_square) or chess.PAWN
    return VALUES[victim] * 16 - VALUES[attacker] // 16 + (VALUES[move.promotion or 0])


def _history_keys(board: chess.Board) -> dict[int, int]:
    """Keys of the positions before ``board`` since the last capture or pawn move."""
    keys: dict[int, int] = {}
    work = board.copy()
    for _ in range(min(board.halfmove_clock, len(board.move_stack))):
        work.pop()
        key = _key(work)
        keys[key] = keys.get(key, 0) + 1
    return keys


def _to_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _from_tt(score: int, ply: int) -> int:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


# -- hub engine's search ----------------------------------------------------------------

ENGINE_OVERHEAD = 0.06
"""Seconds `allot_time` keeps back from a clock for the pipes, the GUI and a busy machine
(a search gets a share of a core there; the clock is looked at every `CHECK_EVERY` nodes)."""
ENGINE_MIN_TIME = 0.005
DEFAULT_MOVES_TO_GO = 20
LOW_CLOCK = 2.0
"""The moves a clock without ``movestogo`` is shared over (each move takes a 20th of what is
left: the time falls geometrically, and the increment is mostly spent as it comes)."""


def allot_time(
    left: float,
    increment: float = 0.0,
    movestogo: int | None = None,
    overhead: float = ENGINE_OVERHEAD,
) -> tuple[float, float]:
    """(optimum, hard limit) in seconds for one move on a clock with ``left`` seconds.

    The optimum is a share of the time left plus most of the increment (less of it on a
    clock under `LOW_CLOCK` seconds, so that the clock grows back); a search past it
    starts no new iteration. The hard limit (at most 4 optima) stops the search outright and
    never exceeds half of what is left after the overhead (all but a tenth of it on the last
    move before a time control), so a move is answered before the flag falls with a margin.
    """
    usable = max(left - overhead, 0.0)
    moves = max(min(movestogo or DEFAULT_MOVES_TO_GO, DEFAULT_MOVES_TO_GO * 2), 1)
    cap = usable * (0.9 if moves == 1 else 0.5)
    # Below LOW_CLOCK seconds less of the increment is spent, so a clock that ran low builds
    # itself up again instead of living on the increment with a fraction of a second left.
    optimum = usable / moves + 0.8 * increment * min(usable / LOW_CLOCK, 1.0)
    hard = min(cap, 4 * optimum)
    optimum = min(optimum, hard)
    return max(optimum, ENGINE_MIN_TIME), max(hard, ENGINE_MIN_TIME)


def _lmr_table() -> list[list[int]]:
    import math

    table = [[0] * 64 for _ in range(64)]
    for depth in range(1, 64):
        for index in range(1, 64):
            table[depth][index] = int(0.5 + math.log(depth) * math.log(index) / 2.25)
    return table


_LMR = _lmr_table()
_LMP = (0, 6, 10, 16)
"""Quiet moves tried at depth 1..3 before the rest are pruned (late-move pruning)."""
_RFP_MARGIN = 85
_LAZY_MARGIN = 150
"""Centipawns beyond which the mobility and rook terms are not computed (`_eval`)."""
_FUTILITY = (0, 150, 260, 380)
_PASSED_MG = (0, 0, 5, 10, 20, 35, 55, 0)
_PASSED_EG = (0, 10, 15, 25, 45, 75, 120, 0)
"""Bonus of a passed pawn by its rank from its own side (1 .. 8), on top of the tables."""
_FILE_MASKS = [chess.BB_FILES[file] for file in range(8)]
_ADJACENT = [
    (_FILE_MASKS[file - 1] if file > 0 else 0) | (_FILE_MASKS[file + 1] if file < 7 else 0)
    for file in range(8)
]


def _front_spans() -> tuple[list[int], list[int]]:
    """Squares ahead of a pawn on its file and the two beside, for each colour."""
    white, black = [0] * 64, [0] * 64
    for square in range(64):
        file, rank = chess.square_file(square), chess.square_rank(square)
        files = _FILE_MASKS[file] | _ADJACENT[file]
        ahead_w = 0
        for r in range(rank + 1, 8):
            ahead_w |= chess.BB_RANKS[r]
        ahead_b = 0
        for r in range(0, rank):
            ahead_b |= chess.BB_RANKS[r]
        white[square] = files & ahead_w
        black[square] = files & ahead_b
    return white, black


_PASSED_SPAN = _front_spans()
_SHIELD = [
    [
        (_FILE_MASKS[chess.square_file(k)] | _ADJACENT[chess.square_file(k)])
        & (
            chess.BB_RANKS[min(chess.square_rank(k) + 1, 7)]
            | chess.BB_RANKS[min(chess.square_rank(k) + 2, 7)]
            if colour
            else chess.BB_RANKS[max(chess.square_rank(k) - 1, 0)]
            | chess.BB_RANKS[max(chess.square_rank(k) - 2, 0)]
        )
        for k in range(64)
    ]
    for colour in (chess.BLACK, chess.WHITE)
]
"""The squares of a king's pawn shield (its file and the two beside, two ranks ahead)."""


def structure_terms(
    white_pawns: int, black_pawns: int, white_king: int, black_king: int
) -> tuple[int, int]:
    """(middle-game, end-game) score from white's side of the pawns and the kings' shelter:
    passed pawns by rank, doubled and isolated pawns, and, in the middle game, a king's
    shield of pawns and the open files beside it."""
    mg = eg = 0
    for colour, own, other, king, sign in (
        (chess.WHITE, white_pawns, black_pawns, white_king, 1),
        (chess.BLACK, black_pawns, white_pawns, black_king, -1),
    ):
        span = _PASSED_SPAN[0] if colour == chess.WHITE else _PASSED_SPAN[1]
        c_mg = c_eg = 0
        for square in chess.scan_forward(own):
            file = square & 7
            rank = square >> 3 if colour == chess.WHITE else 7 - (square >> 3)
            if not span[square] & other:
                c_mg += _PASSED_MG[rank]
                c_eg += _PASSED_EG[rank]
            if not own & _ADJACENT[file]:
                c_mg -= 12
                c_eg -= 15
        for file in range(8):
            count = chess.popcount(own & _FILE_MASKS[file])
            if count > 1:
                c_mg -= 12 * (count - 1)
                c_eg -= 20 * (count - 1)
        if king is not None:
            king_rank = king >> 3 if colour == chess.WHITE else 7 - (king >> 3)
            if king_rank <= 1:
                shield = chess.popcount(own & _SHIELD[colour][king])
                c_mg += 12 * min(shield, 3)
                kf = king & 7
                for file in (kf - 1, kf, kf + 1):
                    if 0 <= file < 8 and not own & _FILE_MASKS[file]:
                        c_mg -= 18 if not other & _FILE_MASKS[file] else 10
        mg += sign * c_mg
        eg += sign * c_eg
    return mg, eg


def position_key(board: chess.Board) -> int:
    """A 64-bit key of the position (pieces, side, castling, en passant square).

    Not ``hash(board._transposition_key())``: CPython hashes an int modulo 2**61 - 1, so a
    piece on f8, g8 or h8 (bits 61-63) hashes as one on a1, b1 or c1, and such positions
    share a key (a queen on f8 and one on a1: a stalemate taken for a mate). The bits 61-63
    of every piece set are added as one more number, which keeps the key a plain tuple hash.
    """
    knights, bishops, rooks = board.knights, board.bishops, board.rooks
    queens, kings, white = board.queens, board.kings, board.occupied_co[chess.WHITE]
    top = (
        knights >> 61
        | (bishops >> 61) << 3
        | (rooks >> 61) << 6
        | (queens >> 61) << 9
        | (kings >> 61) << 12
        | (white >> 61) << 15
    )
    return hash(
        (
            board.pawns,
            knights,
            bishops,
            rooks,
            queens,
            kings,
            white,
            top,
            board.turn,
            board.castling_rights,
            board.ep_square,
        )
    )


def _position_keys(board: chess.Board) -> dict[int, int]:
    """`position_key` of the positions before ``board`` since the last zeroing move."""
    keys: dict[int, int] = {}
    work = board.copy()
    for _ in range(min(board.halfmove_clock, len(board.move_stack))):
        work.pop()
        key = position_key(work)
        keys[key] = keys.get(key, 0) + 1
    return keys


def direct_check(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` (a quiet one) checks with the piece moved: a few table lookups,
    where python-chess's ``gives_check`` pushes the move (discovered checks are missed)."""
    king = board.kings & board.occupied_co[not board.turn]
    to = move.to_square
    piece = move.promotion or board.piece_type_at(move.from_square)
    if piece == chess.KNIGHT:
        return bool(chess.BB_KNIGHT_ATTACKS[to] & king)
    if piece == chess.PAWN:
        return bool(chess.BB_PAWN_ATTACKS[board.turn][to] & king)
    if piece is None or piece == chess.KING:
        return False
    occupied = (board.occupied & ~chess.BB_SQUARES[move.from_square]) | chess.BB_SQUARES[to]
    attacks = 0
    if piece in (chess.BISHOP, chess.QUEEN):
        attacks |= chess.BB_DIAG_ATTACKS[to][chess.BB_DIAG_MASKS[to] & occupied]
    if piece in (chess.ROOK, chess.QUEEN):
        attacks |= chess.BB_RANK_ATTACKS[to][chess.BB_RANK_MASKS[to] & occupied]
        attacks |= chess.BB_FILE_ATTACKS[to][chess.BB_FILE_MASKS[to] & occupied]
    return bool(attacks & king)


class EngineSearcher(Searcher):
    """`hub engine`'s search: `Searcher`'s tree with more pruning and a fuller evaluation.

    Over the console's level 4 (which stays as it is: its seeded games are part of the
    console's byte-exact contract) it adds aspiration windows at the root, a hash move tried
    before the moves are generated, reverse futility pruning, razoring, a deeper null move,
    futility and late-move pruning of quiet moves, logarithmic late-move reductions, a
    quiescence search that skips losing captures of defended pieces, and an evaluation with
    pawn structure (passed, doubled and isolated pawns, cached by pawn position), the king's
    pawn shelter, the bishop pair and a tempo. `Limits.maxtime` is honoured as a hard stop
    (with ``movetime`` the time aimed at), read from ``clock`` (a fake one in tests).
    """

    def __init__(
        self, rng: random.Random | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(rng)
        self.clock = clock
        self.pawn_cache: dict[tuple[int, int, int | None, int | None], tuple[int, int]] = {}

    def clear(self) -> None:
        super().clear()
        self.pawn_cache.clear()

    # -- evaluation -----------------------------------------------------------------------

    def _eval(
        self,
        board: chess.Board,
        mg: int,
        eg: int,
        phase: int,
        alpha: int = -INFINITY,
        beta: int = INFINITY,
    ) -> int:
        """The evaluation from the side to move. Given a window, a score far outside it
        after the cheap terms (material, tables, pawns, bishops) skips the dear ones
        (mobility, rooks' files): they could not bring it back (a lazy evaluation)."""
        white = board.occupied_co[chess.WHITE]
        black = board.occupied_co[chess.BLACK]
        pawns = board.pawns
        kings = board.kings
        wk = (kings & white).bit_length() - 1
        bk = (kings & black).bit_length() - 1
        key = (pawns & white, pawns & black, wk, bk)
        cached = self.pawn_cache.get(key)
        if cached is None:
            if len(self.pawn_cache) > 200_000:
                self.pawn_cache.clear()
            cached = self.pawn_cache[key] = structure_terms(key[0], key[1], wk, bk)
        mg += cached[0]
        eg += cached[1]
        bishops = board.bishops
        if (bishops & white).bit_count() >= 2:
            mg += 30
            eg += 45
        if (bishops & black).bit_count() >= 2:
            mg -= 30
            eg -= 45
        phase = min(phase, PHASE_TOTAL)
        white_to_move = board.turn == chess.WHITE
        if alpha > -INFINITY or beta < INFINITY:
            rough = (mg * phase + eg * (PHASE_TOTAL - phase)) // PHASE_TOTAL
            rough = rough if white_to_move else -rough
            if rough - _LAZY_MARGIN >= beta or rough + _LAZY_MARGIN <= alpha:
                return rough + 10
        # Mobility: the squares each minor and major piece attacks that are not its own
        # side's, around a typical count (table lookups, no move generation); a rook on a
        # file without pawns, or without its own.
        occupied = board.occupied
        diag, diag_masks = chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS
        rank, rank_masks = chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS
        file_, file_masks = chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS
        knight_attacks = chess.BB_KNIGHT_ATTACKS
        knights, rooks, queens = board.knights, board.rooks, board.queens
        for own, sign in ((white, 1), (black, -1)):
            free = ~own
            m_mg = m_eg = 0
            bb = knights & own
            while bb:
                square = (bb & -bb).bit_length() - 1
                bb &= bb - 1
                count = (knight_attacks[square] & free).bit_count() - 4
                m_mg += 4 * count
                m_eg += 4 * count
            bb = bishops & own
            while bb:
                square = (bb & -bb).bit_length() - 1
                bb &= bb - 1
                count = (diag[square][diag_masks[square] & occupied] & free).bit_count() - 6
                m_mg += 5 * count
                m_eg += 5 * count
            bb = rooks & own
            while bb:
                square = (bb & -bb).bit_length() - 1
                bb &= bb - 1
                attacks = (
                    rank[square][rank_masks[square] & occupied]
                    | file_[square][file_masks[square] & occupied]
                )
                count = (attacks & free).bit_count() - 7
                m_mg += 2 * count
                m_eg += 4 * count
                file = _FILE_MASKS[square & 7]
                if not pawns & file:
                    m_mg += 25  # an open file
                elif not pawns & file & own:
                    m_mg += 12  # half-open: none of its own pawns
            bb = queens & own
            while bb:
                square = (bb & -bb).bit_length() - 1
                bb &= bb - 1
                attacks = (
                    rank[square][rank_masks[square] & occupied]
                    | file_[square][file_masks[square] & occupied]
                    | diag[square][diag_masks[square] & occupied]
                )
                count = (attacks & free).bit_count() - 13
                m_mg += count
                m_eg += 2 * count
            mg += sign * m_mg
            eg += sign * m_eg
        total = mg * phase + eg * (PHASE_TOTAL - phase)
        # Rounded towards zero, so that a position and its mirror image score the same.
        score = total // PHASE_TOTAL if total >= 0 else -(-total // PHASE_TOTAL)
        score = _mop_up(board, score, phase)
        return (score if white_to_move else -score) + 10

    # -- the driver -----------------------------------------------------------------------

    def search(
        self,
        board: chess.Board,
        limits: Limits,
        on_info: Callable[[SearchInfo], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """The best move within ``limits``; ``board`` is left as it was."""
        clock = self.clock
        start = clock()
        self._should_stop = should_stop
        self.nodes = 0
        self.seldepth = 0
        hard = limits.maxtime if limits.maxtime is not None else limits.movetime
        self._deadline = start + hard if hard is not None else None
        soft_deadline: float | None = None
        if limits.movetime is not None:
            share = 0.7 if limits.maxtime is not None else 0.55
            soft_deadline = start + limits.movetime * share
        self._node_limit = limits.nodes
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        self.history = {move: score // 8 for move, score in self.history.items() if score >= 8}
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]
        work = board.copy()
        self._repetitions = _position_keys(work)
        moves = list(work.generate_legal_moves())
        if not moves:
            score = -MATE if work.is_check() else 0
            return SearchResult(None, score, 0, 0, clock() - start, ())
        if self.rng is not None:
            self.rng.shuffle(moves)
        tt_entry = self.tt.get(position_key(work))
        moves = self._order(work, moves, tt_entry[3] if tt_entry else None, 0)
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        terms = eval_terms(work)
        best: chess.Move = moves[0]
        best_score = 0
        completed = 0
        pv: tuple[chess.Move, ...] = (best,)
        timed = hard is not None
        for depth in range(1, max_depth + 1):
            try:
                score, move = self._aspirate(work, moves, depth, terms, best_score)
            except SearchAborted:
                if self._root_best is not None:
                    best, best_score = self._root_best
                    if pv[0] != best:
                        pv = (best,)
                break
            best, best_score, completed = move, score, depth
            moves.remove(move)
            moves.insert(0, move)
            pv = self._principal_variation(work, move, depth)
            elapsed = clock() - start
            if on_info is not None:
                on_info(
                    SearchInfo(depth, max(self.seldepth, depth), score, self.nodes, elapsed, pv)
                )
            if abs(score) >= MATE_BOUND and depth >= MATE - abs(score):
                break  # a mate found at full width cannot improve with depth
            if len(moves) == 1 and timed:
                break
            if soft_deadline is not None and clock() > soft_deadline:
                break  # the next iteration would not finish in time
        return SearchResult(best, best_score, completed, self.nodes, clock() - start, pv)

    def _check_limits(self) -> None:
        if self._should_stop is not None and self._should_stop():
            raise SearchAborted
        if (
            self._node_limit is not None
            and self.nodes >= self._node_limit
            and self.nodes % NODE_CHECK_EVERY == 0
        ):
            raise SearchAborted
        if self._deadline is not None and self.clock() >= self._deadline:
            raise SearchAborted

    def _aspirate(
        self,
        board: chess.Board,
        moves: list[chess.Move],
        depth: int,
        terms: tuple[int, int, int],
        previous: int,
    ) -> tuple[int, chess.Move]:
        """One iteration in a window around the last score, widened on a fail."""
        if depth < 4 or abs(previous) >= MATE_BOUND:
            return self._root_window(board, moves, depth, terms, -INFINITY, INFINITY)
        window = 35
        alpha, beta = previous - window, previous + window
        while True:
            score, move = self._root_window(board, moves, depth, terms, alpha, beta)
            if score <= alpha:
                alpha = max(score - window, -INFINITY)
            elif score >= beta:
                beta = min(score + window, INFINITY)
                moves.remove(move)
                moves.insert(0, move)
            else:
                return score, move
            window *= 3
            if window > 1000:
                alpha, beta = -INFINITY, INFINITY

    def _root_window(
        self,
        board: chess.Board,
        moves: list[chess.Move],
        depth: int,
        terms: tuple[int, int, int],
        alpha: int,
        beta: int,
    ) -> tuple[int, chess.Move]:
        """The root's moves in (alpha, beta): fail-soft, the best score and its move."""
        self._root_best = None
        mg, eg, phase = terms
        key = position_key(board)
        self._repetitions[key] = self._repetitions.get(key, 0) + 1
        original_alpha = alpha
        try:
            best_move, best_score = moves[0], -INFINITY
            for index, move in enumerate(moves):
                dmg, deg, dphase = _delta(board, move)
                board.push(move)
                try:
                    args = (mg + dmg, eg + deg, phase + dphase)
                    if index == 0:
                        score = -self._negamax(board, depth - 1, -beta, -alpha, 1, *args, True)
                    else:
                        score = -self._negamax(board, depth - 1, -alpha - 1, -alpha, 1, *args, True)
                        if alpha < score < beta:
                            score = -self._negamax(board, depth - 1, -beta, -alpha, 1, *args, True)
                finally:
                    board.pop()
                if score > best_score:
                    best_score = score
                    if score > alpha:
                        alpha, best_move = score, move
                        self._root_best = (move, score)
                        if score >= beta:
                            break
            if original_alpha < best_score < beta:
                self.tt[key] = (depth, _EXACT, best_score, best_move)
            return best_score, best_move
        finally:
            self._repetitions[key] -= 1

    # -- the tree -------------------------------------------------------------------------

    def _negamax(
        self,
        board: chess.Board,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        mg: int,
        eg: int,
        phase: int,
        null_ok: bool,
    ) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check_limits()
        key = position_key(board)
        if self._repetitions.get(key, 0) or board.halfmove_clock >= 100:
            return 0
        in_check = board.is_check()
        if in_check:
            depth += 1
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(board, alpha, beta, ply, mg, eg, phase)
        pv_node = beta - alpha > 1
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_flag, e_score, tt_move = entry
            if e_depth >= depth and not pv_node:
                score = _from_tt(e_score, ply)
                if (
                    e_flag == _EXACT
                    or (e_flag == _LOWER and score >= beta)
                    or (e_flag == _UPPER and score <= alpha)
                ):
                    return score
        us = board.turn
        static = -INFINITY
        if not in_check:
            static = self._eval(board, mg, eg, phase)
            if not pv_node and abs(beta) < MATE_BOUND:
                if depth <= 6 and static - _RFP_MARGIN * depth >= beta:
                    return static  # reverse futility: far above beta, a quiet move keeps it
                if depth <= 2 and static + 200 + 150 * depth < alpha:
                    score = self._quiesce(board, alpha, beta, ply, mg, eg, phase)
                    if score < beta:
                        return score  # razoring: nothing but captures can save this
                if (
                    null_ok
                    and depth >= 3
                    and static >= beta
                    and board.occupied_co[us] & ~(board.pawns | board.kings)
                ):
                    board.push(chess.Move.null())
                    try:
                        score = -self._negamax(
                            board, depth - 3 - depth // 4, -beta, -beta + 1, ply + 1,
                            mg, eg, phase, False,
                        )  # fmt: skip
                    finally:
                        board.pop()
                    if score >= beta:
                        return beta
        futile = (
            not pv_node
            and not in_check
            and depth <= 3
            and abs(alpha) < MATE_BOUND
            and static + _FUTILITY[depth] <= alpha
        )
        # The hash move needs no legality test: the key is the whole position (pieces, side,
        # castling, en passant), so the move was legal where it was stored.
        original_alpha = alpha
        best_score, best_move = -INFINITY, None
        searched = quiets = tried = 0
        killers = self.killers[ply]
        repetitions = self._repetitions
        repetitions[key] = repetitions.get(key, 0) + 1
        try:
            for move in self._staged(board, tt_move, ply):
                tried += 1
                quiet = not move.promotion and not board.is_capture(move)
                late = False
                if quiet:
                    quiets += 1
                    late = (
                        searched > 0
                        and not in_check
                        and not pv_node
                        and move != tt_move
                        and move not in killers
                        and (futile or (depth <= 3 and quiets > _LMP[depth]))
                    )
                if late and not direct_check(board, move):
                    continue  # futility and late-move pruning (never of a direct check)
                dmg, deg, dphase = _delta(board, move)
                board.push(move)
                try:
                    gives_check = board.is_check()
                    args = (mg + dmg, eg + deg, phase + dphase)
                    if searched == 0:
                        score = -self._negamax(
                            board, depth - 1, -beta, -alpha, ply + 1, *args, True
                        )
                    else:
                        reduce = 0
                        if depth >= 3 and quiet and not in_check and not gives_check:
                            reduce = _LMR[min(depth, 63)][min(searched, 63)]
                            if pv_node or move in killers:
                                reduce -= 1
                            reduce = max(0, min(reduce, depth - 2))
                        score = -self._negamax(
                            board, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1, *args, True
                        )
                        if score > alpha and reduce:
                            score = -self._negamax(
                                board, depth - 1, -alpha - 1, -alpha, ply + 1, *args, True
                            )
                        if alpha < score < beta:
                            score = -self._negamax(
                                board, depth - 1, -beta, -alpha, ply + 1, *args, True
                            )
                finally:
                    board.pop()
                searched += 1
                if score > best_score:
                    best_score, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if quiet:
                                self._remember_quiet(move, ply, depth)
                            break
        finally:
            repetitions[key] -= 1
        if tried == 0:
            return -MATE + ply if in_check else 0
        if searched == 0:
            return alpha  # every move pruned (cannot happen: the first is never pruned)
        flag = _LOWER if best_score >= beta else _EXACT if best_score > original_alpha else _UPPER
        self.tt[key] = (depth, flag, _to_tt(best_score, ply), best_move)
        return best_score

    def _principal_variation(
        self, board: chess.Board, first: chess.Move, depth: int
    ) -> tuple[chess.Move, ...]:
        pv = [first]
        work = board.copy(stack=False)
        work.push(first)
        seen = {position_key(work)}
        while len(pv) < depth:
            entry = self.tt.get(position_key(work))
            if entry is None or entry[3] is None or not work.is_legal(entry[3]):
                break
            work.push(entry[3])
            key = position_key(work)
            if key in seen:
                break
            seen.add(key)
            pv.append(entry[3])
        return tuple(pv)

    def _staged(
        self, board: chess.Board, tt_move: chess.Move | None, ply: int
    ) -> Iterator[chess.Move]:
        """The legal moves in the order to try them, each stage generated only when the one
        before it did not cut off: the hash move, captures (most valuable victim, least
        valuable attacker), the killers, then the quiet moves (promotions, then history)."""
        if tt_move is not None:
            yield tt_move
        captures = [move for move in board.generate_legal_captures() if move != tt_move]
        if captures:
            captures.sort(key=lambda move: _capture_order(board, move), reverse=True)
            yield from captures
        tried = [tt_move]
        for killer in self.killers[ply]:
            if (
                killer is not None
                and killer not in tried
                and not board.is_capture(killer)
                and board.is_legal(killer)
            ):
                tried.append(killer)
                yield killer
        history = self.history
        quiet = [
            move
            for move in board.generate_legal_moves(
                chess.BB_ALL, ~board.occupied_co[not board.turn] & chess.BB_ALL
            )
            if move not in tried and not board.is_en_passant(move)
        ]
        quiet.sort(
            key=lambda move: (
                (move.promotion or 0) * 100_000_000
                + history.get((move.from_square, move.to_square), 0)
            ),
            reverse=True,
        )
        yield from quiet

    def _quiesce(
        self, board: chess.Board, alpha: int, beta: int, ply: int, mg: int, eg: int, phase: int
    ) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check_limits()
        self.seldepth = max(self.seldepth, ply)
        if ply >= MAX_PLY:
            return self._eval(board, mg, eg, phase)
        in_check = board.is_check()
        them = not board.turn
        if in_check:
            moves = list(board.generate_legal_moves())
            if not moves:
                return -MATE + ply
            best = stand = -INFINITY
        else:
            us = board.occupied_co[board.turn]
            if not us & ~(board.kings | board.pawns) and not any(board.generate_legal_moves()):
                return 0  # stalemate: with king and pawns alone it is not rare
            stand = self._eval(board, mg, eg, phase, alpha, beta)
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            moves = list(board.generate_legal_captures())
            promoting = (
                board.pawns
                & board.occupied_co[board.turn]
                & (chess.BB_RANK_7 if board.turn == chess.WHITE else chess.BB_RANK_2)
            )
            if promoting:
                moves += [
                    move
                    for move in board.generate_legal_moves(
                        promoting, ~board.occupied & chess.BB_ALL
                    )
                    if move.promotion == chess.QUEEN
                ]
        moves.sort(key=lambda move: _capture_order(board, move), reverse=True)
        for move in moves:
            if not in_check and not move.promotion:
                victim = VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
                if stand + victim + 200 < alpha:
                    continue  # delta pruning: even winning this cannot raise alpha
                attacker = VALUES[board.piece_type_at(move.from_square) or chess.PAWN]
                if attacker > victim + 50 and board.is_attacked_by(them, move.to_square):
                    continue  # a bigger piece takes a defended smaller one: likely a loss
            dmg, deg, dphase = _delta(board, move)
            board.push(move)
            try:
                score = -self._quiesce(
                    board, -beta, -alpha, ply + 1, mg + dmg, eg + deg, phase + dphase
                )
            finally:
                board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best


# -- levels 1 to 3 ---------------------------------------------------------------------


def level1(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random legal move."""
    return rng.choice(list(board.generate_legal_moves()))


def is_capture_or_check(board: chess.Board, move: chess.Move) -> bool:
    return board.is_capture(move) or board.gives_check(move)


def level2(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random capture or check if there is one, else a random move."""
    moves = list(board.generate_legal_moves())
    preferred = [move for move in moves if is_capture_or_check(board, move)]
    return rng.choice(preferred or moves)


def exposure(board: chess.Board, move: chess.Move) -> int:
    """The value of the most valuable piece of ours the opponent could capture after ``move``."""
    board.push(move)
    try:
        worst = 0
        for reply in board.generate_legal_captures():
            victim = board.piece_type_at(reply.to_square) or chess.PAWN  # en passant: a pawn
            worst = max(worst, VALUES[victim])
        return worst
    finally:
        board.pop()


def level3_key(board: chess.Board, move: chess.Move) -> tuple[int, bool, bool]:
    """Smaller is better: exposure first, then captures, then checks."""
    return (exposure(board, move), not board.is_capture(move), not board.gives_check(move))


def level3(board: chess.Board, rng: random.Random) -> chess.Move:
    """Avoid capture first, then prefer captures, then checks; random among equals."""
    work = board.copy()
    keyed = [(level3_key(work, move), move) for move in work.generate_legal_moves()]
    best = min(key for key, _ in keyed)
    return rng.choice([move for key, move in keyed if key == best])


@attrs.define(eq=False)
class ComputerPlayer:
    """A computer player of some level with its own generator (and, at level 4, its search)."""

    level: int = attrs.field(validator=attrs.validators.in_((1, 2, 3, 4)))
    rng: random.Random = attrs.field(factory=random.Random)
    limits: Limits = attrs.field(factory=lambda: Limits(movetime=1.0))
    searcher: Searcher | None = None

    def choose(
        self, board: chess.Board, should_stop: Callable[[], bool] | None = None
    ) -> chess.Move:
        """A legal move for the side to move (the position must have one). ``should_stop``
        ends level 4's search early with its best move so far (see `Searcher.search`)."""
        if self.level == 1:
            return level1(board, self.rng)
        if self.level == 2:
            return level2(board, self.rng)
        if self.level == 3:
            return level3(board, self.rng)
        if self.searcher is None:
            self.searcher = Searcher(self.rng)
        result = self.searcher.search(board, self.limits, should_stop=should_stop)
        assert result.move is not None
        return result.move


LEVELS: Sequence[int] = (1, 2, 3, 4)
