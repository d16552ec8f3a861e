"""The rules of chess as pure functions over `ChessState`, on python-chess.

Legality, check, checkmate and stalemate are decided here, in-process; the engine is asked
only for what needs it (a best move, the perft move list). Moves are long-algebraic strings
exactly as Stockfish's ``position ... moves`` accepts them: ``e2e4``, ``e1g1`` for castling,
``a7a8q`` for a promotion (the promotion letter may be upper case, as Stockfish allows;
square letters may not). Anything else (``e1h1`` castling, ``0000``, ``E2E4``) is illegal,
exactly as Stockfish would ignore it.

`ChessState` is an immutable value: the starting FEN and the moves played (``==`` compares
those); the python-chess board is a derived cache that is never mutated.

The one rules object of chess is the declaration, `hub.chess.game.ChessGame`, which calls
these; its draw policy (`Draws`) and ply cap are its settings. UQChess games and the
console's end only by checkmate or stalemate (or resignation, which the server decides):
their specs know no other ending (`Draws.NONE`). The declared game's default adds the FIDE
automatic draws (`Draws.FIDE`) so that every game ends, as the rules' contract and
`hub.testing.check_game` require; ``hub match chess`` adds an arbiter's (`Draws.ARBITER`)
and a ply cap.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Sequence

import attrs
import chess

from hub.chess.board_art import board_lines
from hub.core.model.referee import ADJUDICATED, IllegalMove, Outcome

WHITE_SEAT = 0
BLACK_SEAT = 1
COLOUR_NAMES = ("white", "black")

MAX_STARTPOS_MOVES = 600
"""Beyond this many plies, `position_command` sends a FEN plus a bounded tail of moves."""
MAX_TAIL_MOVES = 100
"""Plies kept after the FEN (Stockfish needs no more for repetitions or the 50-move rule)."""

WIN, DRAW = 2, 1
"""`outcome`'s scores, in half points: a win 2, a draw 1 for each side."""

MAX_STACK = 150
"""Plies of history a board keeps: enough for fivefold repetition under the 75-move rule."""


class Draws(enum.Enum):
    """A chess game's draw policy (a setting of the one rules object,
    `hub.chess.game.ChessGame`); checkmate and stalemate end every game."""

    FIDE = "fide"
    """The FIDE automatic draws (insufficient material, the seventy-five-move rule,
    fivefold repetition), so that every game ends: the declared game's."""
    NONE = "none"
    """No other ending: UQChess and the chess console (their specs know none)."""
    ARBITER = "arbiter"
    """The draws an arbiter declares in engine matches (insufficient material, the
    fifty-move rule, threefold repetition), as cutechess and fastchess do."""

    # `outcome` keys its cache by (policy, ply cap) several times a move: the identity hash
    # in C, not `enum.Enum.__hash__`, a Python call (members compare by identity anyway)
    __hash__ = object.__hash__


@attrs.define(eq=False)
class _Lazy:
    """The derived, never-mutated python-chess board of a state, computed on first use."""

    board: chess.Board | None = None
    parent: ChessState | None = None
    move: chess.Move | None = None
    endings: dict[tuple[Draws, int], Outcome | None] = attrs.Factory(dict)


@attrs.frozen
class ChessState:
    """A position as the start FEN plus the moves played (``==`` compares these).

    ``board`` is derived (from the parent state when the state came from `play`,
    so a referee's checks do not replay the game) and must be treated as read-only.
    """

    start_fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    _lazy: _Lazy = attrs.field(factory=_Lazy, eq=False, repr=False, alias="lazy")

    @property
    def board(self) -> chess.Board:
        lazy = self._lazy
        if lazy.board is None:
            if lazy.parent is not None and lazy.move is not None:
                board = _child(lazy.parent.board, lazy.move)
            else:
                board = _replay(self.start_fen, self.moves)
            lazy.board, lazy.parent, lazy.move = board, None, None
        return lazy.board

    @property
    def turn_seat(self) -> int:
        return WHITE_SEAT if self.board.turn == chess.WHITE else BLACK_SEAT

    def __deepcopy__(self, memo: dict[int, object]) -> ChessState:
        return self  # an immutable value


