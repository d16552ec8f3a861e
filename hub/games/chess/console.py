"""``hub play chess``: chess in the terminal, one command a line (specs/chess-console.md).

Layers:

* pure helpers: `board_display`, `format_points`, `parse_square`, `setup_problems`,
  `setup_fen`, `repetition_count`, `move_words`, `parse_options`;
* `ConsoleSession`: the command interpreter (score, setup mode, messages). A game is a core
  `Match` of the chess library's `ChessReferee(automatic_draws=False)` (only checkmate,
  stalemate and resignation end a game) run in the session's nursery: a human is a
  `FedSeat` fed by ``move e2 e4``, a computer a `PromptedSeat` whose level thinks in a
  worker thread with a stop flag when the user types a bare ``move`` (so Ctrl-C during a
  search ends the program at once). Everything printed about a game (the board, the status
  line, the computer's move, the end) is written by the game's `Transcript`, a spectator of
  its `Match` that reads the typed positions, so a session that nobody records or watches
  makes no event and no FEN (the records and the live view subscribe to
  `ConsoleSession.bus`). ``resign`` is
  `Match.stop(seat, RESIGNATION)`; ``undo`` stops the game as ``ABORTED`` (detail
  ``undo``) and plays on in a new `Match` from the earlier `ChessState`, which carries the
  whole move history (for ``history`` and the repetition count); setup mode happens between
  games and only gives the next game its start position (docs/chess.md);
* `open_console` (the session in a nursery) and `run`/`main`: the trio adapter: bounded
  lines from standard input (any bytes; a line cut by the end of the input still counts),
  EPIPE-safe output, exit status 0 at the end of input and 130 on Ctrl-C;
* `Console`: the same session for synchronous callers (``hub demo chess``, tests): its
  games run in a trio loop on a thread of its own, and `Console.handle` waits for the lines;
* `Terminal`: what a person at a terminal sees besides the spec's output (``=`` saying who
  moves first, "... is thinking..." on standard error, Unicode pieces and colour), nothing
  unless `main` detects a terminal, and nothing with ``--classic`` (docs/chess.md).

Options: ``--classic`` (the assignment alone: no undo, history, SAN input, repetition notice,
hint, help, nor the line naming a computer's move), ``--seed N`` (every computer level and
hint reproducible), ``--movetime MS`` (level 4's budget per move, default 1000), ``--nodes N``
(level 4's budget in nodes; with ``--seed`` and no ``--movetime`` it defaults to
`SEEDED_NODES`, so that a seeded game replays exactly whatever the machine's speed).
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import os
import pathlib
import random
import sys
import threading
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TypeVar

import attrs
import chess
import trio

from hub.chess.board_art import PLAIN, BoardStyle, detect_style, styled_board
from hub.chess.notation import ChessNotation
from hub.chess.rules import BLACK_SEAT, WHITE_SEAT, ChessReferee, ChessState
from hub.chess.search import ComputerPlayer, Limits, Searcher
from hub.core.bus import EventBus
from hub.core.lines import LineError, LineStream, LineTooLong, PeerClosed
from hub.core.match import Match, MatchResult, Moved
from hub.core.output import Output, write_all
from hub.core.referee import Outcome, Termination
from hub.core.running import only_keyboard_interrupts, run_program
from hub.core.seats import FedSeat, PromptedSeat, StopFlag, run_in_thread
from hub.core.stdin import ThreadedFdReceiveStream
from hub.core.text import parse_whole_number, wants_help
from hub.core.usage import Parser, help_text, option_strings, show_help
from hub.core.values import PlayerInfo
from hub.records.options import add_record_options, record_path
from hub.records.recording import recording

T = TypeVar("T")

MAX_LINE = 1024
SEEDED_NODES = 40_000
"""Level 4's budget with ``--seed``: 0.5-0.8 s a move on the reference machine (docs/chess.md)."""
DEFAULT_MOVETIME_MS = 1000
MAX_MOVETIME_MS = 3_600_000
MAX_NODES = 100_000_000
LEVELS = {f"computer{level}": level for level in (1, 2, 3, 4)}
COLOURS = ("White", "Black")

