"""``hub play chess``: chess in the terminal, one command a line (specs/chess-console.md).

`Console` is pure (sans-IO): `Console.handle` takes one input line and returns the lines to
print; `Console.finish` is the end of the input (the final score). The rules are UQChess's
`ChessReferee` with ``automatic_draws=False`` (only checkmate, stalemate and resignation end
a game); the state is a `ChessState` value, so ``undo`` is a step back to an earlier value.
`main` is the thin trio adapter: bounded lines from standard input (any bytes; a line cut by
the end of the input still counts), EPIPE-safe output, exit status 0 at the end of input.

Options: ``--classic`` (the assignment alone: no undo, history, SAN input, repetition notice,
hint, help, nor the line naming a computer's move), ``--seed N`` (every computer level and
hint reproducible), ``--movetime MS`` (level 4's budget per move, default 1000), ``--nodes N``
(level 4's budget in nodes; with ``--seed`` and no ``--movetime`` it defaults to
`SEEDED_NODES`, so that a seeded game replays exactly whatever the machine's speed).
"""

from __future__ import annotations

import enum
import random
import sys
from collections.abc import Sequence

import attrs
import chess

from hub.core.lines import LineError, LineStream, LineTooLong, PeerClosed
from hub.core.output import Output
from hub.core.referee import IllegalMove
from hub.core.running import run_program
from hub.core.stdin import ThreadedFdReceiveStream
from hub.core.text import parse_whole_number
from hub.games.uqchess.ai import ComputerPlayer, Limits, Searcher
from hub.games.uqchess.rules import BLACK_SEAT, WHITE_SEAT, ChessReferee, ChessState, Ending

MAX_LINE = 1024
SEEDED_NODES = 40_000
"""Level 4's budget with ``--seed``: 0.5-0.8 s a move on the reference machine (docs/chess.md)."""
DEFAULT_MOVETIME_MS = 1000
MAX_MOVETIME_MS = 3_600_000
MAX_NODES = 100_000_000
LEVELS = {f"computer{level}": level for level in (1, 2, 3, 4)}
COLOURS = ("White", "Black")

USAGE = "Usage: hub play chess [--classic] [--seed N] [--movetime MS] [--nodes N]"

INVALID = "Invalid command."
INVALID_HELP = "Invalid command (type help for the commands)."
NO_GAME = "No game in progress."
GAME_RUNNING = "A game is in progress."
GAME_USAGE = "Usage: game white-player black-player (human or computer1 .. computer4)"
MOVE_USAGE = "Usage: move from-square to-square [Q|R|B|N] (e.g. move e2 e4)"
MOVE_USAGE_SAN = "Usage: move from-square to-square [Q|R|B|N] (e.g. move e2 e4), or move Nf3"
ILLEGAL = "Illegal move."
AMBIGUOUS = "Ambiguous move: add the piece's file or rank (e.g. Nbd2)."
NEEDS_PROMOTION = "A promotion needs a piece letter: Q, R, B or N (e.g. move e7 e8 Q)."
NOT_PROMOTION = "Only a pawn reaching the last rank takes a piece letter."
BAD_PROMOTION = "A pawn promotes to Q, R, B or N."
LINE_TOO_LONG = "Line too long."
SETUP_USAGE = "Setup mode: + piece square (e.g. + K e1), - square, = white|black, or done."
SETUP_DONE = "Setup complete."
NO_MOVES_YET = "No moves yet."

HELP = [
    "Commands:",
    "  game white-player black-player   start a game; players: human, computer1 .. computer4",
    "  move e2 e4 | move e7 e8 Q | move Nf3 | move O-O   a human's move",
    "  move                             let the computer whose turn it is move",
    "  resign                           concede the game",
    "  undo                             take back the last move (and the computer's reply)",
    "  history                          the moves so far",
    "  hint                             a suggested move from the level-4 search",
    "  setup                            set up a position (+ K e1, - e1, = white|black, done)",
    "  end of input (Ctrl-D)            print the final score and leave",
]


