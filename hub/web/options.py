"""The ``--web [HOST:]PORT`` and ``--allowed-hosts`` options and ``$HUB_WEB``, without
importing the web stack.

Commands parse these at start-up whether or not they serve the web view, so this module
imports nothing heavy; `hub.web.server.start_web` does the serving.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from hub.web.limits import AllowedHosts

DEFAULT_HOST = "127.0.0.1"
ALLOWED_HOSTS_HELP = (
    "the host names (and addresses) the web view answers to, comma-separated; a request "
    "with another Host, or from a page with another Origin, is refused (default: the "
    "listening address, localhost, 127.0.0.1 and ::1, and this machine's name when "
    "listening on every interface; '*': any name)"
)
ENVIRONMENT = "HUB_WEB"
"""``[HOST:]PORT`` for programs whose command line a spec fixes (``clubhub``)."""


def web_address(text: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[V6]:PORT`` as (host, port); `ValueError` otherwise."""
    host, colon, port = text.rpartition(":")
    if not colon:
        host = DEFAULT_HOST
    host = host.removeprefix("[").removesuffix("]")
    if not port.isdigit() or not 0 <= int(port) <= 65535 or (colon and not host):
        raise ValueError(f"{text!r} is not [HOST:]PORT")
    return host, int(port)


def _address_argument(text: str) -> tuple[str, int]:
    import argparse  # (only a command that parses --web gets here, and it has argparse)

    try:
        return web_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def allowed_hosts(text: str) -> AllowedHosts:
    """``--allowed-hosts NAMES`` (commas between names, ``*`` any); `ValueError` if it names
    none. For commands that parse their arguments by hand; `add_web_option` uses it too."""
    from hub.web.limits import AllowedHosts

    return AllowedHosts.parse(text)


def _hosts_argument(text: str) -> AllowedHosts:
    import argparse

    try:
        return allowed_hosts(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_web_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--web [HOST:]PORT``: serve the live web view (port 0: any free port), and
    ``--allowed-hosts NAMES``: the names it answers to (``options.allowed_hosts``, None for
    the default; every command's ``start_web`` is given it). The one place of both."""
    parser.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        type=_address_argument,
        default=None,
        help="serve a live web view of the games on PORT (0: any free port; host 127.0.0.1 "
        "unless given); its URL is printed on stderr (default: no web view)",
    )
    parser.add_argument(
        "--allowed-hosts",
        metavar="NAMES",
        type=_hosts_argument,
        default=None,
        help=f"with --web, {ALLOWED_HOSTS_HELP}",
    )


def web_from_environment(environ: dict[str, str] | None = None) -> tuple[str, int] | None:
    """The address in ``$HUB_WEB`` (None if unset or empty); `ValueError` if malformed."""
    value = (os.environ if environ is None else environ).get(ENVIRONMENT, "")
    return web_address(value) if value else None