USAGE = (
    "Usage: hub play chess [--classic] [--gui] [--seed N] [--movetime MS] [--nodes N]"
    " [--db PATH] [--no-record]"
)

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
    "  board                            show the board again, and whose turn it is",
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
    gui: bool = False
    """Serve the graphical display (a live page in the browser, hub.web) on a free port."""
    seed: int | None = None
    movetime_ms: int | None = None
    nodes: int | None = None
    db: str | None = None
    """The records database (``--db PATH``); None: hub.records' default."""
    no_record: bool = False
    """``--no-record``: the games are not written to the database."""

    @property
    def record_path(self) -> pathlib.Path | None:
        """Where `main` records every finished game; None with ``--no-record``."""
        return record_path(argparse.Namespace(db=self.db, no_record=self.no_record))

    @property
    def limits(self) -> Limits:
        """Level 4's (and ``hint``'s) budget per move."""
        if self.nodes is not None:
            return Limits(nodes=self.nodes)
        if self.seed is not None and self.movetime_ms is None:
            return Limits(nodes=SEEDED_NODES)
        return Limits(movetime=(self.movetime_ms or DEFAULT_MOVETIME_MS) / 1000)


class StatusLine:
    """A transient line on a terminal (the console's standard error): shown while the
    computer thinks, then erased (carriage return and erase-line, or spaces where the
    terminal knows no escape sequences), so that nothing of it stays on the screen."""

    def __init__(self, write: Callable[[str], object], *, ansi: bool = True) -> None:
        self._write = write
        self._ansi = ansi
        self._width = 0

    @classmethod
    def on_fd(cls, fd: int, *, ansi: bool) -> StatusLine:
        return cls(lambda text: write_all(fd, text.encode("utf-8", "replace")), ansi=ansi)

    def show(self, text: str) -> None:
        self.clear()
        self._write(text)
        self._width = len(text)

    def clear(self) -> None:
        if self._width:
            self._write("\r\x1b[K" if self._ansi else "\r" + " " * self._width + "\r")
            self._width = 0


@attrs.frozen
class Terminal:
    """What the console adds for a person watching at a terminal; the default (nothing)
    is for output that is not a terminal, so that transcripts stay the spec's byte for
    byte. ``--classic`` uses the default too."""

    interactive: bool = False
    """Standard output is a terminal: ``= white|black`` in setup mode says who moves first
    (the spec's setup prints nothing there)."""
    style: BoardStyle = PLAIN
    """Boards with Unicode pieces and colour (`hub.chess.board_art.detect_style`)."""
    status: StatusLine | None = None
    """Where "... is thinking..." shows while a computer level or ``hint`` searches
    (standard error, when it is a terminal)."""

    @classmethod
    def detect(cls, env: Mapping[str, str] | None = None) -> Terminal:
        """From the process's standard output and error and its environment."""
        env = os.environ if env is None else env
        stdout_tty, stderr_tty = os.isatty(1), os.isatty(2)
        ansi = env.get("TERM", "") not in ("", "dumb")
        return cls(
            interactive=stdout_tty,
            style=detect_style(stdout_tty, env),
            status=StatusLine.on_fd(2, ansi=ansi) if stderr_tty else None,
        )


Player = ComputerPlayer | None
"""None for a human."""

Think = Callable[[ComputerPlayer, chess.Board, StopFlag], chess.Move]
"""How a computer player (or ``hint``) chooses a move in a worker thread; `search_move`
unless a test injects another. It must return soon after the stop flag is set."""


def search_move(player: ComputerPlayer, board: chess.Board, stop: StopFlag) -> chess.Move:
    """The player's move: levels 1-3 at once, level 4's search until its budget or ``stop``."""
    return player.choose(board, stop.is_set)


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
        # Not "White is in check.": that is a game's status line (specs/chess-console.md,
        # "Display"), and setup output must not read like play.
        for colour, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
            king = board.king(colour)
            if king is not None and board.is_attacked_by(not colour, king):
                problems.append(f"The {name} king must not be in check.")
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


def repetition_count(start_fen: str, moves: Sequence[str], board: chess.Board | None = None) -> int:
    """How many times the position after ``moves`` has occurred in the game (same pieces,
    side to move, castling rights and en passant capture, as FIDE counts repetitions).

    ``board``, that position with its move stack (a `ChessState`'s), lets only the plies
    since the last capture or pawn move be looked at, as no earlier position can come
    back, instead of replaying the game from its start at every move; when its stack is
    shorter than those plies (kept to `hub.chess.rules.MAX_STACK`), the game is replayed."""
    if board is not None:
        stack = len(board.move_stack)
        since = min(board.halfmove_clock, len(moves))  # this game's reversible plies
        if since <= stack:
            key = board._transposition_key()
            earlier = board.copy(stack=since)
            count = 1
            for _ in range(since):
                earlier.pop()
                count += earlier._transposition_key() == key
            return count
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

