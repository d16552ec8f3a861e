"""The console's commands, pure: a line to a command value, or the spec's message saying
why it is none (specs/chess-console.md); a human's move words to a legal move or the
message; the help text."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import chess

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

LEVELS = {f"computer{level}": level for level in (1, 2, 3, 4)}
PLAYERS = ("human", *LEVELS)

WITH_ARGUMENTS = ("game", "move")
"""Verbs whose arguments their handler checks (with its own usage message)."""
BARE = ("resign", "setup")
"""Verbs of the assignment that take no arguments."""
EXTRAS = ("undo", "history", "hint", "board", "help")
"""Verbs beyond the assignment (not with ``--classic``), taking no arguments."""


@attrs.frozen
class ConsoleCommand:
    """A command line: its verb (one of `WITH_ARGUMENTS`, `BARE`, `EXTRAS`) and arguments."""

    verb: str
    args: tuple[str, ...] = ()


@attrs.frozen
class Refusal:
    """A line that is no command: the message to print."""

    message: str


def parse_command(line: str, *, classic: bool) -> ConsoleCommand | Refusal | None:
    """A line outside setup mode; None for a blank line (it prints nothing)."""
    words = line.split()
    if not words:
        return None
    verb, args = words[0], tuple(words[1:])
    if verb in WITH_ARGUMENTS or (not args and (verb in BARE or (not classic and verb in EXTRAS))):
        return ConsoleCommand(verb, args)
    return Refusal(INVALID if classic else INVALID_HELP)


@attrs.frozen
class Place:
    """``+ K e1``."""

    piece: chess.Piece
    square: chess.Square


@attrs.frozen
class Remove:
    """``- e1``."""

    square: chess.Square


@attrs.frozen
class FirstToMove:
    """``= white`` / ``= black``."""

    colour: chess.Color


@attrs.frozen
class ShowSetup:
    """``board`` in setup mode (not with ``--classic``)."""


@attrs.frozen
class Done:
    """``done``."""


SetupCommand = Place | Remove | FirstToMove | ShowSetup | Done


def parse_setup(line: str, *, classic: bool) -> SetupCommand | Refusal | None:
    """A line in setup mode; None for a blank line. Anything else is refused with the
    setup usage."""
    words = line.split()
    if not words:
        return None
    verb, args = words[0], words[1:]
    if verb == "+" and len(args) == 2:
        square = parse_square(args[1])
        if len(args[0]) == 1 and args[0] in "KQRBNPkqrbnp" and square is not None:
            return Place(chess.Piece.from_symbol(args[0]), square)
    elif verb == "-" and len(args) == 1:
        square = parse_square(args[0])
        if square is not None:
            return Remove(square)
    elif verb == "=" and len(args) == 1 and args[0] in ("white", "black"):
        return FirstToMove(chess.WHITE if args[0] == "white" else chess.BLACK)
    elif verb == "board" and not args and not classic:
        return ShowSetup()
    elif verb == "done" and not args:
        return Done()
    return Refusal(SETUP_USAGE)


def parse_square(text: str) -> chess.Square | None:
    if len(text) == 2 and text[0].lower() in "abcdefgh" and text[1] in "12345678":
        return chess.parse_square(text.lower())
    return None


def parse_move(args: Sequence[str], board: chess.Board, *, classic: bool) -> chess.Move | str:
    """The legal move that ``move``'s arguments name on ``board`` (squares and a promotion
    letter, or without ``--classic`` one SAN word), or the message saying why there is none."""
    usage = MOVE_USAGE if classic else MOVE_USAGE_SAN
    if len(args) == 1 and not classic:
        return parse_san(args[0], board)
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
        for move in board.generate_legal_moves()
        if move.from_square == origin and move.to_square == target
    ]
    if not candidates:
        return ILLEGAL
    if candidates[0].promotion is None:
        return NOT_PROMOTION if promotion is not None else candidates[0]
    if promotion is None:
        return NEEDS_PROMOTION
    return next(move for move in candidates if move.promotion == promotion)


def parse_san(text: str, board: chess.Board) -> chess.Move | str:
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


def move_words(move: chess.Move) -> str:
    """A move as the ``move`` command takes it: ``e2 e4``, ``e7 e8 Q``."""
    text = f"{chess.square_name(move.from_square)} {chess.square_name(move.to_square)}"
    if move.promotion:
        text += " " + chess.piece_symbol(move.promotion).upper()
    return text
