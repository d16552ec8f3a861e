"""``hub bots add|list|remove``: the operator's registered bot names (docs/bots.md).

``hub bots add NAME`` registers NAME in the records database (``--db``, the one ``hub serve``
records into) and prints its token once, on stdout alone: the bot sends it in its hello
(``"token"``) to play as NAME; only the token's SHA-256 is kept (hub.records.identities).
``list`` prints the bots' names, ``remove`` forgets one (its games stay recorded).
Exit status: 0 done, 1 a name taken, unknown or not a name, or an unusable database, 2 a
usage error.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from hub.core.io.output import Output
from hub.records.commands import names_at, run
from hub.records.identities import NAME_RULE, BadName
from hub.records.options import add_db_option

PROG = "hub bots"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Register the names of bots, so that their games and ratings follow "
        "them: a bot plays as a registered name only with its token (the hello's "
        '"token"; docs/bots.md). The names are kept in the records database.',
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add = commands.add_parser(
        "add", help="register a bot's name and print its token (once: only its hash is kept)"
    )
    add.add_argument("name", metavar="NAME", help=NAME_RULE)
    listing = commands.add_parser("list", help="the registered bots' names")
    remove = commands.add_parser(
        "remove", help="forget a bot's name (its games stay recorded; its token stops working)"
    )
    remove.add_argument("name", metavar="NAME")
    for command in (add, listing, remove):
        add_db_option(command)
    return parser


def main(argv: Sequence[str]) -> int:
    """``hub bots COMMAND ...``; returns the exit status."""
    return run(build_parser(), argv, _bots)


def _bots(options: argparse.Namespace, out: Output, err: Output) -> int:
    store = names_at(options, PROG, out, err)
    if isinstance(store, int):
        return store
    with store:
        if options.command == "add":
            try:
                token = store.add(options.name, "bot")
            except BadName as exc:
                err.line(f"{PROG} add: {exc}")
                return 1
            out.line(token)
            err.line(
                f"{PROG}: registered the bot {options.name!r}; its token is printed "
                'above, once: give it to the bot (its hello\'s "token")'
            )
            return 0
        if options.command == "remove":
            if not store.remove(options.name, "bot"):
                err.line(f"{PROG} remove: no bot named {options.name!r} is registered")
                return 1
            return 0
        for bot in store.names("bot"):
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(bot.created_at))
            out.line(f"{bot.name}  (since {since})")
        return 0