ConsoleSeat = FedSeat[ChessState, str] | PromptedSeat[ChessState, str]


class ConsoleSession:
    """A console session: what each command line prints, with its games run as `Match`es.

    Commands run one at a time (`handle`). The game waits between them: its loop rests
    while it waits for a human's move (a `FedSeat`) or a computer's prompt (a
    `PromptedSeat`), and every command that moves waits until the loop rests again.
    The lines a command prints are those the listener wrote from the events the command
    caused (boards, status, the end of a game), then the command's own message, if any.
    """

    def __init__(
        self,
        nursery: trio.Nursery,
        options: ConsoleOptions | None = None,
        *,
        bus: EventBus | None = None,
        think: Think = search_move,
        terminal: Terminal | None = None,
    ) -> None:
        self.options = options or ConsoleOptions()
        self.terminal = Terminal() if terminal is None or self.options.classic else terminal
        """What a person at a terminal sees besides the spec's output (nothing by default)."""
        self.bus = bus if bus is not None else EventBus()
        """Every game of the session is published here (the live view subscribes)."""
        self.referee = ChessReferee(automatic_draws=False)
        self.notation = ChessNotation()
        self.rng = random.Random(self.options.seed)
        self.mode = Mode.IDLE
        self.players: tuple[Player, Player] = (None, None)
        self.names: tuple[str, str] = ("human", "human")
        self.half_points = [0, 0]
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen: str | None = None
        """A completed set-up position, used by the next ``game``."""
        self.match: Match[ChessState, str] | None = None
        """The current game, or the last one (for ``history``)."""
        self._seats: list[ConsoleSeat] = []
        self._nursery = nursery
        self._think = think
        self._hint_player = ComputerPlayer(4, limits=self.options.limits, searcher=Searcher())
        self._shown: list[str] = []
        self._last_ending: list[str] = []
        """How the last game ended (``Checkmate! White wins!``), for ``board``."""
        self._failure: Exception | None = None

    # -- entry points ---------------------------------------------------------------------

    @property
    def state(self) -> ChessState | None:
        """The current game's position, or the last game's (None before the first)."""
        return None if self.match is None else self.match.state

    async def handle(self, line: str) -> list[str]:
        """The output for one input line (without its newline)."""
        self._shown = []
        reply = await self._command(line.split())
        if self._failure is not None:
            raise self._failure  # the transcript is broken: a bug, not a user's error
        shown, self._shown = self._shown, []
        return shown + reply

    async def finish(self) -> list[str]:
        """The end of the input: the final score (a game still running is not scored; it
        ends as ``ABORTED``)."""
        await self._stop_game("end of input")
        return self.final_score()

    def final_score(self) -> list[str]:
        """The score of the games finished so far (what `finish` prints; a Ctrl-C prints it
        too, without waiting for the running game, which is not scored)."""
        return [
            "Final Score:",
            f"White: {format_points(self.half_points[WHITE_SEAT])}",
            f"Black: {format_points(self.half_points[BLACK_SEAT])}",
        ]

    def line_too_long(self) -> list[str]:
        return [LINE_TOO_LONG]

    async def _command(self, words: Sequence[str]) -> list[str]:
        if not words:
            return []
        if self.mode is Mode.SETUP:
            return self._setup_command(words)
        verb, args = words[0], words[1:]
        extras = not self.options.classic
        if verb == "game":
            return await self._game(args)
        if verb == "move":
            return await self._move(args)
        if verb == "resign" and not args:
            return await self._resign()
        if verb == "setup" and not args:
            return self._enter_setup()
        if extras and not args:
            if verb == "undo":
                return await self._undo()
            if verb == "history":
                return self._history()
            if verb == "hint":
                return await self._hint()
            if verb == "board":
                return self._board()
            if verb == "help":
                return list(HELP)
        return [INVALID_HELP if extras else INVALID]

    # -- games ----------------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        assert self.match is not None
        return self.match.state.board

    async def _game(self, args: Sequence[str]) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        if len(args) != 2 or any(arg != "human" and arg not in LEVELS for arg in args):
            return [GAME_USAGE]
        self.names = (args[0], args[1])
        self.players = (self._player(args[0]), self._player(args[1]))
        fen, self.pending_fen = self.pending_fen or chess.STARTING_FEN, None
        assert self._hint_player.searcher is not None
        self._hint_player.searcher.clear()
        await self._start(self.referee.initial(fen))
        return []

    def _player(self, name: str) -> Player:
        if name == "human":
            return None
        rng = random.Random(self.rng.getrandbits(64))
        return ComputerPlayer(LEVELS[name], rng, self.options.limits)

    def _seat(self, seat: int) -> ConsoleSeat:
        name, player = self.names[seat], self.players[seat]
        if player is None:
            return FedSeat(player=PlayerInfo(name, "person", name))
        think = self._think

        def choose(state: ChessState, seconds: float, stop: StopFlag) -> str:
            return think(player, state.board.copy(), stop).uci()

        return PromptedSeat(choose, player=PlayerInfo(name, "ai", name))

    async def _start(self, state: ChessState) -> None:
        """Play on from ``state`` in a new `Match` (a new game, or the same after ``undo``)."""
        self._seats = [self._seat(WHITE_SEAT), self._seat(BLACK_SEAT)]
        white, black = self.half_points
        self.match = Match(
            self.referee,
            state,
            self._seats,
            notation=self.notation,
            events=self.bus,
            spectators=[Transcript(self)],
            settings={
                "rules": "console",
                "score": {"white": white / 2, "black": black / 2},
                "white": self.names[WHITE_SEAT],
                "black": self.names[BLACK_SEAT],
            },
        )
        self.mode = Mode.GAME
        self._nursery.start_soon(self.match.run)
        await self._settled()

    async def _settled(self) -> None:
        """Wait until the game rests again: a seat waits for a command, or it has ended
        (and its end has been published)."""
        match = self.match
        assert match is not None
        await match.settle()
        if match.result is not None:
            await match.wait_finished()

    async def _stop_game(self, why: str) -> None:
        """End the running game, if any, as ``ABORTED`` (``undo``, the end of the input)."""
        match = self.match
        if match is not None and not match.finished:
            match.stop(None, Termination.ABORTED, why)
            await match.wait_finished()

    def _to_move(self) -> int:
        assert self.match is not None
        return self.match.state.turn_seat

    async def _move(self, args: Sequence[str]) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        seat = self._to_move()
        colour = COLOURS[seat]
        player = self._seats[seat]
        if isinstance(player, PromptedSeat):
            if args:
                return [f"{colour} is a computer: type move alone to let it play."]
            with self._thinking(f"{colour} ({self.names[seat]}) is thinking..."):
                await player.play()
        else:
            if not args:
                return [f"{colour} is a human: move needs squares (e.g. move e2 e4)."]
            parsed = self._parse_human_move(args)
            if isinstance(parsed, str):
                return [parsed]
            verdict = await player.submit(parsed.uci())
            if not verdict.accepted:  # pragma: no cover - moves come from the legal ones
                return [ILLEGAL]
        await self._settled()
        return []

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

    async def _resign(self) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        humans = [seat for seat in (WHITE_SEAT, BLACK_SEAT) if self.players[seat] is None]
        loser = humans[0] if len(humans) == 1 else self._to_move()
        self.match.stop(loser, Termination.RESIGNATION)
        await self.match.wait_finished()
        return []

    # -- what the events show -------------------------------------------------------------

    def _show(self, make: Callable[[], list[str]]) -> None:
        """Add ``make()``'s lines to what the command prints; an error in it is kept for
        `handle` to raise (a bug), not raised into the game."""
        try:
            self._shown += make()
        except Exception as exc:  # pragma: no cover - a bug; `handle` raises it
            self._failure = exc

    def _moved(self, moved: Moved[ChessState, str]) -> list[str]:
        lines = []
        if self.players[moved.seat] is not None and not self.options.classic:
            words = move_words(chess.Move.from_uci(moved.text))
            lines.append(f"{COLOURS[moved.seat]} plays {words}.")
        return lines + self._position(moved.after)

    def _position(self, state: ChessState) -> list[str]:
        """The board and, while the game goes on, the check and repetition notices (the
        end of a game is shown by `_ended`)."""
        lines = self._drawn(state.board, state)
        if self.referee.to_move(state) is None:
            return lines
        if state.board.is_check():
            lines.append(f"{COLOURS[state.turn_seat]} is in check.")
        if not self.options.classic:
            count = repetition_count(state.start_fen, state.moves, state.board)
            if count >= 3:
                lines.append(
                    f"Threefold repetition: this position has occurred {count} times "
                    "(the game goes on)."
                )
        return lines

    def _ended(self, outcome: Outcome) -> list[str]:
        """Score a finished game and say how it ended (nothing for an aborted one)."""
        if outcome.termination is Termination.ABORTED:
            return []
        self.mode = Mode.IDLE
        if len(outcome.winners) != 1:  # a draw names both seats; only stalemate draws here
            self.half_points[WHITE_SEAT] += 1
            self.half_points[BLACK_SEAT] += 1
            self._last_ending = ["Stalemate!"]
            return ["Stalemate!"]
        [seat] = outcome.winners
        winner = COLOURS[seat]
        self.half_points[seat] += 2
        if outcome.termination is Termination.NORMAL:
            self._last_ending = [f"Checkmate! {winner} wins!"]
        else:
            self._last_ending = [f"{winner} wins!"]  # a resignation
        return list(self._last_ending)

    # -- for a person at a terminal -------------------------------------------------------

    def _drawn(self, board: chess.BaseBoard, state: ChessState | None = None) -> list[str]:
        """A board: the spec's display, or on a terminal that supports it Unicode pieces and
        colour (with the last move of ``state`` and a king in check highlighted)."""
        style = self.terminal.style
        if style.plain:
            return board_display(board)
        lastmove = check = None
        if state is not None:
            if state.moves:
                lastmove = chess.Move.from_uci(state.moves[-1])
            if state.board.is_check():
                check = state.board.king(state.board.turn)
        return styled_board(board, style, lastmove=lastmove, check=check)

    @contextlib.contextmanager
    def _thinking(self, text: str) -> Iterator[None]:
        """Show ``text`` on the terminal's status line while the block runs, then erase it."""
        status = self.terminal.status
        if status is None:
            yield
            return
        status.show(text)
        try:
            yield
        finally:
            status.clear()

    def _turn_line(self, state: ChessState) -> str:
        seat = state.turn_seat
        if self.players[seat] is None:
            return f"{COLOURS[seat]} to move."
        return f"{COLOURS[seat]} ({self.names[seat]}) to move: type move to let it play."

    def _board(self) -> list[str]:
        """``board``: the board again and whose turn it is (the running game's; else a
        set-up position waiting for ``game``; else the last game's end)."""
        if self.mode is Mode.GAME and self.match is not None:
            state = self.match.state
            return [*self._position(state), self._turn_line(state)]
        if self.pending_fen is not None:
            board = chess.Board(self.pending_fen)
            return [*self._drawn(board), f"{COLOURS[not board.turn]} moves first."]
        if self.match is not None:
            return [*self._drawn(self.match.state.board, self.match.state), *self._last_ending]
        return [NO_GAME]

    # -- extras ---------------------------------------------------------------------------

    async def _undo(self) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        state = self.match.state
        if not state.moves:
            return ["Nothing to undo."]
        has_human = None in self.players
        state = ChessState(state.start_fen, state.moves[:-1])
        # With a human playing a computer, take back to the human's turn.
        while has_human and state.moves and self.players[state.turn_seat] is not None:
            state = ChessState(state.start_fen, state.moves[:-1])
        await self._stop_game("undo")
        await self._start(state)
        return []

    def _history(self) -> list[str]:
        state = self.state
        if state is None:
            return [NO_GAME]
        if not state.moves:
            return [NO_MOVES_YET]
        start = chess.Board(state.start_fen)
        moves = [chess.Move.from_uci(text) for text in state.moves]
        return [start.variation_san(moves)]

    async def _hint(self) -> list[str]:
        if self.mode is not Mode.GAME or self.match is None:
            return [NO_GAME]
        board, player, think = self.board, self._hint_player, self._think
        snapshot = board.copy()
        with self._thinking("Looking for a hint..."):
            move = await run_in_thread(lambda stop: think(player, snapshot, stop))
        return [f"Hint: move {move_words(move)} ({board.san(move)})"]

    # -- setup mode -----------------------------------------------------------------------

    def _enter_setup(self) -> list[str]:
        if self.mode is Mode.GAME:
            return [GAME_RUNNING]
        self.mode = Mode.SETUP
        self.setup_board = chess.BaseBoard.empty()
        self.setup_turn = chess.WHITE
        self.pending_fen = None
        return self._drawn(self.setup_board)

    def _setup_command(self, words: Sequence[str]) -> list[str]:
        verb, args = words[0], words[1:]
        if verb == "+" and len(args) == 2:
            square = parse_square(args[1])
            if len(args[0]) != 1 or args[0] not in "KQRBNPkqrbnp" or square is None:
                return [SETUP_USAGE]
            self.setup_board.set_piece_at(square, chess.Piece.from_symbol(args[0]))
            return self._drawn(self.setup_board)
        if verb == "-" and len(args) == 1:
            square = parse_square(args[0])
            if square is None:
                return [SETUP_USAGE]
            if self.setup_board.remove_piece_at(square) is None:
                return []
            return self._drawn(self.setup_board)
        if verb == "=" and len(args) == 1 and args[0] in ("white", "black"):
            self.setup_turn = chess.WHITE if args[0] == "white" else chess.BLACK
            # The spec's setup prints nothing here; a person at a terminal is told.
            return [self._first_line()] if self.terminal.interactive else []
        if verb == "board" and not args and not self.options.classic:
            return [*self._drawn(self.setup_board), self._first_line()]
        if verb == "done" and not args:
            problems = setup_problems(self.setup_board)
            if problems:
                return problems
            self.pending_fen = setup_fen(self.setup_board, self.setup_turn)
            self.mode = Mode.IDLE
            return [SETUP_DONE]  # no board: the spec redisplays it only after + and -
        return [SETUP_USAGE]

    def _first_line(self) -> str:
        return f"{COLOURS[self.setup_turn == chess.BLACK]} moves first."


