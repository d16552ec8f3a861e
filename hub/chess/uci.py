"""UCI, the text both ways, without I/O: what an engine prints and what a GUI sends it.

* Readers (sans-IO) for what a client needs from an engine's output: `HandshakeReader`
  (``readyok`` then ``uciok``), `BestMoveReader` (``bestmove X [ponder Y]``), `PerftReader`
  (``go perft 1``: the moves in the engine's order) and `BoardReader` (``d``: the board art).
  Each takes one line at a time, skips every line it does not need (engine versions print
  different ``info string`` lines; nothing is ever counted), keeps 5-character promotions
  whole, and raises `EngineProtocolError` for output it cannot accept. `parse_bestmove`,
  `parse_perft` and `parse_board` run them over whole outputs. `hub.chess.engine_client`
  drives an engine with them.
* Parsers and formatters for the engine's side: `parse_go`, `parse_position`, `legal_move`
  and the ``*_line(s)`` formatters. `hub.games.chess.engine_server` (``hub engine``) is
  their adapter. What the UQChess server parses is byte for byte Stockfish 15.1's.
* What a GUI sends: `Go.command` (the ``go`` line for a clock or a move time) and
  `setoption_line`; `hub.chess.seats.UciSeat` drives an engine with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

import attrs
import chess

from hub import __version__
from hub.core.io.text import parse_whole_number

if TYPE_CHECKING:  # the search is imported where an engine searches, not by every UCI client
    from hub.chess.search import Limits, SearchInfo, SearchResult

NAME = f"hub {__version__}"
AUTHOR = "the hub developers"
MOVE_OVERHEAD = 0.03
"""Seconds kept back from each time-controlled move for the GUI and the pipes."""
MIN_MOVETIME = 0.005

_MOVE_RE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
_PERFT_RE = re.compile(r"([a-h][1-8][a-h][1-8][qrbn]?): ([0-9]+)")
_OPTION_RE = re.compile(r"option\s+name\s+(.+?)\s+type\b")
_ID_NAME_RE = re.compile(r"id\s+name\s+(\S.*)")
_BORDER = "+---+---+---+---+---+---+---+---+"
_FILES = "a   b   c   d   e   f   g   h"

T = TypeVar("T")


class EngineError(Exception):
    """Base class of the engine layer's errors."""


class EngineProtocolError(EngineError):
    """The engine printed something that its reader cannot accept."""


# -- pure readers --------------------------------------------------------------------------


class Reader(Generic[T]):
    """Feeds on an engine's output one line at a time; `feed` is True once complete."""

    result: T

    def feed(self, line: str) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError


@attrs.define
class HandshakeReader(Reader[None]):
    """``readyok`` (anything may come first), then ``uciok``; the ``id name`` is kept in
    `name` (the engine's identity, hub.core.model.identity), other ``id`` lines are skipped, and
    the names of the ``option`` lines kept in `options` (``ready=True``: ``uciok`` alone)."""

    ready: bool = False
    result: None = None
    options: list[str] = attrs.Factory(list)
    name: str = ""

    def feed(self, line: str) -> bool:
        word = line.strip()
        if not self.ready:
            self.ready = word == "readyok"
            return False
        if (match := _OPTION_RE.match(word)) is not None:
            self.options.append(match.group(1))
        elif (match := _ID_NAME_RE.match(word)) is not None and word.isprintable():
            self.name = match.group(1)
        return word == "uciok"


@attrs.define
class ReadyReader(Reader[None]):
    """Everything up to ``readyok``."""

    result: None = None

    def feed(self, line: str) -> bool:
        return line.strip() == "readyok"


MATE_SCORE = 100_000
"""The score of a mate, in centipawns (`parse_score`): ``mate N`` is ``±(MATE_SCORE - N)``."""


def parse_score(line: str) -> int | None:
    """The score of an ``info ... score cp X|mate N ...`` line in centipawns from the side to
    move's view (a mate in N: ``MATE_SCORE - N``; being mated in N: ``-(MATE_SCORE - N)``),
    or None when the line has no readable score. Pure; never raises."""
    words = line.split()
    try:
        at = words.index("score")
        kind, value = words[at + 1], int(words[at + 2])
    except (ValueError, IndexError):
        return None
    if kind == "cp":
        return max(-MATE_SCORE, min(MATE_SCORE, value))
    if kind == "mate":
        distance = min(abs(value), MATE_SCORE)
        return MATE_SCORE - distance if value > 0 else -(MATE_SCORE - distance)
    return None


