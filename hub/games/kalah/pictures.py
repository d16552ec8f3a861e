"""Kalah's two pictures, drawn from its state view alone (docs/architecture.md, "State
views": ``holes``, ``board`` by seat, ``to_move``, ``swapped``), pure.

* `text_lines`: the compact text of ``hub games show`` and the terminal: seat 1's holes right
  to left on top with its store on the left, seat 0's below left to right with its store on
  the right (the board as it is sown, counter-clockwise).
* `board_html`: the web board, South along the bottom. Every hole the mover may sow from
  holds a ``<span class="sow" data-part="N">``, which also carries ``data-move="N"`` when
  that sowing alone is a whole turn;
  the pie swap, when the view says it is the viewer's legal move (``"pie": true``, only in
  the mover's own view), is a button with ``data-move="P"``. A page builds a turn of several
  sowings by joining the parts clicked with a space (``4 3``) until the text is a legal move.
  Given the last move and the view before it (`last_move_marks`), the holes it sowed from
  carry the class ``sown`` and the pit where its last seed fell ``landed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from hub.games.kalah.rules import relative_board, sow, turn_sequences

MAX_STAGES = 64
"""At most this many boards after a sowing in one picture (each is about 1.5 kB, and the
picture goes to every page that follows the game); a position with more shows none, and
a page offers the turns' endings as buttons instead."""

Pit = tuple[int, int]
"""(seat, hole 1..h), hole h + 1 being the seat's store."""


def side_name(seat: int, view: Mapping[str, Any]) -> str:
    """South or North: seat 0 starts South; the pie swap exchanges the sides."""
    return "South" if (seat == 0) != bool(view.get("swapped")) else "North"


def _checked(view: Mapping[str, Any]) -> tuple[int, list[int]]:
    holes = int(view["holes"])
    board = [int(count) for count in view["board"]]
    if holes < 1 or len(board) != 2 * holes + 2:
        raise ValueError("not a Kalah board")
    return holes, board


def text_lines(view: Mapping[str, Any], names: Sequence[str] = ()) -> list[str]:
    """The board as text; ``names`` (in seat order) follow the seats' labels."""
    holes: int = view["holes"]
    board: list[int] = view["board"]
    if len(board) != 2 * holes + 2:
        raise ValueError("a Kalah board of the wrong size")
    width = max(2, *(len(str(seeds)) for seeds in board))

    def row(values: Sequence[int]) -> str:
        return " ".join(f"{seeds:>{width}}" for seeds in values)

    labels = [f"seat {seat} {name}" for seat, name in enumerate(names[:2])]
    labels += [f"seat {seat}" for seat in range(len(labels), 2)]
    top = row(board[holes + 1 : 2 * holes + 1][::-1])
    bottom = row(board[:holes])
    pad = " " * (width + 2)
    lines = [
        f"{pad}{top}    {labels[1]} (holes {holes}..1)",
        f"{board[2 * holes + 1]:>{width}}  {' ' * len(top)}  {board[holes]:>{width}}",
        f"{pad}{bottom}    {labels[0]} (holes 1..{holes})",
    ]
    mover = view.get("to_move")
    extra = [f"seat {mover} to move"] if mover is not None else ["over"]
    if view.get("swapped"):
        extra.append("sides swapped (pie rule)")
    lines.append(f"{pad}" + ", ".join(extra))
    return lines


def whole_turns(view: Mapping[str, Any]) -> tuple[set[int], set[int]]:
    """The mover's holes it may sow from, and those of them whose sowing is a whole turn."""
    holes, board = _checked(view)
    mover = view.get("to_move")
    if mover not in (0, 1):
        return set(), set()
    relative = relative_board(board, holes, mover)
    parts = {hole for hole in range(1, holes + 1) if relative[hole - 1]}
    singles = {seq[0] for seq, _ in turn_sequences(relative, holes) if len(seq) == 1}
    return parts, singles


def last_move_marks(before: Mapping[str, Any], move: str) -> tuple[set[Pit], Pit | None]:
    """The pits the turn ``move`` (``4 3``; ``P``, the pie swap, sows nothing) sowed from,
    played from the view ``before``, and the pit where its last seed fell."""
    holes, board = _checked(before)
    mover = before.get("to_move")
    words = move.split()
    if mover not in (0, 1) or not words or not all(word.isdigit() for word in words):
        return set(), None
    relative = list(relative_board(board, holes, mover))
    sown: set[Pit] = set()
    landed: Pit | None = None
    for word in words:
        hole = int(word)
        if not 1 <= hole <= holes or not relative[hole - 1]:
            return set(), None
        last = (hole - 1 + relative[hole - 1]) % (2 * holes + 1)
        sown.add((mover, hole))
        landed = (mover, last + 1) if last <= holes else (1 - mover, last - holes)
        sow(relative, hole - 1, holes)
    return sown, landed


