"""A declared game's settings as command-line options, the same for every verb."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hub.core.commands.usage import HelpRequested, Parser, UsageError, show_help
from hub.core.io.output import Output
from hub.core.play.game import TC_HELP as TC_TEXT
from hub.core.play.game import Game, Option, parse_time_control

T = TypeVar("T")

TC_HELP = TC_TEXT + " (default {default})"


def option_help(option: Option) -> str:
    """An option's help line: its text, its range, and its default (``off`` for a switch,
    ``none`` for empty text) unless the text says it."""
    bounds = ""
    if option.low is not None and option.high is not None:
        bounds = f", {option.low:g} to {option.high:g}"
    elif option.choices:
        bounds = f", one of {', '.join(option.choices)}"
    if "(default" in option.help:
        return f"{option.help}{bounds}"
    if option.switch:
        return f"{option.help}{bounds} (default: off)"
    default = " (default: none)" if option.default == "" else f" (default {option.default})"
    return f"{option.help}{bounds}{default}"


def add_game_options(parser: argparse.ArgumentParser, game: type[Game[Any, Any]]) -> None:
    """``--NAME VALUE`` for each of the game's options (a bool is ``--NAME yes|no``)."""
    if not game.options:
        return
    group = parser.add_argument_group(f"{game.name} settings")
    for option in game.options:
        group.add_argument(
            option.flag, dest=f"setting_{option.name}", metavar="VALUE", help=option_help(option)
        )


def settings_from(options: argparse.Namespace, game: type[Game[Any, Any]]) -> dict[str, Any]:
    """The settings given on the command line (as text; `Game` converts and checks them)."""
    given = {}
    for option in game.options:
        value = getattr(options, f"setting_{option.name}", None)
        if value is not None:
            given[option.name] = value
    return given


def add_time_control(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--tc", metavar="TC", default=default, help=TC_HELP.format(default=default))


time_control = parse_time_control
"""`--tc`'s text as a `TimeControl` (`hub.core.play.game.parse_time_control`)."""


def read_command_line(
    parser: argparse.ArgumentParser, args: Sequence[str], build: Callable[[argparse.Namespace], T]
) -> T | int:
    """``build(options)`` from the parsed ``args``, or the exit status of ``--help`` (0) or
    of a usage error (2, one line on stderr: a bad option, setting or seat spec)."""
    err = Output(2)
    try:
        return build(parser.parse_args(list(args)))
    except HelpRequested as help_:
        return show_help(help_)
    except UsageError as exc:
        err.line(str(exc))
    except ValueError as exc:  # SettingsError, SeatSpecError: the command line's values
        err.line(f"{parser.prog}: {exc} (see {parser.prog} --help)")
    err.flush()
    return 2


ADMIN_ENVIRONMENT = "HUB_ADMIN_TOKEN"
"""The environment variable ``--admin-token`` defaults to (kept out of the process list)."""


def add_admin_option(parser: Parser, where: str = "/GAME/") -> None:
    """``--admin-token``: the operator's token (``where``: the game's web root, ``/GAME/``
    on ``hub serve``, ``/`` on ``hub serve GAME``)."""
    parser.add_argument(
        "--admin-token",
        metavar="TOKEN",
        default=os.environ.get(ADMIN_ENVIRONMENT, ""),
        help="the operator's secret token: with it (Authorization: Bearer TOKEN) POST "
        f"{where}admin/round-robin starts a round-robin among the bots waiting for that "
        f"game, its standings at {where}match (docs/running.md) (default: "
        f"${ADMIN_ENVIRONMENT}; none: nobody may)",
    )