@attrs.define
class BestMoveReader(Reader["str | None"]):
    """``bestmove X`` or ``bestmove X ponder Y``: X, or None for ``bestmove (none)``. The
    last ``info`` line with a score before it is kept (`scored`), and read once at the end
    (`score`): the engine's verdict on its move, for adjudication."""

    result: str | None = None
    scored: str = ""

    @property
    def score(self) -> int | None:
        """The last reported score (`parse_score`), None if the engine reported none."""
        return parse_score(self.scored) if self.scored else None

    def feed(self, line: str) -> bool:
        if line.startswith("info") and " score " in line:
            self.scored = line
            return False
        words = line.split()
        if not words or words[0] != "bestmove":
            return False
        if len(words) < 2:
            raise EngineProtocolError(f"bestmove without a move: {line!r}")
        move = words[1]
        if move in ("(none)", "0000"):
            self.result = None
        elif _MOVE_RE.fullmatch(move):
            self.result = move
        else:
            raise EngineProtocolError(f"bestmove is not a move: {line!r}")
        return True


@attrs.define
class PerftReader(Reader[list[str]]):
    """``go perft 1``: ``e2e4: 1`` lines (kept in order) up to ``Nodes searched: N``."""

    result: list[str] = attrs.Factory(list)
    counted: int = 0

    def feed(self, line: str) -> bool:
        text = line.strip()
        if (match := _PERFT_RE.fullmatch(text)) is not None:
            self.result.append(match.group(1))
            self.counted += int(match.group(2)[:9])
            return False
        if text.startswith("Nodes searched:"):
            nodes = parse_whole_number(text.removeprefix("Nodes searched:").strip())
            if nodes is None or nodes != self.counted:  # (str.isdigit took "²", int() not)
                raise EngineProtocolError(f"perft total does not match its moves: {line!r}")
            return True
        return False


@attrs.define
class BoardReader(Reader[list[str]]):
    """``d``: the board art as clients receive it, through the line ``Checkers: ...``.

    The result runs from the blank line before the top border through the blank line after
    the file letters (20 lines); the art lines are kept exactly as printed (Stockfish 15.1
    indents them by one space).
    """

    result: list[str] = attrs.Factory(list)
    art: list[str] = attrs.Factory(list)
    complete: bool = False

    def feed(self, line: str) -> bool:
        if self.complete:
            return line.startswith("Checkers:")
        if not self.art:
            if line.strip() == _BORDER:
                self.art.append(line)
            return False
        self.art.append(line)
        if line.strip() == _FILES:
            if len(self.art) != 18:
                raise EngineProtocolError(f"board art of {len(self.art)} lines")
            self.result = ["", *self.art, ""]
            self.complete = True
        elif len(self.art) > 18:
            raise EngineProtocolError("board art without its file letters")
        return False


def _run(reader: Reader[T], lines: Iterable[str]) -> T:
    for line in lines:
        if reader.feed(line):
            return reader.result
    raise EngineProtocolError(f"{type(reader).__name__}: output ended early")


def parse_bestmove(lines: Iterable[str]) -> str | None:
    return _run(BestMoveReader(), lines)


def parse_perft(lines: Iterable[str]) -> list[str]:
    return _run(PerftReader(), lines)


def parse_board(lines: Iterable[str]) -> list[str]:
    return _run(BoardReader(), lines)


# -- the engine's side: parsing and formatting -------------------------------------------


@attrs.frozen
class Go:
    """A parsed ``go`` command; times are in milliseconds, as UCI sends them."""

    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    mate: int | None = None
    infinite: bool = False
    perft: int | None = None

    def limits(self, turn: chess.Color) -> Limits:
        """The search bounds this command means for the side ``turn`` (no bound: infinite)."""
        from hub.chess.search import Limits

        seconds: float | None = None
        if self.movetime is not None:
            seconds = max(self.movetime / 1000 - MOVE_OVERHEAD / 3, MIN_MOVETIME)
        else:
            left = self.wtime if turn == chess.WHITE else self.btime
            increment = (self.winc if turn == chess.WHITE else self.binc) / 1000
            if left is not None and not self.infinite:
                left_s = left / 1000
                share = left_s / max(self.movestogo or 30, 1) + increment * 0.75
                seconds = max(min(share, left_s * 0.5 - MOVE_OVERHEAD), MIN_MOVETIME)
        depth = self.depth
        if self.mate is not None:
            depth = min(depth or 2 * self.mate, 2 * self.mate)
        return Limits(movetime=seconds, depth=depth, nodes=self.nodes)

    def command(self) -> str:
        """The ``go`` line a GUI sends for these limits (`parse_go` reads it back); the
        increments are sent with a game clock only."""
        words = ["go"]
        clock = self.wtime is not None or self.btime is not None
        for name in _NUMBER_WORDS:
            value = getattr(self, name)
            if value is not None and (clock or name not in ("winc", "binc")):
                words += [name, str(value)]
        if self.infinite:
            words.append("infinite")
        return " ".join(words)


