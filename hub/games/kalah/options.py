"""Command-line options of ``hub serve kalah`` and ``hub play kalah`` (pure parsing)."""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Callable, Sequence

import attrs

from hub.core.text import parse_whole_number
from hub.games.kalah.ai import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from hub.games.kalah.protocol import MAX_TIME_MS, BadLine, parse_script
from hub.games.kalah.rules import MAX_HOLES, MAX_SEEDS, MIN_HOLES, MIN_SEEDS
from hub.records.options import add_record_options, record_path
from hub.web.options import add_web_option

DEFAULT_HOLES, DEFAULT_SEEDS = 6, 4
DEFAULT_TIME_MS = 5000
DEFAULT_MAX_CONNECTIONS = 256


class OptionsError(Exception):
    """Bad command-line arguments: the message to print after the usage line."""


@attrs.frozen
class GameOptions:
    """The settings of the games a server (or a local session) plays."""

    holes: int = DEFAULT_HOLES
    seeds: int = DEFAULT_SEEDS
    random_layout: bool = False
    layout: tuple[int, ...] | None = None
    pie: bool = False
    time_ms: int = DEFAULT_TIME_MS
    server_time_ms: int | None = None
    """The server side's own limit; None: the same as ``time_ms``."""
    first: str = "client"
    opponent: str = "ai"
    level: int = DEFAULT_LEVEL
    seed: int | None = None
    script: str | None = None

    @property
    def server_limit_ms(self) -> int:
        return self.time_ms if self.server_time_ms is None else self.server_time_ms


@attrs.frozen
class ServeOptions:
    game: GameOptions
    port: str = "0"
    host: str | None = "localhost"
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    games: int | None = None
    """Stop after this many games (tests, demos); None = serve forever."""
    web: tuple[str, int] | None = None
    """Serve the live web view of the games there (``--web [HOST:]PORT``)."""
    record: pathlib.Path | None = None
    """The database every finished game is written to (``--db PATH``); None: ``--no-record``."""