class Transcript:
    """What the console prints about one game (a `hub.core.match.Spectator` of its `Match`):
    the board and status at the start and after each move, the computer's move in words, the
    end and the score. It reads the typed positions, so it costs no event and no FEN."""

    def __init__(self, session: ConsoleSession) -> None:
        self._session = session

    def started(self, state: ChessState) -> None:
        self._session._show(lambda: self._session._position(state))

    def moved(self, moved: Moved[ChessState, str]) -> None:
        self._session._show(lambda: self._session._moved(moved))

    def ended(self, result: MatchResult[ChessState, str]) -> None:
        self._session._show(lambda: self._session._ended(result.outcome))


@contextlib.asynccontextmanager
async def open_console(
    options: ConsoleOptions | None = None,
    *,
    bus: EventBus | None = None,
    think: Think = search_move,
    terminal: Terminal | None = None,
) -> AsyncIterator[ConsoleSession]:
    """A `ConsoleSession` whose games run in a nursery of the block; a game still running
    when the block ends is cancelled (published as ``ABORTED``)."""
    async with trio.open_nursery() as nursery:
        try:
            yield ConsoleSession(nursery, options, bus=bus, think=think, terminal=terminal)
        finally:
            nursery.cancel_scope.cancel()


# -- for synchronous callers -------------------------------------------------------------


