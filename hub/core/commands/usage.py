"""Command-line help and usage errors in one style for every program (docs/decisions.md).

Every command's options are an `argparse` parser. `Parser` renders ``--help`` (every option
with its default, "(default: X)") and turns wrong usage into `UsageError`: one line ending in
``(see PROG --help)``, exit status 2, instead of argparse's usage block and `SystemExit`.
``-h``/``--help`` raise `HelpRequested` with the text, so that a program prints it through its
own output and returns 0 (argparse would print to ``sys.stdout`` and exit from deep inside).

Programs whose command line a spec fixes (``clubhub``, ``clubber``, ``uqchessserver``,
``uqchessclient``, the chess console's usage line) keep their hand-written parsers and the
spec's message and status for wrong usage; they build a `Parser` only for the help, shown when
``--help`` (or ``-h``) is the only argument (`wants_help`).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from hub.core.io.output import Output
from hub.core.io.text import HELP_OPTIONS

HELP_TEXT = "show this help message and exit"  # as argparse says it (hub match, hub games)
DEFAULT_HELP_POSITION = 32


class UsageError(Exception):
    """Wrong usage: the one-line message (with its ``(see PROG --help)`` hint), exit 2."""


class HelpRequested(Exception):
    """``-h``/``--help`` was given: ``text`` is the help to print on stdout, exit 0."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class _Formatter(argparse.HelpFormatter):
    """argparse's layout, without breaking lines inside ``--option-names`` at their hyphens."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


def formatter(prog: str) -> argparse.HelpFormatter:
    """The help layout shared by every command (option names up to 32 columns wide)."""
    return _Formatter(prog, max_help_position=DEFAULT_HELP_POSITION)


def help_text(parser: argparse.ArgumentParser) -> str:
    """The parser's help without its trailing blank line."""
    return parser.format_help().rstrip("\n")


def hint(prog: str, message: str) -> str:
    """``PROG: MESSAGE (see PROG --help)``, the one line of every usage error."""
    return f"{prog}: {message} (see {prog} --help)"


class _Help(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        raise HelpRequested(help_text(parser))


class Parser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` that raises instead of printing and exiting: `HelpRequested`
    for ``-h``/``--help`` (wherever it appears, as argparse does) and `UsageError` for anything
    wrong. No abbreviated options (``--hol`` is not ``--holes``)."""

    def __init__(
        self,
        prog: str,
        *,
        usage: str | None = None,
        description: str | None = None,
        epilog: str | None = None,
        formatter_class: Any = formatter,
    ) -> None:
        super().__init__(
            prog=prog,
            usage=usage,
            description=description,
            epilog=epilog,
            formatter_class=formatter_class,
            add_help=False,
            allow_abbrev=False,
        )
        self.add_argument(*HELP_OPTIONS, action=_Help, help=HELP_TEXT)

    def error(self, message: str) -> NoReturn:
        raise UsageError(hint(self.prog, message))

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise UsageError(hint(self.prog, (message or f"exit status {status}").strip()))


def show_help(requested: HelpRequested | str) -> int:
    """Print the help on standard output; the exit status of ``--help``, 0."""
    out = Output(1)
    out.line(requested.text if isinstance(requested, HelpRequested) else requested)
    out.flush()
    return 0


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string the parser knows, in order (``-h``, ``--help``, ``--holes`` ...),
    those hidden from the help (``argparse.SUPPRESS``) left out."""
    return [
        option
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
    ]


def flag_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings that take no value (``--pie``), ``-h``/``--help`` left out: for the
    hand-written parsers of spec-fixed command lines, which take their options from a help
    parser so that the help and the parsing cannot disagree."""
    return {
        option
        for action in parser._actions
        if action.nargs == 0 and action.help != argparse.SUPPRESS
        for option in action.option_strings
        if option not in HELP_OPTIONS
    }


def value_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings that take one value (``--listenOn PORT``); see `flag_options`."""
    return set(option_strings(parser)) - flag_options(parser) - set(HELP_OPTIONS)