def _child(parent: chess.Board, move: chess.Move) -> chess.Board:
    """``parent`` after ``move``, with the history back to the last capture or pawn move
    (positions before it cannot repeat: repetition checks stay right and a move costs the
    same all game long, up to `MAX_STACK` plies). python-chess's ``copy(stack=N)`` copies
    each of those N moves; they are never changed, so the child shares them (and the
    board states behind them, as ``copy`` does)."""
    keep = min(parent.halfmove_clock, MAX_STACK)
    board = parent.copy(stack=False)
    if keep:
        board.move_stack = parent.move_stack[-keep:]
        board._stack = parent._stack[-keep:]
    board.push(move)
    return board


def _replay(fen: str, moves: Sequence[str]) -> chess.Board:
    board = chess.Board(fen)
    for move in moves:
        board.push(chess.Move.from_uci(move))
    return board


def normalise(text: str) -> str:
    """The move as Stockfish reads it: a 5th (promotion) character is lower-cased."""
    return text[:4] + text[4:].lower()


def initial(fen: str = chess.STARTING_FEN) -> ChessState:
    """The position ``fen`` (default the usual start); raises `ValueError` for a bad FEN."""
    chess.Board(fen)
    return ChessState(fen)


def outcome(state: ChessState, draws: Draws = Draws.FIDE, max_plies: int = 0) -> Outcome | None:
    """The outcome of ``state`` under the draw policy ``draws`` and the ply cap
    ``max_plies`` (0: none), None while the game goes on; worked out once per state and
    policy (the match loop asks several times a move).

    In half points, as the core records a draw: checkmate scores the winner `WIN`; a draw
    scores `DRAW` each and names both seats winners (``1/2-1/2``). ``detail`` says how it
    ended (``checkmate``, ``stalemate``, ``insufficient material``, ``seventy-five-move
    rule``, ``fivefold repetition``, ``fifty-move rule``, ``threefold repetition``,
    ``adjudicated: N plies``)."""
    endings = state._lazy.endings
    key = (draws, max_plies)
    if key not in endings:
        endings[key] = _outcome(state, draws, max_plies)
    return endings[key]


def _outcome(state: ChessState, draws: Draws, max_plies: int) -> Outcome | None:
    board = state.board
    if not any(board.generate_legal_moves()):
        if board.is_check():
            winner = BLACK_SEAT if state.turn_seat == WHITE_SEAT else WHITE_SEAT
            scores = [0, 0]
            scores[winner] = WIN
            return Outcome(scores, {winner}, detail="checkmate")
        return _draw("stalemate")
    if draws is Draws.FIDE:
        if board.is_insufficient_material():
            return _draw("insufficient material")
        if board.is_seventyfive_moves():
            return _draw("seventy-five-move rule")
        if board.is_fivefold_repetition():
            return _draw("fivefold repetition")
    elif draws is Draws.ARBITER:
        if board.is_insufficient_material():
            return _draw("insufficient material")
        if board.halfmove_clock >= 100:
            return _draw("fifty-move rule")
        if board.is_repetition(3):
            return _draw("threefold repetition")
    if max_plies and len(state.moves) >= max_plies:
        return _draw(f"{ADJUDICATED}{max_plies} plies")
    return None


def _draw(detail: str) -> Outcome:
    return Outcome((DRAW, DRAW), {WHITE_SEAT, BLACK_SEAT}, detail=detail)


def legal_moves(state: ChessState) -> list[str]:
    """Every legal move of the side to move, by the board alone (the caller checks that
    the game goes on)."""
    return [move.uci() for move in state.board.generate_legal_moves()]


def candidate_moves(state: ChessState) -> list[str]:
    """Legal moves, pseudo-legal ones for either side, and malformed-but-parsable ones."""
    board = state.board
    seen: dict[str, None] = {}
    for move in board.generate_pseudo_legal_moves():
        seen[move.uci()] = None
    other = board.copy(stack=False)
    other.turn = not other.turn
    for move in other.generate_pseudo_legal_moves():
        seen[move.uci()] = None
    for extra in ("0000", "e1h1", "e8h8", "e1c1", "e2e4", "a7a8k", "a2a1q", "E2E4", "h7h8Q"):
        seen[extra] = None
    return list(seen)


def parse(state: ChessState, text: str) -> chess.Move:
    """The legal move ``text`` names (Stockfish's reading), or raise `IllegalMove`.

    The legal move whose UCI text is ``text`` normalised: only the moves of the piece
    on the square it names are generated (a whole position's legal moves cost every
    move of every game about 60 µs), and a text that is not a move's own UCI spelling
    names none."""
    wanted = normalise(text)
    try:
        move = chess.Move.from_uci(wanted)
    except ValueError:
        move = chess.Move.null()
    if move and move.uci() == wanted:
        # from its square only: python-chess generates castling as the king's move to
        # its rook's square, so a mask on the target square would miss it
        for legal in state.board.generate_legal_moves(chess.BB_SQUARES[move.from_square]):
            if legal == move:
                return legal
    raise IllegalMove(f"{text!r} is not a legal move")


