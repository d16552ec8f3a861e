"""The Kalah wire protocol as pure parse/format functions over lines (kalah.md, "Protocol").

Lines are given without their ``\\n``. Parsing is liberal in spacing (leading, trailing and
repeated spaces or tabs, and a trailing ``\\r`` from a CRLF peer) and strict in everything
else; formatting is strict (single spaces, no padding). Every malformed input raises
`BadLine` (a `ValueError`), never anything else.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hub.core.io.text import is_printable_ascii, parse_whole_number
from hub.games.kalah.rules import MAX_HOLES, MAX_SEEDS, MIN_HOLES, MIN_SEEDS, PIE, Move

WELCOME, READY, BEGIN, OK = "WELCOME", "READY", "BEGIN", "OK"
ILLEGAL, TIME, LOSER, WINNER, TIE = "ILLEGAL", "TIME", "LOSER", "WINNER", "TIE"
INFO = "INFO"
RESULTS = frozenset({LOSER, WINNER, TIE})
ACKS = frozenset({WELCOME, READY, BEGIN, OK, ILLEGAL, TIME, LOSER, WINNER, TIE})

MAX_TIME_MS = 10**9 - 1
"""The longest time limit we accept or send (about 11.5 days); 0 means none."""
MAX_HOLE_DIGITS = 6
SAFE_TEXT_LIMIT = 80


class BadLine(ValueError):
    """A line that is not a well-formed message of the kind expected."""


def max_line(holes: int, seeds: int) -> int:
    """The longest line either side needs to read for a game of this size, plus slack.

    A turn puts at least one seed in the store per sowing but the last, so it has at most
    ``2*holes*seeds`` holes of up to two digits and a space each (an INFO line is shorter).
    """
    return 2 * holes * seeds * 3 + 64


def clean(line: str) -> str | None:
    """``line`` without a trailing ``\\r``, or None if it holds anything but printable ASCII."""
    if line.endswith("\r"):
        line = line[:-1]
    text = line.replace("\t", " ")
    if not is_printable_ascii(text):
        return None
    return text


def safe_text(line: str, limit: int = SAFE_TEXT_LIMIT) -> str:
    """A peer's line made safe to print: non-printable characters escaped, length capped."""
    shown = line[:limit]
    text = shown if is_printable_ascii(shown) else shown.encode("unicode_escape").decode("ascii")
    if is_printable_ascii(text):
        return text + ("..." if len(line) > limit else "")
    return repr(shown)  # pragma: no cover - unicode_escape output is always printable ASCII


def words(line: str) -> list[str]:
    """The space-separated words of a cleaned line; raises `BadLine` on control bytes."""
    text = clean(line)
    if text is None:
        raise BadLine("not printable ASCII")
    return text.split()


def is_word(line: str, word: str) -> bool:
    """True if ``line`` is exactly ``word`` (give or take spaces)."""
    try:
        return words(line) == [word]
    except BadLine:
        return False


# -- moves ----------------------------------------------------------------------------------


def parse_move(line: str, holes: int) -> Move:
    """A move line: ``P`` or hole numbers 1..holes separated by spaces; raises `BadLine`."""
    tokens = words(line)
    if not tokens:
        raise BadLine("empty move")
    if tokens == ["P"]:
        return PIE
    numbers = []
    for token in tokens:
        number = parse_whole_number(token, max_digits=MAX_HOLE_DIGITS)
        if number is None:
            raise BadLine(f"not a hole number: {safe_text(token, 12)}")
        if not 1 <= number <= holes:
            raise BadLine(f"no hole {number}: holes are 1 to {holes}")
        numbers.append(number)
    return Move(tuple(numbers))


def format_move(move: Move) -> str:
    return str(move)  # a `Move` prints as its line: ``P`` or single-spaced holes


def parse_script(text: str, holes: int) -> list[Move]:
    """``"P,2"`` or ``"4 3;2"``: moves separated by commas or semicolons (``--script``)."""
    return [parse_move(part, holes) for part in text.replace(";", ",").split(",") if part.strip()]


# -- INFO ------------------------------------------------------------------------------------


def _layout(value: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen
class Info:
    """The game as the server describes it to one client (from that client's point of view)."""

    holes: int = attrs.field(validator=attrs.validators.in_(range(MIN_HOLES, MAX_HOLES + 1)))
    seeds: int = attrs.field(validator=attrs.validators.in_(range(MIN_SEEDS, MAX_SEEDS + 1)))
    time_ms: int = attrs.field(validator=attrs.validators.in_(range(MAX_TIME_MS + 1)))
    first: bool
    """The client moves first."""
    layout: tuple[int, ...] | None = attrs.field(default=None, converter=_layout)
    """The random layout (hole counts 1..h for each side), or None for the standard one."""

    @layout.validator
    def _check_layout(self, _attribute: object, value: tuple[int, ...] | None) -> None:
        if value is None:
            return
        if len(value) != self.holes or any(count < 0 for count in value):
            raise ValueError(f"a layout needs {self.holes} counts")
        if sum(value) != self.holes * self.seeds:
            raise ValueError(f"a layout must hold {self.holes * self.seeds} seeds")


def format_info(info: Info) -> str:
    parts = [INFO, str(info.holes), str(info.seeds), str(info.time_ms), "F" if info.first else "S"]
    if info.layout is None:
        parts.append("S")
    else:
        parts.append("R")
        parts.extend(map(str, info.layout))
    return " ".join(parts)


def parse_info(line: str) -> Info:
    """An INFO line; raises `BadLine` if malformed or outside what we support."""
    tokens = words(line)
    if len(tokens) < 6 or tokens[0] != INFO:
        raise BadLine("not an INFO line")
    numbers = [parse_whole_number(token, max_digits=9) for token in tokens[1:4]]
    holes, seeds, time_ms = numbers
    if holes is None or seeds is None or time_ms is None:
        raise BadLine("INFO needs whole numbers for holes, seeds and time")
    if tokens[4] not in ("F", "S") or tokens[5] not in ("S", "R"):
        raise BadLine("INFO needs F|S then S|R")
    layout: tuple[int, ...] | None = None
    if tokens[5] == "R":
        counts = [parse_whole_number(token, max_digits=9) for token in tokens[6:]]
        if len(counts) != holes or any(count is None for count in counts):
            raise BadLine(f"a random layout needs {holes} counts")
        layout = tuple(count for count in counts if count is not None)
    elif len(tokens) != 6:
        raise BadLine("extra words after a standard layout")
    try:
        return Info(holes, seeds, time_ms, tokens[4] == "F", layout)
    except ValueError as exc:
        raise BadLine(str(exc)) from None


# -- what a client receives ----------------------------------------------------------------


@attrs.frozen
class ServerLine:
    """A parsed server line: an acknowledgement word, an INFO, or a move."""

    word: str | None = None
    info: Info | None = None
    move: Move | None = None


def parse_server_line(line: str, holes: int | None) -> ServerLine:
    """Any line a server may send; moves need ``holes`` (None before INFO)."""
    tokens = words(line)
    if len(tokens) == 1 and tokens[0] in ACKS:
        return ServerLine(word=tokens[0])
    if tokens and tokens[0] == INFO:
        return ServerLine(info=parse_info(line))
    if holes is None:
        raise BadLine("a move before INFO")
    return ServerLine(move=parse_move(line, holes))
