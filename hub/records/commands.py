"""What the records' commands (``hub games``, ``hub bots``, ``hub names``) share: parsing
their command line and running them with the same exit statuses.

`run` parses (``--help``: 0, a usage error: 2, as argparse says them), gives the command its
stdout and stderr (`hub.core.io.output.Output`, flushed at the end, whatever happens) and
turns Ctrl-C into 130. `open_names` opens the registered names of a records database, or
says on stderr why it cannot (exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from hub.core.io.output import Output
from hub.records.database import database_errors, exists, one_line
from hub.records.identities import IdentityStore
from hub.records.options import db_path

Body = Callable[[argparse.Namespace, Output, Output], int]
"""A command once its line is parsed: its options, stdout and stderr; its exit status."""


def run(parser: argparse.ArgumentParser, argv: Sequence[str], body: Body) -> int:
    """Parse ``argv`` with ``parser`` and run ``body``; the exit status."""
    try:
        options = parser.parse_args(list(argv))
    except SystemExit as exc:  # --help (0) or a usage error (2)
        sys.stdout.flush()
        return exc.code if isinstance(exc.code, int) else 0
    out, err = Output(1), Output(2)
    try:
        return body(options, out, err)
    except KeyboardInterrupt:
        return 130
    finally:
        out.flush()
        err.flush()


def names_at(
    options: argparse.Namespace, prog: str, out: Output, err: Output
) -> IdentityStore | int:
    """The registered names of the database ``options`` name (``--db``), or the exit status
    if the command cannot go on: no database there for a ``list`` (0: it says so, as ``hub
    games`` does, and creates no file) or a ``remove`` (1), or one that cannot be used (1,
    after a line on ``err``)."""
    path = db_path(options)
    if options.command in ("list", "remove") and not exists(path):
        missing = f"no names registered: {path} does not exist"
        if options.command == "remove":
            err.line(f"{prog} remove: {missing}")
            return 1
        out.line(missing)
        return 0
    try:
        return IdentityStore.open(path)
    except database_errors(OSError) as exc:
        err.line(f"{prog}: cannot use the records database {path}: {one_line(exc)}")
        return 1