def board_html(
    view: Mapping[str, Any],
    sown: set[Pit] | frozenset[Pit] = frozenset(),
    landed: Pit | None = None,
) -> str:
    """The board with South along the bottom (holes 1..h left to right, its store on the
    right) and North along the top (right to left, its store on the left); the last move's
    ``sown`` holes and the pit it ``landed`` in marked (`last_move_marks`). The board is the
    picture's ``data-stage``; after it, for each sowing of the mover that leaves the turn
    unfinished (``3``, ``3 4``), a ``<template data-after="3">`` holding the board after it,
    whose holes to sow next are the parts: a page shows it once those holes are clicked,
    so a turn of several sowings is played on a board that follows it."""
    parts, singles = whole_turns(view)
    board = _board(view, parts, singles, sown, landed)
    swapped = '<p class="note">sides swapped (pie rule)</p>' if view.get("swapped") else ""
    pie = ""
    if view.get("pie") and view.get("to_move") == 1:
        pie = (
            '<button class="pie" data-move="P" title="take the pie: swap sides">'
            f"{escape('swap sides (P)')}</button>"
        )
    return f"{board}{''.join(_stages(view))}{swapped}{pie}"


def _stages(view: Mapping[str, Any]) -> list[str]:
    """The boards after each unfinished prefix of the mover's turns, as templates."""
    holes, board = _checked(view)
    mover = view.get("to_move")
    if mover not in (0, 1):
        return []
    offset = mover * (holes + 1)
    stages: dict[tuple[int, ...], tuple[int, ...]] = {}
    for sequence, _ in turn_sequences(relative_board(board, holes, mover), holes):
        sowing = list(relative_board(board, holes, mover))
        for length, hole in enumerate(sequence[:-1], 1):
            sow(sowing, hole - 1, holes)
            stages.setdefault(sequence[:length], tuple(sowing))
        if len(stages) > MAX_STAGES:  # a rare chain of sowings: the page offers buttons
            return []
    drawn = []
    for prefix, relative in stages.items():
        absolute = list(relative[-offset:] + relative[:-offset]) if offset else list(relative)
        after = {**view, "board": absolute}
        nonempty = {hole for hole in range(1, holes + 1) if relative[hole - 1]}
        text = " ".join(map(str, prefix))
        drawn.append(
            f'<template data-after="{text}">'
            f"{_board(after, nonempty, set(), set(), None)}</template>"
        )
    return drawn


def _board(
    view: Mapping[str, Any],
    parts: set[int],
    singles: set[int],
    sown: set[Pit] | frozenset[Pit],
    landed: Pit | None,
) -> str:
    holes, board = _checked(view)
    south = 1 if view.get("swapped") else 0
    north = 1 - south
    to_move = view.get("to_move")

    def store(seat: int, where: str) -> str:
        count = board[seat * (holes + 1) + holes]
        mark = " landed" if landed == (seat, holes + 1) else ""
        return (
            f'<div class="store {where}{mark}" title="{side_name(seat, view)} store">'
            f"<b>{count}</b></div>"
        )

    def hole(seat: int, number: int) -> str:
        sow = ""
        if seat == to_move and number in parts:
            move = f' data-move="{number}"' if number in singles else ""
            sow = f'<span class="sow" data-part="{number}"{move} title="sow {number}"></span>'
        count = board[seat * (holes + 1) + number - 1]
        marks = " sown" if (seat, number) in sown else ""
        marks += " landed" if landed == (seat, number) else ""
        return f'<div class="hole{marks}"><b>{count}</b><i>{number}</i>{sow}</div>'

    def row(seat: int, where: str) -> str:
        numbers = range(1, holes + 1) if where == "south" else range(holes, 0, -1)
        turn = " to-move" if to_move == seat else ""
        cells = "".join(hole(seat, n) for n in numbers)
        return f'<div class="row {where}{turn}">{cells}</div>'

    return (
        f'<div class="kalah" data-stage style="--holes: {holes}">'
        f"{store(north, 'north')}{row(north, 'north')}{row(south, 'south')}"
        f"{store(south, 'south')}</div>"
    )