class Mode(enum.Enum):
    IDLE = "idle"
    GAME = "game"
    SETUP = "setup"


@attrs.frozen
class ConsoleOptions:
    classic: bool = False
    seed: int | None = None
    movetime_ms: int | None = None
    nodes: int | None = None

    @property
    def limits(self) -> Limits:
        """Level 4's (and ``hint``'s) budget per move."""
        if self.nodes is not None:
            return Limits(nodes=self.nodes)
        if self.seed is not None and self.movetime_ms is None:
            return Limits(nodes=SEEDED_NODES)
        return Limits(movetime=(self.movetime_ms or DEFAULT_MOVETIME_MS) / 1000)


Player = ComputerPlayer | None
"""None for a human."""


# -- pure helpers ------------------------------------------------------------------------


def board_display(board: chess.BaseBoard) -> list[str]:
    """The board as the spec shows it: rank digit, a space, 8 squares; blank; file letters."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            if piece is not None:
                cells.append(piece.symbol())
            else:
                cells.append("_" if (file + rank) % 2 == 0 else " ")
        lines.append(f"{rank + 1} {''.join(cells)}")
    return [*lines, "", "  abcdefgh"]


def format_points(half_points: int) -> str:
    """2 -> ``1``, 3 -> ``1.5``, 1 -> ``0.5``: whole numbers without a decimal point."""
    whole, half = divmod(half_points, 2)
    return f"{whole}.5" if half else str(whole)


def parse_square(text: str) -> chess.Square | None:
    if len(text) == 2 and text[0].lower() in "abcdefgh" and text[1] in "12345678":
        return chess.parse_square(text.lower())
    return None


def setup_problems(board: chess.BaseBoard) -> list[str]:
    """Why ``done`` may not leave setup mode (empty when the position is fine)."""
    problems = []
    for colour, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        if chess.popcount(board.pieces_mask(chess.KING, colour)) != 1:
            problems.append(f"There must be exactly one {name} king.")
    if board.pawns & chess.BB_BACKRANKS:
        problems.append("No pawn may stand on rank 1 or 8.")
    if not problems:
        for colour, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
            king = board.king(colour)
            if king is not None and board.is_attacked_by(not colour, king):
                problems.append(f"{name} is in check.")
    return problems


def setup_fen(board: chess.BaseBoard, turn: chess.Color) -> str:
    """The FEN of a set-up position: castling rights wherever king and rook stand unmoved."""
    rights = ""
    for symbol, king, rook in (
        ("K", "e1", "h1"),
        ("Q", "e1", "a1"),
        ("k", "e8", "h8"),
        ("q", "e8", "a8"),
    ):
        colour = symbol.isupper()
        king_piece = board.piece_at(chess.parse_square(king))
        rook_piece = board.piece_at(chess.parse_square(rook))
        if king_piece == chess.Piece(chess.KING, colour) and rook_piece == chess.Piece(
            chess.ROOK, colour
        ):
            rights += symbol
    side = "w" if turn == chess.WHITE else "b"
    return f"{board.board_fen()} {side} {rights or '-'} - 0 1"


def repetition_count(start_fen: str, moves: Sequence[str]) -> int:
    """How many times the position after ``moves`` has occurred in the game (same pieces,
    side to move, castling rights and en passant capture, as FIDE counts repetitions)."""
    board = chess.Board(start_fen)
    final = [chess.Move.from_uci(text) for text in moves]
    keys = [board._transposition_key()]
    for move in final:
        board.push(move)
        keys.append(board._transposition_key())
    return keys.count(keys[-1])


def move_words(move: chess.Move) -> str:
    """A move as the ``move`` command takes it: ``e2 e4``, ``e7 e8 Q``."""
    text = f"{chess.square_name(move.from_square)} {chess.square_name(move.to_square)}"
    if move.promotion:
        text += " " + chess.piece_symbol(move.promotion).upper()
    return text


# -- the console -------------------------------------------------------------------------


class Console:
    """The state of a console session and what each command line prints."""

    def __init__(self, options: ConsoleOptions | None = None) -> None:
        self.options = options or ConsoleOptions()
        self.referee = ChessReferee(automatic_draws=False)
        self.rng = random.Random(self.options.seed)
        self.mode = Mode.IDLE
        self.state: ChessState | None = None
        """The current game, or the last finished one (for ``history``)."""
        self.players: tuple[Player, Player] = (None, None)
        self.half_points = [0, 0]
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen: str | None = None
        """A completed set-up position, used by the next ``game``."""
        self._hint_searcher = Searcher()

    # -- entry points ---------------------------------------------------------------------

    def handle(self, line: str) -> list[str]:
        """The output for one input line (without its newline)."""
        words = line.split()
        if not words:
            return []
        if self.mode is Mode.SETUP:
            return self._setup_command(words)
        verb, args = words[0], words[1:]
        extras = not self.options.classic
        if verb == "game":
            return self._game(args)
        if verb == "move":
            return self._move(args)
        if verb == "resign" and not args:
            return self._resign()
        if verb == "setup" and not args:
            return self._enter_setup()
        if extras and not args:
            if verb == "undo":
                return self._undo()
            if verb == "history":
                return self._history()
            if verb == "hint":
                return self._hint()
            if verb == "help":
                return list(HELP)
        return [INVALID_HELP if extras else INVALID]

    def finish(self) -> list[str]:
        """The end of the input: the final score (a game still running is not scored)."""
        return [
            "Final Score:",
            f"White: {format_points(self.half_points[WHITE_SEAT])}",
            f"Black: {format_points(self.half_points[BLACK_SEAT])}",
        ]

    def line_too_long(self) -> list[str]:
        return [LINE_TOO_LONG]

    # -- games ----------------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        assert self.state is not None
        return self.state.board

    def _game(self, args: Sequence[str]) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        if len(args) != 2 or any(arg != "human" and arg not in LEVELS for arg in args):
            return [GAME_USAGE]
        self.players = (self._player(args[0]), self._player(args[1]))
        fen, self.pending_fen = self.pending_fen or chess.STARTING_FEN, None
        self.state = self.referee.initial(fen)
        self.mode = Mode.GAME
        self._hint_searcher.clear()
        return self._after_change(announce=None)

    def _player(self, name: str) -> Player:
        if name == "human":
            return None
        rng = random.Random(self.rng.getrandbits(64))
        return ComputerPlayer(LEVELS[name], rng, self.options.limits)

    def _to_move(self) -> int:
        assert self.state is not None
        return self.state.turn_seat

    def _move(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.state is None:
            return [NO_GAME]
        seat = self._to_move()
        player = self.players[seat]
        colour = COLOURS[seat]
        if player is not None:
            if args:
                return [f"{colour} is a computer: type move alone to let it play."]
            move = player.choose(self.board.copy())
            announce = None if self.options.classic else f"{colour} plays {move_words(move)}."
            return self._play(move, announce)
        if not args:
            return [f"{colour} is a human: move needs squares (e.g. move e2 e4)."]
        parsed = self._parse_human_move(args)
        if isinstance(parsed, str):
            return [parsed]
        return self._play(parsed, None)

    def _parse_human_move(self, args: Sequence[str]) -> chess.Move | str:
        """The legal move the arguments name, or the message saying why there is none."""
        usage = MOVE_USAGE if self.options.classic else MOVE_USAGE_SAN
        if len(args) == 1 and not self.options.classic:
            return self._parse_san(args[0])
        if len(args) not in (2, 3):
            return usage
        origin, target = parse_square(args[0]), parse_square(args[1])
        if origin is None or target is None:
            return usage
        promotion: chess.PieceType | None = None
        if len(args) == 3:
            letter = args[2]
            if len(letter) != 1 or letter.upper() not in "QRBN":
                return BAD_PROMOTION
            promotion = chess.PIECE_SYMBOLS.index(letter.lower())
        candidates = [
            move
            for move in self.board.generate_legal_moves()
            if move.from_square == origin and move.to_square == target
        ]
        if not candidates:
            return ILLEGAL
        if candidates[0].promotion is None:
            return NOT_PROMOTION if promotion is not None else candidates[0]
        if promotion is None:
            return NEEDS_PROMOTION
        return next(move for move in candidates if move.promotion == promotion)

    def _parse_san(self, text: str) -> chess.Move | str:
        board = self.board
        try:
            return board.parse_san(text)
        except chess.AmbiguousMoveError:
            return AMBIGUOUS
        except ValueError:
            pass
        try:
            board.parse_san(text + "=Q")
        except ValueError:
            return ILLEGAL
        return NEEDS_PROMOTION

    def _play(self, move: chess.Move, announce: str | None) -> list[str]:
        assert self.state is not None
        try:
            self.state = self.referee.apply(self.state, move.uci())
        except IllegalMove:  # pragma: no cover - moves come from the legal ones
            return [ILLEGAL]
        return self._after_change(announce)

    def _after_change(self, announce: str | None) -> list[str]:
        """The board and the status after a move (or at the start of a game)."""
        assert self.state is not None
        board = self.board
        lines = [] if announce is None else [announce]
        lines += board_display(board)
        ending = self.referee.ending(self.state)
        if ending is Ending.CHECKMATE:
            winner = BLACK_SEAT if self._to_move() == WHITE_SEAT else WHITE_SEAT
            lines.append(f"Checkmate! {COLOURS[winner]} wins!")
            self._end(winner)
        elif ending is not None:  # stalemate: the only other ending without automatic draws
            lines.append("Stalemate!")
            self._end(None)
        else:
            if board.is_check():
                lines.append(f"{COLOURS[self._to_move()]} is in check.")
            if not self.options.classic:
                count = repetition_count(self.state.start_fen, self.state.moves)
                if count >= 3:
                    lines.append(
                        f"Threefold repetition: this position has occurred {count} times "
                        "(the game goes on)."
                    )
        return lines

    def _end(self, winner: int | None) -> None:
        if winner is None:
            self.half_points[WHITE_SEAT] += 1
            self.half_points[BLACK_SEAT] += 1
        else:
            self.half_points[winner] += 2
        self.mode = Mode.IDLE

    def _resign(self) -> list[str]:
        if self.mode is not Mode.GAME:
            return [NO_GAME]
        humans = [seat for seat in (WHITE_SEAT, BLACK_SEAT) if self.players[seat] is None]
        loser = humans[0] if len(humans) == 1 else self._to_move()
        winner = BLACK_SEAT if loser == WHITE_SEAT else WHITE_SEAT
        self._end(winner)
        return [f"{COLOURS[winner]} wins!"]

    # -- extras ---------------------------------------------------------------------------

    def _undo(self) -> list[str]:
        if self.mode is not Mode.GAME or self.state is None:
            return [NO_GAME]
        state = self.state
        if not state.moves:
            return ["Nothing to undo."]
        has_human = None in self.players
        state = ChessState(state.start_fen, state.moves[:-1])
        # With a human playing a computer, take back to the human's turn.
        while has_human and state.moves and self.players[state.turn_seat] is not None:
            state = ChessState(state.start_fen, state.moves[:-1])
        self.state = state
        return self._after_change(None)

    def _history(self) -> list[str]:
        if self.state is None:
            return [NO_GAME]
        if not self.state.moves:
            return [NO_MOVES_YET]
        start = chess.Board(self.state.start_fen)
        moves = [chess.Move.from_uci(text) for text in self.state.moves]
        return [start.variation_san(moves)]

    def _hint(self) -> list[str]:
        if self.mode is not Mode.GAME or self.state is None:
            return [NO_GAME]
        result = self._hint_searcher.search(self.board.copy(), self.options.limits)
        if result.move is None:  # pragma: no cover - a finished game is not in progress
            return [NO_GAME]
        san = self.board.san(result.move)
        return [f"Hint: move {move_words(result.move)} ({san})"]

    # -- setup mode -----------------------------------------------------------------------

    def _enter_setup(self) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        self.mode = Mode.SETUP
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen = None
        return board_display(self.setup_board)

    def _setup_command(self, words: Sequence[str]) -> list[str]:
        verb, args = words[0], words[1:]
        if verb == "+" and len(args) == 2:
            square = parse_square(args[1])
            if len(args[0]) != 1 or args[0] not in "KQRBNPkqrbnp" or square is None:
                return [SETUP_USAGE]
            self.setup_board.set_piece_at(square, chess.Piece.from_symbol(args[0]))
            return board_display(self.setup_board)
        if verb == "-" and len(args) == 1:
            square = parse_square(args[0])
            if square is None:
                return [SETUP_USAGE]
            if self.setup_board.remove_piece_at(square) is None:
                return []
            return board_display(self.setup_board)
        if verb == "=" and len(args) == 1 and args[0] in ("white", "black"):
            self.setup_turn = chess.WHITE if args[0] == "white" else chess.BLACK
            return []
        if verb == "done" and not args:
            problems = setup_problems(self.setup_board)
            if problems:
                return problems
            self.pending_fen = setup_fen(self.setup_board, self.setup_turn)
            self.mode = Mode.IDLE
            return [SETUP_DONE]
        return [SETUP_USAGE]


# -- the adapter -------------------------------------------------------------------------


def parse_options(args: Sequence[str]) -> ConsoleOptions | None:
    """The options, or None for a usage error."""
    classic = False
    numbers: dict[str, int] = {}
    rest = list(args)
    while rest:
        option = rest.pop(0)
        if option == "--classic" and not classic:
            classic = True
            continue
        limits = {"--seed": 2**63, "--movetime": MAX_MOVETIME_MS, "--nodes": MAX_NODES}
        if option not in limits or option in numbers or not rest:
            return None
        value = parse_whole_number(rest.pop(0))
        if value is None or value > limits[option] or (option != "--seed" and value < 1):
            return None
        numbers[option] = value
    return ConsoleOptions(
        classic=classic,
        seed=numbers.get("--seed"),
        movetime_ms=numbers.get("--movetime"),
        nodes=numbers.get("--nodes"),
    )


async def run(console: Console, stream: LineStream, out: Output) -> None:
    """Feed every input line to ``console`` and print its answers, then the final score."""
    try:
        while True:
            try:
                line = await stream.receive_line()
            except PeerClosed as closed:
                if closed.partial:
                    _print(out, console.handle(closed.partial.decode("latin-1")))
                break
            except LineTooLong as exc:
                _print(out, console.line_too_long())
                if not exc.dropped:
                    try:
                        await stream.skip_line()
                    except PeerClosed:
                        break
                continue
            _print(out, console.handle(line))
    except LineError:
        pass  # standard input failed: end as at the end of the input
    _print(out, console.finish())


def _print(out: Output, lines: list[str]) -> None:
    for line in lines:
        out.line(line)
    out.flush()


def main(args: Sequence[str] = ()) -> int:
    """``hub play chess``: exit 0 at the end of input, 2 for bad arguments."""
    options = parse_options(args)
    out = Output(1)
    if options is None:
        err = Output(2)
        err.line(USAGE)
        err.flush()
        return 2
    console = Console(options)
    if not options.classic and sys.stdin is not None and sys.stdin.isatty():
        _print(out, ["Chess: type help for the commands."])
    stream = LineStream(ThreadedFdReceiveStream(0), None, max_line=MAX_LINE)
    return run_program(run, console, stream, out) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
