"""The games of a PGN text, each with its tags and its number of plies: what bench/fastchess.py
counts for both tools (hub's ``hub games export --format pgn`` and fastchess's ``-pgnout``),
so that plies per second are counted the same way on both sides. Standard library only;
imported by bench/fastchess.py, run alone it does nothing.

A ply is a move token of the main line: move numbers (``12.``, ``12...``), comments
(``{...}`` and ``;`` to the end of the line), variations (``( ... )``, nested), NAGs (``$3``)
and the result are not moves. A game ends at its result token, or where the next game's
tags begin when a result is missing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

TOKEN = re.compile(
    r"""
    (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\])  # a tag pair
    | (?P<comment>\{[^}]*\}|;[^\n]*)                                   # comments
    | (?P<open>\() | (?P<close>\))                                     # variations
    | (?P<nag>\$\d+)
    | (?P<result>1-0|0-1|1/2-1/2|\*)
    | (?P<number>\d+\.+)                                               # 12. or 12...
    | (?P<escape>^%[^\n]*)                                             # an escape line
    | (?P<move>[^\s\[\]{}();$]+)
    """,
    re.VERBOSE | re.MULTILINE,
)


class PgnGame(NamedTuple):
    """One game: its tags (name to value, unescaped) and its plies in the main line."""

    tags: dict[str, str]
    plies: int
    result: str


def read_games(text: str) -> list[PgnGame]:
    """Every game of ``text``, in order (a game with tags or moves but no result token is
    kept, with result ``*``)."""
    games: list[PgnGame] = []
    tags: dict[str, str] = {}
    plies = 0
    depth = 0
    in_moves = False

    def close(result: str) -> None:
        nonlocal tags, plies, depth, in_moves
        games.append(PgnGame(tags, plies, result))
        tags, plies, depth, in_moves = {}, 0, 0, False

    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "tag":
            if in_moves:
                close("*")
            tags[match["name"]] = re.sub(r"\\(.)", r"\1", match["value"])
        elif kind == "open":
            depth += 1
            in_moves = True
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "result" and depth == 0:
            close(match["result"])
        elif kind == "move":
            in_moves = True
            if depth == 0:
                plies += 1
    if tags or in_moves:
        close("*")
    return games


def total_plies(games: list[PgnGame]) -> int:
    """The plies of every game together."""
    return sum(game.plies for game in games)