_NUMBER_WORDS = (
    "movetime",
    "depth",
    "nodes",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "perft",
)


def parse_go(words: Sequence[str]) -> Go:
    """The ``go`` arguments (after ``go``); unknown words and bad numbers are skipped."""
    values: dict[str, int] = {}
    infinite = False
    index = 0
    while index < len(words):
        word = words[index]
        if word in _NUMBER_WORDS and index + 1 < len(words):
            number = _number(words[index + 1])
            if number is not None:
                values[word] = number
            index += 2
            continue
        if word in ("infinite", "ponder"):
            infinite = True
        index += 1
    return Go(
        movetime=values.get("movetime"),
        depth=values.get("depth"),
        nodes=values.get("nodes"),
        wtime=values.get("wtime"),
        btime=values.get("btime"),
        winc=values.get("winc", 0),
        binc=values.get("binc", 0),
        movestogo=values.get("movestogo"),
        mate=values.get("mate"),
        infinite=infinite,
        perft=values.get("perft"),
    )


def _number(text: str) -> int | None:
    """A whole number; a negative one (a clock that ran out) reads as 0."""
    if text.startswith("-") and parse_whole_number(text[1:]) is not None:
        return 0
    return parse_whole_number(text)


_UNPLAYABLE = (
    chess.STATUS_NO_WHITE_KING
    | chess.STATUS_NO_BLACK_KING
    | chess.STATUS_TOO_MANY_KINGS
    | chess.STATUS_OPPOSITE_CHECK
    | chess.STATUS_PAWNS_ON_BACKRANK
    | chess.STATUS_TOO_MANY_CHECKERS
)


class PositionError(ValueError):
    """A ``position`` command whose FEN cannot be played (the position is left unchanged)."""


def parse_position(words: Sequence[str]) -> chess.Board | None:
    """The board a ``position`` command sets up (arguments after ``position``).

    None when the command is not ``startpos`` or ``fen`` (Stockfish ignores it then); raises
    `PositionError` for a FEN that python-chess rejects or that has no sensible game (no
    king, pawns on the back rank, the side not to move in check ...). As in Stockfish, the
    word after ``startpos`` is skipped (it should be ``moves``) and moves are applied up to
    the first that is not legal.
    """
    if not words:
        return None
    rest: list[str]
    if words[0] == "startpos":
        board = chess.Board()
        rest = list(words[2:])
    elif words[0] == "fen":
        fields: list[str] = []
        index = 1
        while index < len(words) and words[index] != "moves":
            fields.append(words[index])
            index += 1
        rest = list(words[index + 1 :])
        try:
            board = chess.Board(" ".join(fields))
        except ValueError as exc:
            raise PositionError(f"invalid FEN: {exc}") from None
        if board.status() & _UNPLAYABLE:
            raise PositionError("invalid FEN: not a playable position")
    else:
        return None
    for text in rest:
        move = legal_move(board, text)
        if move is None:
            break
        board.push(move)
    return board


def legal_move(board: chess.Board, text: str) -> chess.Move | None:
    """The legal move ``text`` names in long algebraic notation (Stockfish's reading)."""
    if len(text) == 5:
        text = text[:4] + text[4].lower()
    for move in board.generate_legal_moves():
        if move.uci() == text:
            return move
    return None


def score_text(info: SearchInfo) -> str:
    mate = info.mate_in
    return f"mate {mate}" if mate is not None else f"cp {info.score}"


def info_line(info: SearchInfo) -> str:
    millis = int(info.seconds * 1000)
    nps = int(info.nodes / info.seconds) if info.seconds > 0 else 0
    pv = " ".join(move.uci() for move in info.pv)
    return (
        f"info depth {info.depth} seldepth {info.seldepth} multipv 1 score {score_text(info)} "
        f"nodes {info.nodes} nps {nps} time {millis} pv {pv}"
    )


def bestmove_lines(board: chess.Board, result: SearchResult) -> list[str]:
    """What ends a search: ``bestmove X [ponder Y]``, or Stockfish's lines for no move."""
    if result.move is None:
        score = "mate 0" if board.is_check() else "cp 0"
        return [f"info depth 0 score {score}", "bestmove (none)"]
    if len(result.pv) >= 2 and result.pv[0] == result.move:
        return [f"bestmove {result.move.uci()} ponder {result.pv[1].uci()}"]
    return [f"bestmove {result.move.uci()}"]


def setoption_line(name: str, value: str) -> str:
    """What a GUI sends to set an engine's option (``setoption name Skill Level value 3``)."""
    return f"setoption name {name} value {value}"


def unknown_command_line(line: str) -> str:
    return f"Unknown command: '{line}'. Type help for more information."


def uci_lines() -> list[str]:
    return [f"id name {NAME}", f"id author {AUTHOR}", "", "uciok"]
