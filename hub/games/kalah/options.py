"""Command-line options of ``hub serve kalah`` and ``hub play kalah`` (pure parsing)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

import attrs

from hub.core.commands.usage import Parser
from hub.core.io.limits import ServerLimits, add_limit_options, limits_from_args
from hub.core.io.serverlog import add_log_options, log_level_from_args
from hub.core.io.text import parse_whole_number
from hub.games.kalah.ai import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from hub.games.kalah.protocol import MAX_TIME_MS, BadLine, max_line, parse_script
from hub.games.kalah.rules import MAX_HOLES, MAX_SEEDS, MIN_HOLES, MIN_SEEDS
from hub.games.kalah.settings import (
    DEFAULT_HOLES,
    DEFAULT_SEEDS,
    DEFAULT_TIME_MS,
    KalahSettings,
    parse_layout,
)
from hub.records.options import add_record_options, record_path
from hub.web.options import add_web_option

if TYPE_CHECKING:
    from hub.records.database import Location
    from hub.web.limits import AllowedHosts

DEFAULT_GRACE_MS = 2000
HANDSHAKE_SECONDS = 30.0
"""How long a client has to answer ``INFO`` with ``READY`` (``--idle-timeout``'s default)."""
SERVER_LIMITS = ServerLimits(idle_timeout=HANDSHAKE_SECONDS)
"""``hub serve kalah``'s limits when no option changes them."""


class OptionsError(Exception):
    """Bad command-line arguments: the message to print after the usage line."""


DEFAULT_SETTINGS = KalahSettings(DEFAULT_HOLES, DEFAULT_SEEDS)


@attrs.frozen
class GameOptions:
    """What a server (or a local session) plays: the games' ``settings`` (Kalah's one
    settings value: the board, the pie rule, the client's limit per turn, the layout) and
    only what the server chooses besides (its own limit, who moves first, its player)."""

    settings: KalahSettings = DEFAULT_SETTINGS
    server_time_ms: int | None = None
    """The server side's own limit; None: the same as ``settings.time_ms``."""
    first: str = "client"
    opponent: str = "ai"
    level: int = DEFAULT_LEVEL
    seed: int | None = None
    script: str | None = None

    @property
    def server_limit_ms(self) -> int:
        return self.settings.time_ms if self.server_time_ms is None else self.server_time_ms


@attrs.frozen
class ServeOptions:
    game: GameOptions
    port: str = "0"
    host: str | None = "localhost"
    limits: ServerLimits = SERVER_LIMITS
    """``--max-connections`` ... ``--idle-timeout`` (for Kalah: the deadline for ``READY``)."""
    log_level: str = "warning"
    games: int | None = None
    """Stop after this many games (tests, demos); None = serve forever."""
    web: tuple[str, int] | None = None
    """Serve the live web view of the games there (``--web [HOST:]PORT``)."""
    record: Location | None = None
    """The database every finished game is written to (``--db PATH``); None: ``--no-record``."""
    allowed_hosts: AllowedHosts | None = None
    """The names the web view answers to (``--allowed-hosts``; None: the default)."""


@attrs.frozen
class PlayOptions:
    game: GameOptions
    connect: str | None = None
    human: bool = True
    quiet: bool = False
    record: Location | None = None
    """Where a local game is recorded when it ends (``--db PATH``); None: ``--no-record``."""
    grace_ms: int = DEFAULT_GRACE_MS
    """How much longer than twice the time limit the client waits for the server."""


class _KalahOptionParser(Parser):
    """`hub.core.commands.usage.Parser` (``--help`` raises `HelpRequested`), errors as
    `OptionsError`."""

    def error(self, message: str) -> NoReturn:
        raise OptionsError(message)


def _ranged(name: str, low: int, high: int, unit: str = "") -> Callable[[str], int]:
    """A converter to a whole number in ``low..high``; ``unit`` follows the range in the
    message (``" ms (0: no limit)"``). A negative number is out of the range, not junk."""

    def convert(text: str) -> int:
        value = parse_whole_number(text.removeprefix("-"), max_digits=10)
        if value is None:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number, {low}..{high}{unit}, not {text!r}"
            )
        if text.startswith("-"):
            value = -value
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be {low}..{high}{unit}, not {value}")
        return value

    return convert


def _milliseconds(name: str) -> Callable[[str], int]:
    """A time limit in ms, 0 for none (``--time-ms``, ``--server-time-ms``)."""
    return _ranged(name, 0, MAX_TIME_MS, " ms (0: no limit)")


def _layout_argument(text: str) -> tuple[int, ...]:
    """``--layout``: `parse_layout`, its error as argparse's."""
    try:
        layout = parse_layout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if layout is None:
        raise argparse.ArgumentTypeError("a layout needs seed counts separated by commas")
    return layout


