"""What a person sees and types: the board drawing and the reading of typed holes (pure)."""

from __future__ import annotations

import attrs

from hub.core.io.text import parse_whole_number
from hub.games.kalah.rules import PIE, KalahState


def side_name(state: KalahState, seat: int) -> str:
    """South or North: seat 0 starts South; the pie swap exchanges the sides."""
    return "South" if (seat == 0) != state.swapped else "North"


def draw_board(state: KalahState, bottom: int, names: tuple[str, str] = ("", "")) -> list[str]:
    """The board as text lines with seat ``bottom``'s holes along the bottom, left to right.

    The top player's holes run right to left (its hole 1 faces our hole h), its store is on
    the left, ours on the right: sowing goes counter-clockwise.
    """
    h = state.holes
    top = 1 - bottom
    width = max(3, len(str(state.total)))
    cell = width + 2

    def pits(counts: tuple[int, ...]) -> str:
        return "".join(f"[{count:>{width}}]" for count in counts)

    def numbers(order: range) -> str:
        return "".join(f"{number:>{cell - 1}} " for number in order)

    top_name = f"{names[top]} ({side_name(state, top)})" if names[top] else side_name(state, top)
    bottom_name = side_name(state, bottom)
    if names[bottom]:
        bottom_name = f"{names[bottom]} ({bottom_name})"
    pad = " " * cell
    lines = [
        f"{pad}{numbers(range(h, 0, -1))}  {top_name}",
        f"{pad}{pits(tuple(reversed(state.side(top))))}",
        f"[{state.store(top):>{width}}]{' ' * (cell * h)}[{state.store(bottom):>{width}}]",
        f"{pad}{pits(state.side(bottom))}",
        f"{pad}{numbers(range(1, h + 1))}  {bottom_name}",
    ]
    return [line.rstrip() for line in lines]


@attrs.frozen
class Typed:
    """A person's line: holes to sow, the pie, a request to quit, or an error to show."""

    holes: tuple[int, ...] = ()
    pie: bool = False
    quit: bool = False
    error: str = ""


def read_typed(line: str, holes: int) -> Typed:
    """Holes separated by spaces or commas, ``p``/``pie``, or ``q``/``quit``; never raises."""
    words = line.replace(",", " ").split()
    if not words:
        return Typed(error=f"type a hole number from 1 to {holes}")
    lowered = [word.lower() for word in words]
    if lowered in (["p"], ["pie"]):
        return Typed(pie=True)
    if lowered in (["q"], ["quit"]):
        return Typed(quit=True)
    numbers = []
    for word in words:
        number = parse_whole_number(word, max_digits=4)
        if number is None:
            return Typed(error=f"{word[:12]!r} is not a hole number (1 to {holes})")
        if not 1 <= number <= holes:
            return Typed(error=f"there is no hole {number}: choose 1 to {holes}")
        numbers.append(number)
    return Typed(holes=tuple(numbers))


def describe_move(text: str) -> str:
    """A move in words, from its protocol text (``P`` or holes)."""
    return "takes the pie: the sides swap" if text == str(PIE) else f"sows {text}"