@attrs.define(eq=False)
class _Loop:
    """The trio loop of a `Console`, on a thread of its own. It holds no reference to the
    `Console`, so that a console dropped without `Console.close` is collected and its
    loop stopped."""

    session: ConsoleSession | None = None
    token: trio.lowlevel.TrioToken | None = None
    scope: trio.CancelScope | None = None
    error: BaseException | None = None
    ready: threading.Event = attrs.Factory(threading.Event)

    def serve(
        self,
        options: ConsoleOptions | None,
        bus: EventBus | None,
        think: Think,
        terminal: Terminal | None = None,
    ) -> None:
        try:
            trio.run(self._main, options, bus, think, terminal)
        except BaseException as exc:  # handed to the caller by `Console`
            self.error = exc
        finally:
            self.ready.set()

    async def _main(
        self,
        options: ConsoleOptions | None,
        bus: EventBus | None,
        think: Think,
        terminal: Terminal | None,
    ) -> None:
        with trio.CancelScope() as self.scope:
            async with open_console(options, bus=bus, think=think, terminal=terminal) as session:
                self.session = session
                self.token = trio.lowlevel.current_trio_token()
                self.ready.set()
                await trio.sleep_forever()

    @staticmethod
    def stop(loop: _Loop, thread: threading.Thread) -> None:
        if loop.token is not None and loop.scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                loop.token.run_sync_soon(loop.scope.cancel)
        thread.join(STOP_TIMEOUT)