def add_board_options(
    parser: argparse._ActionsContainer, *, time_default: str = f"{DEFAULT_TIME_MS}"
) -> None:
    """The options of the game itself: ``--holes``, ``--seeds``, ``--random``, ``--layout``,
    ``--pie`` and ``--time-ms`` (None when not given; `board` checks them together);
    ``time_default`` is what the help says ``--time-ms`` defaults to."""
    parser.add_argument(
        "--holes",
        metavar="H",
        type=_ranged("holes", MIN_HOLES, MAX_HOLES),
        help=f"holes on each side, {MIN_HOLES}..{MAX_HOLES} (default: {DEFAULT_HOLES}, or as "
        "many as --layout gives)",
    )
    parser.add_argument(
        "--seeds",
        metavar="S",
        type=_ranged("seeds", MIN_SEEDS, MAX_SEEDS),
        help=f"seeds in each hole at the start, {MIN_SEEDS}..{MAX_SEEDS} (default: "
        f"{DEFAULT_SEEDS}, or the mean of --layout)",
    )
    parser.add_argument(
        "--random",
        action="store_true",
        help="a random layout of the same seeds for each game, the same on both sides, "
        "drawn from --seed; not with --layout (default: S seeds in every hole)",
    )
    parser.add_argument(
        "--layout",
        metavar="C,C,..",
        type=_layout_argument,
        help="the seeds in each hole of a side, e.g. 6,4,7,6,5,8, the same on both sides "
        "(default: S seeds in every hole)",
    )
    parser.add_argument(
        "--pie",
        action="store_true",
        help="the pie rule: after the first move the second player may swap sides (default: off)",
    )
    parser.add_argument(
        "--time-ms",
        metavar="T",
        type=_milliseconds("the time per move"),
        help=f"time for each move in ms; 0: no limit (default: {time_default})",
    )


def _add_game_options(parser: argparse.ArgumentParser, *, serving: bool) -> None:
    game = parser.add_argument_group("the game")
    if serving:
        add_board_options(game)
    else:
        add_board_options(game, time_default="0, a person should not lose on time unasked")
    them = "the server side" if serving else "the opponent"
    game.add_argument(
        "--server-time-ms",
        metavar="T",
        type=_milliseconds(f"{them}'s time per move"),
        help=f"{them}'s own time for each move in ms; 0: no limit (default: the same as --time-ms)",
    )
    game.add_argument(
        "--first",
        choices=("client", "server", "random"),
        default="client",
        help="who moves first: the client"
        + (" (with --opponent client: the first to connect)" if serving else " (you)")
        + ", the server"
        + ("" if serving else " (the opponent)")
        + " or a coin drawn from --seed (default: client)",
    )
    game.add_argument(
        "--opponent",
        choices=("ai", "client", "human") if serving else ("ai", "human"),
        default="ai",
        help=(
            "who plays the clients: the server's AI, another client (pairs in order of "
            "connection) or a person at the server's terminal (default: ai)"
            if serving
            else "who plays against you in a local game: the AI or a second person at this "
            "terminal (default: ai)"
        ),
    )
    game.add_argument(
        "--level",
        metavar="N",
        type=_ranged("level", MIN_LEVEL, MAX_LEVEL),
        help=f"the AI's strength, {MIN_LEVEL}..{MAX_LEVEL} (default: {DEFAULT_LEVEL})",
    )
    game.add_argument(
        "--seed",
        metavar="N",
        type=_ranged("seed", 0, 2**63 - 1),
        help="seed of the random layouts and coins, so that games replay (default: fresh "
        "randomness for each game)",
    )
    game.add_argument("--script", help=argparse.SUPPRESS)  # tests: the server's first turns


def _game(args: argparse.Namespace, default_time_ms: int) -> GameOptions:
    time_ms = args.time_ms if args.time_ms is not None else default_time_ms
    try:
        settings = KalahSettings.given(
            args.holes,
            args.seeds,
            pie=args.pie,
            time_ms=time_ms,
            random=args.random,
            layout=args.layout,
        )
    except ValueError as exc:
        raise OptionsError(str(exc)) from None
    if args.script is not None:
        try:
            parse_script(args.script, settings.holes)
        except BadLine as exc:
            raise OptionsError(f"--script: {exc}") from None
    return GameOptions(
        settings,
        server_time_ms=args.server_time_ms,
        first=args.first,
        opponent=args.opponent,
        level=args.level if args.level is not None else DEFAULT_LEVEL,
        seed=args.seed,
        script=args.script,
    )


SERVE_PROG = "hub serve kalah"
PLAY_PROG = "hub play kalah"
SERVE_DESCRIPTION = (
    "Referee Kalah games over TCP (the protocol of docs/kalah.md): each client that connects "
    "plays the server's AI, another client or a person at this terminal. The port is printed "
    "on stderr once listening, one line per finished game on stdout."
)
PLAY_DESCRIPTION = (
    "Play Kalah: with --connect, as a client of a Kalah server (you, or the AI with --ai); "
    "without it, a local game at this terminal against the AI or a second person (or the AI "
    "against itself with --ai). Type a hole's number (1 is your leftmost) to move. Seats "
    "given as words (hub play kalah human ai:9) make it the play of every declared game "
    "instead: see hub play kalah human --help."
)


