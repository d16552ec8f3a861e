"""The command line of ``uqchessserver`` and ``hub serve uqchess`` (pure), and the program's
exit statuses (shared/specs/uqchess.md): `parse_args` gives the options as one value
(`ServerOptions`), or None for the usage error (exit 8); `help_parser` lists them."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from hub.chess.engine_client import ENGINE_ENV
from hub.core.commands.usage import Parser, flag_options, value_options
from hub.core.io.limits import LIMIT_OPTIONS, ServerLimits, add_limit_options, limits_from_values
from hub.core.io.serverlog import LOG_LEVELS, add_log_options
from hub.core.io.text import parse_whole_number
from hub.records.options import add_record_options, record_path
from hub.web.options import ENVIRONMENT as WEB_ENVIRONMENT
from hub.web.options import add_web_option, allowed_hosts, web_address

if TYPE_CHECKING:
    from hub.records.database import Location
    from hub.web.limits import AllowedHosts

PROGRAM = "uqchessserver"
USAGE = "Usage: ./uqchessserver [--listenOn portno]"
EXIT_USAGE = 8
EXIT_LISTEN = 20
EXIT_ENGINE_START = 4
EXIT_ENGINE_DIED = 7
MAX_ENGINES = 64
"""The most engines ``--engines`` may ask for."""


@attrs.frozen
class ServerOptions:
    port: str = "0"
    engines: int = 1
    web: tuple[str, int] | None = None
    """Where to serve the live web view (``hub serve uqchess --web``, or ``$HUB_WEB``)."""
    record: Location | None = None
    """The records database every finished game goes to (``hub serve uqchess``: ``--db PATH``,
    by default hub.records' default, None with ``--no-record``; ``uqchessserver``: ``$HUB_DB``,
    None when unset)."""
    limits: ServerLimits = attrs.Factory(ServerLimits)
    """``hub serve uqchess``'s ``--max-connections`` ...; ``uqchessserver`` uses the defaults."""
    log_level: str | None = None
    """``hub serve uqchess``: ``warning`` unless ``--log-level``/``--verbose`` say more;
    ``uqchessserver``: None, nothing is logged (its spec fixes what it prints)."""
    allowed_hosts: AllowedHosts | None = None
    """``hub serve uqchess --allowed-hosts``: the names the web view answers to (None: its
    address and the loopback names)."""


def help_parser(*, hub_options: bool = False) -> Parser:
    """The ``--help`` of ``uqchessserver`` (``hub serve uqchess`` with ``hub_options``): it
    lists the options `parse_args` takes (which keeps the spec's usage error, exit 8)."""
    parser = Parser(
        "hub serve uqchess" if hub_options else PROGRAM,
        description="Serve networked chess on localhost (docs/uqchess.md): each client of "
        "uqchessclient's protocol plays the computer (Stockfish) or another client. The port "
        "is printed on stderr once listening. Wrong usage prints the spec's usage line and "
        "exits 8; --help works as the only argument.",
        epilog=f"Environment: {ENGINE_ENV}='PROGRAM ARGS' is the engine (default: stockfish on "
        "PATH, else /usr/games/stockfish"
        + (
            ", else our own engine, hub engine)."
            if hub_options
            else f"); {WEB_ENVIRONMENT}=[HOST:]PORT serves the live web view and "
            "HUB_DB=PATH records the games (default: neither)."
        ),
    )
    parser.add_argument(
        "--listenOn",
        metavar="portno",
        help="the port number or service name to listen on; 0: any free port (default: 0)",
    )
    parser.add_argument(
        "--engines",
        metavar="N",
        help=f"chess engines shared by the games, 1..{MAX_ENGINES} (default: 1)",
    )
    if hub_options:
        add_web_option(parser)
        add_record_options(parser)
        add_limit_options(parser)
        add_log_options(parser)
    return parser


def parse_args(args: Sequence[str], *, hub_options: bool = False) -> ServerOptions | None:
    """``[--listenOn portno] [--engines N]``, each at most once with a non-empty value;
    ``hub serve uqchess`` (``hub_options``) also takes ``--web [HOST:]PORT``, ``--db PATH``,
    ``--no-record``, the limits (`hub.core.io.limits.LIMIT_OPTIONS`), ``--log-level LEVEL`` and
    ``-v``/``--verbose``. Only the options `help_parser` lists are known."""
    parser = help_parser(hub_options=hub_options)
    flags, allowed = flag_options(parser), value_options(parser)
    values: dict[str, str] = {}
    given: set[str] = set()
    rest = list(args)
    while rest:
        option = rest.pop(0)
        if option in flags and option not in given:
            given.add(option)
            continue
        if option not in allowed or option in values or not rest:
            return None
        value = rest.pop(0)
        if not value:
            return None
        values[option] = value
    engines = 1
    if "--engines" in values:
        count = parse_whole_number(values["--engines"], max_digits=3)
        if count is None or not 1 <= count <= MAX_ENGINES:
            return None
        engines = count
    web = None
    if "--web" in values:
        try:
            web = web_address(values["--web"])
        except ValueError:
            return None
    record = None
    limits = ServerLimits()
    log_level = None
    if hub_options:
        no_record = "--no-record" in given
        record = record_path(argparse.Namespace(db=values.get("--db"), no_record=no_record))
        try:
            limits = limits_from_values({k: v for k, v in values.items() if k in LIMIT_OPTIONS})
        except ValueError:
            return None
        verbose = bool(given & {"-v", "--verbose"})
        log_level = values.get("--log-level", "info" if verbose else "warning")
        if log_level not in LOG_LEVELS:
            return None
    hosts = None
    if "--allowed-hosts" in values:
        try:
            hosts = allowed_hosts(values["--allowed-hosts"])
        except ValueError:
            return None
    return ServerOptions(
        values.get("--listenOn", "0"), engines, web, record, limits, log_level, hosts
    )