STOP_TIMEOUT = 5.0
"""Seconds `Console.close` waits for its loop (a search stops within milliseconds)."""


class Console:
    """A `ConsoleSession` for synchronous callers (``hub demo chess``, tests): the same
    commands, games and events, run in a trio loop on a thread of its own; each call waits
    for its answer. `finish` (the end of the input) also closes the loop."""

    def __init__(
        self,
        options: ConsoleOptions | None = None,
        *,
        bus: EventBus | None = None,
        think: Think = search_move,
        terminal: Terminal | None = None,
    ) -> None:
        self._loop = _Loop()
        thread = threading.Thread(
            target=self._loop.serve,
            args=(options, bus, think, terminal),
            name="chess-console",
            daemon=True,
        )
        thread.start()
        self._loop.ready.wait()
        if self._loop.session is None:  # pragma: no cover - the loop could not start
            raise RuntimeError("the console's loop did not start") from self._loop.error
        self.session = self._loop.session
        self._close = weakref.finalize(self, _Loop.stop, self._loop, thread)

    @property
    def options(self) -> ConsoleOptions:
        return self.session.options

    @property
    def mode(self) -> Mode:
        return self.session.mode

    @property
    def state(self) -> ChessState | None:
        return self.session.state

    @property
    def bus(self) -> EventBus:
        return self.session.bus

    def handle(self, line: str) -> list[str]:
        """The output for one input line, as `ConsoleSession.handle`."""
        return self._call(self.session.handle, line)

    def finish(self) -> list[str]:
        """The final score (as `ConsoleSession.finish`); the console is closed after it."""
        try:
            return self._call(self.session.finish)
        finally:
            self.close()

    def line_too_long(self) -> list[str]:
        return self.session.line_too_long()

    def close(self) -> None:
        """Stop the loop (a running game ends as ``ABORTED``); later calls do nothing."""
        self._close()

    def _call(self, function: Callable[..., Awaitable[T]], *args: object) -> T:
        if not self._close.alive:
            raise RuntimeError("the console is closed")
        token = self._loop.token
        try:
            return trio.from_thread.run(function, *args, trio_token=token)
        except (trio.Cancelled, trio.RunFinishedError):  # pragma: no cover - the loop died
            self.close()
            if self._loop.error is not None:
                raise self._loop.error from None
            raise


