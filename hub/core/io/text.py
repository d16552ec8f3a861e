"""Small pure helpers for text protocols (no imports at run time: safe for start-up-sensitive
programs)."""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: clubber must not import typing; mypy knows the name)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

MAX_NUMBER_DIGITS = 18
HELP_OPTIONS = ("-h", "--help")


def is_printable_ascii(text: str) -> bool:
    """True if every character is printable ASCII (space through ``~``)."""
    return text.isascii() and text.isprintable()


def parse_whole_number(text: str, max_digits: int = MAX_NUMBER_DIGITS) -> int | None:
    """The value of ``text`` if it is a whole decimal number (ASCII digits only), else None.

    ``"3biscuit"``, ``"3 "``, ``" 3"``, ``"+3"``, ``"-3"`` and ``""`` are not numbers; leading
    zeros are accepted (``"007"`` is 7). More than ``max_digits`` digits is refused so that a
    hostile peer cannot make us convert a huge number.
    """
    if not text or len(text) > max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def wants_help(args: Sequence[str]) -> bool:
    """True if ``--help`` or ``-h`` is the only argument: how a program whose command line a spec
    fixes is asked for its help (anything else keeps the spec's usage error). Here rather than
    in `hub.core.commands.usage` so that such a program imports argparse only to print its help."""
    return len(args) == 1 and args[0] in HELP_OPTIONS


def result_words(
    who: Callable[[int], str],
    seats: int,
    winners: Iterable[int],
    scores: Sequence[float],
    *,
    stopped: bool = False,
    detail: str | None = None,
    fault: str | None = None,
) -> str:
    """A finished game's result in words, the one wording of the terminal, the pages and the
    records: ``stopped (undo)`` when the host stopped it; else who won by ``who(seat)``
    (``South wins 37-11``, ``Red and Yellow win``, ``a draw``, ``nobody wins``; scores are
    said when they are more than a win's points: stores, card points, the winner's first,
    then the others' in seat order: ``North wins 41-7``), then ``fault`` as the caller says
    how a seat lost (``on time``, ``(Red (you): resignation)``), or else ``(detail)``."""
    if stopped:
        return "stopped" + (f" ({detail})" if detail else "")
    ordered = sorted(winners)
    if not ordered:
        words = "nobody wins"
    elif len(ordered) == seats:
        words = "a draw"
    else:
        words = " and ".join(who(seat) for seat in ordered)
        words += " wins" if len(ordered) == 1 else " win"
        if scores and max(scores) > 2:
            order = [*ordered, *(seat for seat in range(len(scores)) if seat not in ordered)]
            words += " " + "-".join(f"{scores[seat]:g}" for seat in order if seat < len(scores))
    if fault:
        return f"{words} {fault}"
    return f"{words} ({detail})" if detail else words
