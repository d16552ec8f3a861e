"""``hub names list|remove``: the names people registered on a lobby page (docs/web.md
"Names and ratings"), for the operator.

A person picks a name once on a game's lobby page (`hub.declared.names`); it is kept in the
records database with the hash of a token only that browser holds. ``list`` prints them;
``remove NAME`` forgets one: its token stops working (the browser that held it plays as a
guest until it picks a name again), and the name is free to be picked again, by anyone.
Nothing recorded is deleted: the games played under the name stay in the records with the
name (``person:NAME``), and so does its rating, which is computed from those games; whoever
registers the name next plays on under that identity (its games and rating). Bots' names
are `hub.records.bots`' (``hub bots``). Exit status: 0 done, 1 a name not registered (or a
bot's) or an unusable database, 2 a usage error.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from hub.core.io.output import Output
from hub.records.commands import names_at, run
from hub.records.options import add_db_option

PROG = "hub names"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="The names people picked on a lobby page (each kept with its browser's "
        "token). Removing one frees the name; the games played under it stay recorded, and "
        "its rating with them (docs/web.md). Bots' names: hub bots.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    listing = commands.add_parser("list", help="the names people registered")
    remove = commands.add_parser(
        "remove",
        help="forget a person's name: its browser's token stops working and the name is "
        "free again (its games stay recorded)",
    )
    remove.add_argument("name", metavar="NAME")
    for command in (listing, remove):
        add_db_option(command)
    return parser


def main(argv: Sequence[str]) -> int:
    """``hub names COMMAND ...``; returns the exit status."""
    return run(build_parser(), argv, _names)


def _names(options: argparse.Namespace, out: Output, err: Output) -> int:
    store = names_at(options, PROG, out, err)
    if isinstance(store, int):
        return store
    with store:
        if options.command == "remove":
            found = store.find(options.name)
            if found is not None and found.kind != "person":
                err.line(
                    f"{PROG} remove: {found.name!r} is a {found.kind}'s name, not a person's "
                    f"(hub {found.kind}s remove {found.name})"
                )
                return 1
            if found is None or not store.remove(options.name, "person"):
                err.line(f"{PROG} remove: no person named {options.name!r} is registered")
                return 1
            err.line(
                f"{PROG}: removed {found.name!r}; its games stay recorded, and the name may "
                "be picked again"
            )
            return 0
        for person in store.names("person"):
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(person.created_at))
            out.line(f"{person.name}  (since {since})")
        return 0