# -- the adapter -------------------------------------------------------------------------


def help_parser() -> Parser:
    """``hub play chess --help`` (the options are parsed by `parse_options`, whose usage
    error is the one `USAGE` line; an option missing here is refused there)."""
    parser = Parser(
        "hub play chess",
        usage=USAGE.removeprefix("Usage: "),
        description="Chess in the terminal: type commands (help lists them) to play people "
        "or the computer levels 1-4, set up positions and take moves back; the end of input "
        "(Ctrl-D) prints the final score. --help works as the only argument.",
    )
    add = parser.add_argument
    add(
        "--classic",
        action="store_true",
        help="only the original assignment's commands and "
        "output: no undo, history, hint, help, SAN moves (default: every extra)",
    )
    add(
        "--gui",
        action="store_true",
        help="also show the games in the browser: a live page "
        "whose URL is printed on stderr (default: the terminal only)",
    )
    add(
        "--seed",
        metavar="N",
        help="make every computer level and hint reproducible (default: fresh randomness)",
    )
    add(
        "--movetime",
        metavar="MS",
        help="level 4's (and hint's) time per move in ms "
        f"(default: {DEFAULT_MOVETIME_MS}; with --seed: {SEEDED_NODES} nodes instead)",
    )
    add(
        "--nodes",
        metavar="N",
        help="level 4's budget per move in nodes instead of time "
        "(default: a time budget, see --movetime)",
    )
    add_record_options(parser)
    return parser