def serve_parser() -> argparse.ArgumentParser:
    """The parser of ``hub serve kalah`` (its ``--help`` lists every option)."""
    parser = _KalahOptionParser(
        SERVE_PROG, usage=f"{SERVE_PROG} [options]", description=SERVE_DESCRIPTION
    )
    server = parser.add_argument_group("the server")
    server.add_argument(
        "--listenOn",
        metavar="PORT",
        default="0",
        help="the port number or service name to listen on; 0: any free port (default: 0)",
    )
    server.add_argument(
        "--host",
        metavar="ADDR",
        default="localhost",
        help="the address to listen on; '': every interface (default: localhost)",
    )
    add_log_options(server)
    server.add_argument("--games", type=_ranged("games", 1, 10**9), help=argparse.SUPPRESS)
    add_web_option(server)
    add_record_options(server)
    add_limit_options(
        parser,
        idle_default=HANDSHAKE_SECONDS,
        idle_help="how long a client has to answer INFO with READY, in seconds; 0: no limit",
    )
    _add_game_options(parser, serving=True)
    return parser


def play_parser() -> argparse.ArgumentParser:
    """The parser of ``hub play kalah`` (its ``--help`` lists every option)."""
    parser = _KalahOptionParser(
        PLAY_PROG, usage=f"{PLAY_PROG} [options]", description=PLAY_DESCRIPTION
    )
    client = parser.add_argument_group("the player")
    client.add_argument(
        "--connect",
        metavar="HOST:PORT",
        help="play a game on the Kalah server there (default: a local game)",
    )
    who = client.add_mutually_exclusive_group()
    who.add_argument("--human", action="store_true", help="you play, at this terminal (default)")
    who.add_argument(
        "--ai",
        action="store_true",
        help="the AI plays in your place, at --level (default: you play)",
    )
    client.add_argument(
        "--quiet",
        action="store_true",
        help="with --connect: print only the result word (default: the moves and the board)",
    )
    client.add_argument(
        "--grace-ms",
        metavar="MS",
        type=_ranged("grace", 0, MAX_TIME_MS),
        default=DEFAULT_GRACE_MS,
        help="with --connect: how much longer than twice the time limit to wait for a line "
        f"from the server before giving up on it as too slow, exit 4 (default: {DEFAULT_GRACE_MS})",
    )
    add_record_options(client)
    _add_game_options(parser, serving=False)
    return parser


def parse_serve(argv: Sequence[str]) -> ServeOptions:
    """``hub serve kalah``'s options; raises `OptionsError`, or `HelpRequested` for --help."""
    parser = serve_parser()
    args = parser.parse_args(list(argv))
    if not args.listenOn:
        raise OptionsError("--listenOn needs a port number or a service name")
    game = _game(args, DEFAULT_TIME_MS)
    limits = limits_from_args(args)
    needed = max_line(game.settings.holes, game.settings.seeds)
    if limits.max_line is not None and limits.max_line < needed:
        raise OptionsError(f"--max-line must be at least {needed} for this board")
    return ServeOptions(
        game=game,
        port=args.listenOn,
        host=args.host or None,
        limits=limits,
        log_level=log_level_from_args(args),
        games=args.games,
        web=args.web,
        record=record_path(args),
        allowed_hosts=args.allowed_hosts,
    )


def parse_play(argv: Sequence[str]) -> PlayOptions:
    """``hub play kalah``'s options; raises `OptionsError`, or `HelpRequested` for --help."""
    args = play_parser().parse_args(list(argv))
    # Local games default to no limit: a person should not lose on time unless asked to.
    return PlayOptions(
        game=_game(args, 0),
        connect=args.connect,
        human=not args.ai,
        quiet=args.quiet,
        record=record_path(args),
        grace_ms=args.grace_ms,
    )


def has_seat_specs(argv: Sequence[str]) -> bool:
    """Whether ``hub play kalah``'s arguments name seats (``human ai:9``): an argument that
    is neither an option of `play_parser` (or an unambiguous abbreviation of one) nor the
    value such an option takes. Such a command line is the generic ``hub play`` of every
    declared game; any other is Kalah's client or local game, exactly as before."""
    actions = play_parser()._option_string_actions
    args = list(argv)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return index + 1 < len(args)
        if not arg.startswith("-") or arg == "-":
            return True
        name, equals, _ = arg.partition("=")
        action = actions.get(name)
        if action is None:
            matches = {actions[key] for key in actions if key.startswith(name)}
            action = matches.pop() if len(matches) == 1 else None
        takes_value = action is not None and action.nargs != 0
        index += 2 if takes_value and not equals else 1
    return False
