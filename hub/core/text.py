"""Small pure helpers for text protocols (no imports at run time: safe for start-up-sensitive
programs)."""

from __future__ import annotations

TYPE_CHECKING = False  # (not typing's: clubber must not import typing; mypy knows the name)
if TYPE_CHECKING:
    from collections.abc import Sequence

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
    in `hub.core.usage` so that such a program imports argparse only to print its help."""
    return len(args) == 1 and args[0] in HELP_OPTIONS