def parse_options(args: Sequence[str]) -> ConsoleOptions | None:
    """The options, or None for a usage error."""
    flags = {"--classic": False, "--gui": False, "--no-record": False}
    numbers: dict[str, int] = {}
    db: str | None = None
    rest = list(args)
    known = option_strings(help_parser())
    while rest:
        option = rest.pop(0)
        if option not in known:
            return None
        if flags.get(option) is False:
            flags[option] = True
            continue
        if option == "--db" and db is None and rest and rest[0]:
            db = rest.pop(0)
            continue
        limits = {"--seed": 2**63, "--movetime": MAX_MOVETIME_MS, "--nodes": MAX_NODES}
        if option not in limits or option in numbers or not rest:
            return None
        value = parse_whole_number(rest.pop(0))
        if value is None or value > limits[option] or (option != "--seed" and value < 1):
            return None
        numbers[option] = value
    return ConsoleOptions(
        classic=flags["--classic"],
        gui=flags["--gui"],
        seed=numbers.get("--seed"),
        movetime_ms=numbers.get("--movetime"),
        nodes=numbers.get("--nodes"),
        db=db,
        no_record=flags["--no-record"],
    )


async def run(
    options: ConsoleOptions,
    stream: LineStream,
    out: Output,
    *,
    bus: EventBus | None = None,
    terminal: Terminal | None = None,
) -> None:
    """Feed every input line to a console session and print its answers, then the final
    score. Its games are published to ``bus`` (``--gui`` will subscribe to it).

    A Ctrl-C or SIGTERM prints the final score too, whichever task trio raised it in: in the
    command loop, or in a game's task that was running at that instant (the nursery then
    cancels the loop and passes the interrupt on), so it is caught around the session."""
    session: ConsoleSession | None = None
    try:
        async with open_console(options, bus=bus, terminal=terminal) as console:
            session = console
            try:
                while True:
                    try:
                        line = await stream.receive_line()
                    except PeerClosed as closed:
                        if closed.partial:
                            text = closed.partial.decode("latin-1")
                            _print(out, await console.handle(text))
                        break
                    except LineTooLong as exc:
                        _print(out, console.line_too_long())
                        if not exc.dropped:
                            try:
                                await stream.skip_line()
                            except PeerClosed:
                                break
                        continue
                    _print(out, await console.handle(line))
            except LineError:
                pass  # standard input failed: end as at the end of the input
            _print(out, await console.finish())
    except BaseException as exc:
        if session is not None and only_keyboard_interrupts(exc):  # the score, as Ctrl-D
            _print(out, session.final_score())
        raise


async def run_with_gui(
    options: ConsoleOptions,
    stream: LineStream,
    out: Output,
    err: Output,
    *,
    bus: EventBus | None = None,
    terminal: Terminal | None = None,
) -> None:
    """`run` with the graphical display: its URL on its own line on stderr before the first
    command is read; the page follows the console's games until the end of input."""
    from hub.web.server import open_gui  # only --gui needs the web stack

    bus = bus if bus is not None else EventBus()
    async with trio.open_nursery() as nursery:
        url = await open_gui(nursery, bus)
        _print(err, [url])
        await run(options, stream, out, bus=bus, terminal=terminal)
        nursery.cancel_scope.cancel()


def _print(out: Output, lines: list[str]) -> None:
    for line in lines:
        out.line(line)
    out.flush()


def main(args: Sequence[str] = ()) -> int:
    """``hub play chess``: exit 0 at the end of input, 2 for bad arguments."""
    if wants_help(args):
        return show_help(help_text(help_parser()))
    options = parse_options(args)
    out = Output(1)
    if options is None:
        err = Output(2)
        err.line(USAGE)
        err.flush()
        return 2
    if not options.classic and sys.stdin is not None and sys.stdin.isatty():
        _print(out, ["Chess: type help for the commands."])
    stream = LineStream(ThreadedFdReceiveStream(0), None, max_line=MAX_LINE)
    return run_program(run_recorded, options, stream, out, Terminal.detect()) or 0


async def run_recorded(
    options: ConsoleOptions, stream: LineStream, out: Output, terminal: Terminal | None = None
) -> None:
    """`run` (or `run_with_gui`) with every finished game written to the records database."""
    bus = EventBus()
    async with recording(bus, options.record_path, prog="hub play chess"):
        if options.gui:
            await run_with_gui(options, stream, out, Output(2), bus=bus, terminal=terminal)
        else:
            await run(options, stream, out, bus=bus, terminal=terminal)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
