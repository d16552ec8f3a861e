"""The UQChess wire protocol, both directions, as pure functions over lines (sans-IO).

Client to server: `parse_command` maps a line (without its newline) to a `ClientCommand` or to
None, which the server answers with ``error command``; it never raises. `format_command`
is its inverse (the client uses it).

Server to client: the ``format_*`` functions build the lines the server sends;
`parse_message` reads one server line for the client, which tracks its state from what it
recognises and prints everything anyway (the spec: the client does not check the protocol).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Literal

import attrs

Against = Literal["computer", "human"]
Colour = Literal["white", "black"]
ColourChoice = Literal["either", "white", "black"]

AGAINST: tuple[Against, ...] = ("computer", "human")
COLOURS: tuple[Colour, ...] = ("white", "black")
COLOUR_CHOICES: tuple[ColourChoice, ...] = ("either", "white", "black")


def other(colour: Colour) -> Colour:
    return "black" if colour == "white" else "white"


def is_move_text(text: str) -> bool:
    """4 or 5 ASCII letters or digits: a well-formed ``move`` argument (legal or not)."""
    return 4 <= len(text) <= 5 and text.isascii() and text.isalnum()


# -- client to server ----------------------------------------------------------------------


@attrs.frozen
class StartRequest:
    against: Against
    colour: ColourChoice


@attrs.frozen
class BoardRequest:
    pass


@attrs.frozen
class Hint:
    all: bool


@attrs.frozen
class MoveRequest:
    move: str


@attrs.frozen
class Resign:
    pass


ClientCommand = StartRequest | BoardRequest | Hint | MoveRequest | Resign


def parse_command(line: str) -> ClientCommand | None:
    """The command ``line`` holds, or None (``error command``): exact words, one space apart."""
    words = line.split(" ")
    if any(not word for word in words):
        return None  # leading, trailing or doubled spaces, or an empty line
    match words:
        case ["start", against, colour] if against in AGAINST and colour in COLOUR_CHOICES:
            return StartRequest(against, colour)
        case ["board"]:
            return BoardRequest()
        case ["hint", "best"]:
            return Hint(all=False)
        case ["hint", "all"]:
            return Hint(all=True)
        case ["move", move] if is_move_text(move):
            return MoveRequest(move)
        case ["resign"]:
            return Resign()
    return None


def format_command(command: ClientCommand) -> str:
    match command:
        case StartRequest(against, colour):
            return f"start {against} {colour}"
        case BoardRequest():
            return "board"
        case Hint(all=every):
            return "hint all" if every else "hint best"
        case MoveRequest(move):
            return f"move {move}"
        case Resign():
            return "resign"
    raise TypeError(f"not a command: {command!r}")  # pragma: no cover


# -- server to client ----------------------------------------------------------------------


class ErrorReason(enum.Enum):
    ENGINE = "engine"
    COMMAND = "command"
    GAME = "game"
    TURN = "turn"
    MOVE = "move"


class GameOverHow(enum.Enum):
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    RESIGNATION = "resignation"


def format_started(colour: Colour) -> str:
    return f"started {colour}"


OK = "ok"
CHECK = "check"
START_BOARD = "startboard"
END_BOARD = "endboard"


def format_error(reason: ErrorReason) -> str:
    return f"error {reason.value}"


def format_board(lines: Sequence[str]) -> list[str]:
    return [START_BOARD, *lines, END_BOARD]


def format_moves(moves: Sequence[str]) -> str:
    return "moves " + " ".join(moves)


def format_moved(move: str) -> str:
    return f"moved {move}"


def format_gameover(how: GameOverHow, winner: Colour | None = None) -> str:
    return f"gameover {how.value}" + (f" {winner}" if winner is not None else "")


@attrs.frozen
class Started:
    colour: Colour


@attrs.frozen
class Accepted:
    """``ok``: the client's move was accepted."""


@attrs.frozen
class MovedMessage:
    move: str


@attrs.frozen
class GameOver:
    how: str
    winner: str | None


@attrs.frozen
class BoardStart:
    pass


@attrs.frozen
class BoardEnd:
    pass


@attrs.frozen
class Other:
    """Any other line (``error ...``, ``moves ...``, ``check``, board lines, junk)."""

    line: str


Message = Started | Accepted | MovedMessage | GameOver | BoardStart | BoardEnd | Other


def parse_message(line: str) -> Message:
    """What a server line means to the client's state (never raises)."""
    words = line.split(" ")
    match words:
        case ["started", colour] if colour in COLOURS:
            return Started(colour)
        case ["ok"]:
            return Accepted()
        case ["moved", move] if move:
            return MovedMessage(move)
        case ["gameover", how]:
            return GameOver(how, None)
        case ["gameover", how, winner]:
            return GameOver(how, winner)
        case ["startboard"]:
            return BoardStart()
        case ["endboard"]:
            return BoardEnd()
    return Other(line)
