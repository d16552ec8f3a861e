"""Openings for ``hub match chess``: a built-in list of balanced lines, or a file of them.

An opening is a JSON value (it travels in `hub.core.play.kit.GameSpec` and is recorded with
each game's settings): ``{"name": str, "fen": FEN, "moves": [UCI, ...]}``, the position
``fen`` followed by ``moves``. The built-in `OPENINGS` are 35 well-known main lines of 8 to
12 plies from the starting position, all roughly level (none gives a side a real edge).

A file (``--opening-file FILE``) has one opening a line; blank lines and ``#`` comments are
skipped. A line is either

* a position: a FEN (six fields) or an EPD (four fields, then operations such as
  ``id "name";``, whose ``id`` names the opening); or
* moves from the starting position in UCI notation (``e2e4 e7e5 g1f3``).

`read_openings` checks every line (a legal position that is not over, legal moves) and says
which line is wrong. `pick_openings` draws a match's openings from a seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import chess

from hub.chess.rules import ChessState, Draws, initial, outcome, play
from hub.core.model.referee import IllegalMove

OPENINGS: tuple[tuple[str, str], ...] = (
    ("Ruy Lopez, Morphy Defence", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6"),
    ("Ruy Lopez, Berlin Defence", "e2e4 e7e5 g1f3 b8c6 f1b5 g8f6 e1g1 f6e4"),
    ("Italian Game, Giuoco Piano", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 c2c3 g8f6"),
    ("Italian Game, Two Knights", "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 d2d3 f8e7"),
    ("Scotch Game", "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4 g8f6"),
    ("Petrov Defence", "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6 e5f3 f6e4"),
    ("Four Knights Game", "e2e4 e7e5 g1f3 b8c6 b1c3 g8f6 f1b5 f8b4"),
    ("Vienna Game", "e2e4 e7e5 b1c3 g8f6 f2f4 d7d5 f4e5 f6e4"),
    ("Sicilian, Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("Sicilian, Classical", "e2e4 c7c5 g1f3 b8c6 d2d4 c5d4 f3d4 g8f6 b1c3 d7d6"),
    ("Sicilian, Scheveningen", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 g8f6 b1c3 d7d6"),
    ("Sicilian, Taimanov", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 b8c6 b1c3 d8c7"),
    ("Sicilian, Alapin", "e2e4 c7c5 c2c3 g8f6 e4e5 f6d5 d2d4 c5d4 c3d4 d7d6"),
    ("French, Winawer", "e2e4 e7e6 d2d4 d7d5 b1c3 f8b4 e4e5 c7c5"),
    ("French, Tarrasch", "e2e4 e7e6 d2d4 d7d5 b1d2 g8f6 e4e5 f6d7"),
    ("Caro-Kann, Classical", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4 c8f5"),
    ("Caro-Kann, Advance", "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5 g1f3 e7e6"),
    ("Pirc Defence", "e2e4 d7d6 d2d4 g8f6 b1c3 g7g6 g1f3 f8g7"),
    ("Scandinavian Defence", "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 g8f6"),
    ("Alekhine Defence, Modern", "e2e4 g8f6 e4e5 f6d5 d2d4 d7d6 g1f3 c8g4"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6 c1g5 f8e7"),
    ("Queen's Gambit Accepted", "d2d4 d7d5 c2c4 d5c4 g1f3 g8f6 e2e3 e7e6"),
    ("Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 d5c4"),
    ("Semi-Slav Defence", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 e7e6"),
    ("Nimzo-Indian Defence", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 d1c2 e8g8"),
    ("Queen's Indian Defence", "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6 g2g3 c8b7"),
    ("Bogo-Indian Defence", "d2d4 g8f6 c2c4 e7e6 g1f3 f8b4 c1d2 d8e7"),
    ("King's Indian, Classical", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6 g1f3 e8g8"),
    ("Gruenfeld, Exchange", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5 c4d5 f6d5 e2e4 d5c3 b2c3 f8g7"),
    ("Catalan Opening", "d2d4 g8f6 c2c4 e7e6 g2g3 d7d5 f1g2 f8e7"),
    ("London System", "d2d4 d7d5 c1f4 g8f6 e2e3 c7c5 c2c3 b8c6"),
    ("Dutch, Leningrad", "d2d4 f7f5 g2g3 g8f6 f1g2 g7g6 g1f3 f8g7"),
    ("English, Symmetrical", "c2c4 c7c5 b1c3 b8c6 g2g3 g7g6 f1g2 f8g7"),
    ("English, Four Knights", "c2c4 e7e5 b1c3 g8f6 g1f3 b8c6 g2g3 d7d5"),
    ("Reti Opening", "g1f3 d7d5 g2g3 g8f6 f1g2 e7e6 e1g1 f8e7"),
)
"""(name, UCI moves from the starting position)."""

BUILTIN = "builtin"
"""The ``openings`` setting that means `OPENINGS`."""


class OpeningError(ValueError):
    """An opening that is not a legal, unfinished chess position."""


def opening(name: str, moves: Sequence[str], fen: str = chess.STARTING_FEN) -> dict[str, Any]:
    return {"name": name, "fen": fen, "moves": list(moves)}


def builtin_openings() -> list[dict[str, Any]]:
    return [opening(name, moves.split()) for name, moves in OPENINGS]


def opening_state(value: Mapping[str, Any] | None, draws: Draws = Draws.NONE) -> ChessState:
    """The position an opening leads to (None: the starting position), its moves played
    by the rules alone (so that the game's history holds them; a match's ply cap counts
    them but does not stop them), and not already over under ``draws``; raises
    `OpeningError`."""
    if value is None:
        return initial()
    fen, moves = value.get("fen", chess.STARTING_FEN), value.get("moves", [])
    if not isinstance(fen, str) or not isinstance(moves, list):
        raise OpeningError("an opening is {'fen': FEN, 'moves': [UCI, ...]}")
    try:
        state = initial(fen)
    except ValueError as exc:
        raise OpeningError(f"not a FEN: {fen!r} ({exc})") from None
    if not state.board.is_valid():
        raise OpeningError(f"not a legal position: {fen!r}")
    for ply, move in enumerate(moves, 1):
        if not isinstance(move, str) or len(move) > 5:
            raise OpeningError(f"move {ply} is not a UCI move: {move!r}")
        try:
            state = play(state, move)
        except IllegalMove:
            raise OpeningError(f"move {ply} ({move}) is not legal there") from None
    if outcome(state, draws) is not None:
        raise OpeningError("the game is already over")
    return state


def parse_opening_line(line: str) -> dict[str, Any] | None:
    """The opening on one line of an openings file (None: a blank or ``#`` line); raises
    `OpeningError`."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    words = text.split()
    if "/" not in words[0]:
        return opening(text, words)
    if len(words) == 6 and words[4].isdigit() and words[5].isdigit():
        return opening(text, [], text)
    try:
        board, operations = chess.Board.from_epd(text)
    except ValueError as exc:
        raise OpeningError(f"not a FEN or EPD: {exc}") from None
    name = operations.get("id")
    return opening(name if isinstance(name, str) else board.fen(), [], board.fen())


def read_openings(path: str) -> list[dict[str, Any]]:
    """Every opening of the file at ``path``; raises `ValueError` naming the bad line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read openings file {path}: {exc.strerror or exc}") from None
    found = []
    for number, line in enumerate(lines, 1):
        try:
            value = parse_opening_line(line)
            if value is not None:
                opening_state(value, Draws.FIDE)
        except OpeningError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        if value is not None:
            found.append(value)
    if not found:
        raise ValueError(f"{path}: no openings in the file")
    return found


def load_openings(source: str) -> list[dict[str, Any]]:
    """`OPENINGS` for `BUILTIN`, else the openings of the file ``source``."""
    return builtin_openings() if source == BUILTIN else read_openings(source)


def pick_openings(
    openings: Sequence[Mapping[str, Any]], count: int, seed: int
) -> list[dict[str, Any]]:
    """``count`` openings drawn from ``seed``: each pass through the list is a fresh shuffle,
    so no opening repeats before every one has been played."""
    rng = random.Random(seed)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < count:
        order = list(openings)
        rng.shuffle(order)
        chosen.extend(dict(value) for value in order[: count - len(chosen)])
    return chosen