@attrs.frozen
class PlayOptions:
    game: GameOptions
    connect: str | None = None
    human: bool = True
    quiet: bool = False
    record: pathlib.Path | None = None
    """Where a local game is recorded when it ends (``--db PATH``); None: ``--no-record``."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise OptionsError(message)


def _ranged(name: str, low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        value = parse_whole_number(text, max_digits=10)
        if value is None:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be {low}..{high}, not {value}")
        return value

    return convert


def _layout(text: str) -> tuple[int, ...]:
    counts = [parse_whole_number(part, max_digits=4) for part in text.replace(" ", ",").split(",")]
    if any(count is None for count in counts):
        raise argparse.ArgumentTypeError(f"a layout is counts separated by commas, not {text!r}")
    return tuple(count for count in counts if count is not None)


def add_board_options(parser: argparse._ActionsContainer) -> None:
    """The options of the game itself: ``--holes``, ``--seeds``, ``--random``, ``--layout``,
    ``--pie`` and ``--time-ms`` (None when not given; `board` checks them together)."""
    parser.add_argument("--holes", type=_ranged("holes", MIN_HOLES, MAX_HOLES))
    parser.add_argument("--seeds", type=_ranged("seeds", MIN_SEEDS, MAX_SEEDS))
    parser.add_argument("--random", action="store_true", help="random layout (seeded)")
    parser.add_argument("--layout", type=_layout, help="the layout of each side, e.g. 6,4,7,6,5,8")
    parser.add_argument("--pie", action="store_true", help="the pie rule is in force")
    parser.add_argument(
        "--time-ms", type=_ranged("time", 0, MAX_TIME_MS), help="time per move in ms; 0: none"
    )


def _add_game_options(parser: argparse.ArgumentParser, *, serving: bool) -> None:
    add_board_options(parser)
    parser.add_argument("--server-time-ms", type=_ranged("time", 0, MAX_TIME_MS))
    parser.add_argument("--first", choices=("client", "server", "random"), default="client")
    parser.add_argument(
        "--opponent",
        choices=("ai", "client", "human") if serving else ("ai", "human"),
        default="ai",
    )
    parser.add_argument("--level", type=_ranged("level", MIN_LEVEL, MAX_LEVEL))
    parser.add_argument("--seed", type=_ranged("seed", 0, 2**63 - 1))
    parser.add_argument("--script", help=argparse.SUPPRESS)  # tests: the server's first turns


def board(args: argparse.Namespace) -> tuple[int, int, tuple[int, ...] | None]:
    """Holes, seeds and the explicit layout (or None) from `add_board_options`' options;
    raises `OptionsError` if they disagree."""
    holes = args.holes
    seeds = args.seeds
    layout = args.layout
    if layout is not None:
        if holes is not None and holes != len(layout):
            raise OptionsError(f"--layout has {len(layout)} counts for {holes} holes")
        holes = len(layout)
        if not MIN_HOLES <= holes <= MAX_HOLES:
            raise OptionsError(f"a layout needs {MIN_HOLES}..{MAX_HOLES} counts")
        total = sum(layout)
        if seeds is None:
            if total % holes:
                raise OptionsError(f"a layout of {holes} holes must hold a multiple of {holes}")
            seeds = total // holes
        if total != holes * seeds:
            raise OptionsError(f"--layout must hold {holes * seeds} seeds, not {total}")
        if not MIN_SEEDS <= seeds <= MAX_SEEDS:
            raise OptionsError(f"a layout needs {MIN_SEEDS}..{MAX_SEEDS} seeds per hole")
        if args.random:
            raise OptionsError("--random and --layout exclude each other")
    holes = holes if holes is not None else DEFAULT_HOLES
    return holes, seeds if seeds is not None else DEFAULT_SEEDS, layout


def _game(args: argparse.Namespace, default_time_ms: int) -> GameOptions:
    holes, seeds, layout = board(args)
    time_ms = args.time_ms if args.time_ms is not None else default_time_ms
    if args.script is not None:
        try:
            parse_script(args.script, holes)
        except BadLine as exc:
            raise OptionsError(f"--script: {exc}") from None
    return GameOptions(
        holes=holes,
        seeds=seeds,
        random_layout=args.random,
        layout=layout,
        pie=args.pie,
        time_ms=time_ms,
        server_time_ms=args.server_time_ms,
        first=args.first,
        opponent=args.opponent,
        level=args.level if args.level is not None else DEFAULT_LEVEL,
        seed=args.seed,
        script=args.script,
    )


SERVE_USAGE = (
    "usage: hub serve kalah [--listenOn PORT] [--holes H] [--seeds S] [--random | --layout C,C,..]"
    " [--pie] [--time-ms T] [--server-time-ms T] [--first client|server|random]"
    " [--opponent ai|client|human] [--level N] [--seed N] [--host ADDR] [--max-connections N]"
    " [--web [HOST:]PORT] [--db PATH] [--no-record]"
)
PLAY_USAGE = (
    "usage: hub play kalah [--connect HOST:PORT] [--human | --ai] [--level N] [--pie] [--quiet]"
    " [--holes H] [--seeds S] [--random | --layout C,C,..] [--time-ms T] [--server-time-ms T]"
    " [--first client|server|random] [--opponent ai|human] [--seed N] [--db PATH] [--no-record]"
)


def parse_serve(argv: Sequence[str]) -> ServeOptions:
    parser = _Parser(prog="hub serve kalah", add_help=False, allow_abbrev=False)
    parser.add_argument("--listenOn", default="0")
    parser.add_argument("--host", default="localhost")
    parser.add_argument(
        "--max-connections",
        type=_ranged("connections", 1, 100_000),
        default=DEFAULT_MAX_CONNECTIONS,
    )
    parser.add_argument("--games", type=_ranged("games", 1, 10**9), help=argparse.SUPPRESS)
    add_web_option(parser)
    add_record_options(parser)
    _add_game_options(parser, serving=True)
    args = parser.parse_args(list(argv))
    if not args.listenOn:
        raise OptionsError("--listenOn needs a port number or a service name")
    return ServeOptions(
        game=_game(args, DEFAULT_TIME_MS),
        port=args.listenOn,
        host=args.host or None,
        max_connections=args.max_connections,
        games=args.games,
        web=args.web,
        record=record_path(args),
    )


def parse_play(argv: Sequence[str]) -> PlayOptions:
    parser = _Parser(prog="hub play kalah", add_help=False, allow_abbrev=False)
    parser.add_argument("--connect")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--human", action="store_true")
    who.add_argument("--ai", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    add_record_options(parser)
    _add_game_options(parser, serving=False)
    args = parser.parse_args(list(argv))
    # Local games default to no limit: a person should not lose on time unless asked to.
    return PlayOptions(
        game=_game(args, 0),
        connect=args.connect,
        human=not args.ai,
        quiet=args.quiet,
        record=record_path(args),
    )