def play(state: ChessState, move: str) -> ChessState:
    """The state after the legal ``move`` (the caller checks that the game goes on);
    raises `IllegalMove`."""
    parsed = parse(state, move)
    lazy = _Lazy(parent=state, move=parsed)
    return ChessState(state.start_fen, (*state.moves, parsed.uci()), lazy)


def colour_name(seat: int) -> str:
    return COLOUR_NAMES[seat]


def render_board(state: ChessState) -> list[str]:
    """The board exactly as Stockfish 15.1's ``d`` prints it, from the first blank line
    through the blank line after the file letters (20 lines, white at the bottom)."""
    return board_lines(state.board)


@functools.lru_cache(maxsize=256)
def _fen_of(start_fen: str) -> str:
    """A start position's FEN as python-chess writes it (as given it may lack the counters or
    name an en passant square no pawn can take on)."""
    return chess.Board(start_fen).fen()


def position_command(state: ChessState) -> str:
    """The UCI ``position`` command for ``state``, bounded in length.

    ``position startpos [moves ...]`` for an ordinary game, ``position fen START [moves
    ...]`` for a game from a FEN; for a very long one, ``position fen F [moves ...]`` with F
    a few plies back, so that the engine still sees what it needs for repetitions and the
    50-move rule.
    """
    moves = state.moves
    if len(moves) <= MAX_STARTPOS_MOVES:  # (every move since the start: no board is needed)
        return _from_start(state.start_fen, moves)
    tail = min(len(moves), MAX_TAIL_MOVES, state.board.halfmove_clock)
    root = state.board.copy()
    for _ in range(tail):
        root.pop()
    command = f"position fen {root.fen()}"
    if tail:
        command += " moves " + " ".join(moves[len(moves) - tail :])
    return command


def position_command_after(state: ChessState, move: str) -> str | None:
    """`position_command` for ``state`` after ``move`` (UCI, not yet checked), without
    making that state: what an engine is sent before the referee has checked the move
    (`hub.chess.seats.UciSeat.foresee`). The same text as `position_command` gives once
    the move is played; None for a game too long to list from its start."""
    moves = state.moves
    if len(moves) + 1 > MAX_STARTPOS_MOVES:
        return None
    return _from_start(state.start_fen, (*moves, move))


def _from_start(start_fen: str, moves: Sequence[str]) -> str:
    listed = " moves " + " ".join(moves) if moves else ""
    if start_fen == chess.STARTING_FEN:
        return "position startpos" + listed
    return f"position fen {_fen_of(start_fen)}{listed}"


RepetitionKey = tuple[int, int, int, int, int, int, int, int, bool, int, int | None]
"""What makes two positions the same for a repetition (`position_key`)."""


def position_key(board: chess.Board) -> RepetitionKey:
    """The position as FIDE counts repetitions: the same pieces on the same squares, the same
    side to move, the same castling rights and the same en passant capture (only when one is
    legal). Built from python-chess's public attributes alone."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.turn,
        board.clean_castling_rights(),
        board.ep_square if board.has_legal_en_passant() else None,
    )


def repetition_count(start_fen: str, moves: Sequence[str], board: chess.Board | None = None) -> int:
    """How many times the position after ``moves`` has occurred in the game (`position_key`).

    ``board``, that position with its move stack (a `ChessState`'s), lets only the plies
    since the last capture or pawn move be looked at, as no earlier position can come
    back, instead of replaying the game from its start at every move; when its stack is
    shorter than those plies (kept to `MAX_STACK`), the game is replayed."""
    if board is not None:
        stack = len(board.move_stack)
        since = min(board.halfmove_clock, len(moves))  # this game's reversible plies
        if since <= stack:
            key = position_key(board)
            earlier = board.copy(stack=since)
            count = 1
            for _ in range(since):
                earlier.pop()
                count += position_key(earlier) == key
            return count
    board = chess.Board(start_fen)
    keys = [position_key(board)]
    for text in moves:
        board.push(chess.Move.from_uci(text))
        keys.append(position_key(board))
    return keys.count(keys[-1])
