"""What one server lets its clients take: `ServerLimits`, its options, the open-file limit.

Every TCP server runs within one `ServerLimits` (connections in all and per address, line
length, idle timeout, output queued per client), read from one set of options
(`add_limit_options`, `limits_from_args`; `limits_from_values` for a program that parses
its own command line). `fit_open_files` keeps the connection cap within the process's
open-file limit; `freeze_start_up` shortens a long-running server's collection pauses and
`collect_fully_rarely` makes its full collections rare.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import resource
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from hub.core.io.outbox import DEFAULT_LIMIT as DEFAULT_MAX_OUTPUT
from hub.core.io.text import parse_whole_number

DEFAULT_MAX_CONNECTIONS = 2048
"""Enough for 1,000 UQChess clients or 500 Kalah games with room to spare."""
DEFAULT_MAX_PER_ADDRESS = 128
DEFAULT_IDLE_TIMEOUT = 300.0
"""Seconds a client not in a game may stay silent (a person between two games)."""
MIN_MAX_LINE = 64
FD_RESERVE = 64
"""Descriptors a server keeps for itself beside its connections (listeners, logs, ...)."""

log = logging.getLogger("hub.serve")


def freeze_start_up() -> None:
    """Move every object made so far (modules, classes, functions: most of a fresh process)
    out of the cycle collector's sight, so that the full collections of a long-running
    server scan only what it made while serving: shorter pauses, which a server with
    100 ms clocks needs (`gc.freeze`; they are still freed as usual when unreferenced).
    For a program's ``main`` once it has started, not for a library call."""
    gc.freeze()


SERVING_GC_THRESHOLD = (10_000, 10, 10)
"""`gc.set_threshold` of a process serving web pages (the defaults are 700, 10, 10)."""


MIDDLE_COLLECTION_THRESHOLD = 0
"""`gc.set_threshold`'s second value in a serving process: every other collection is a middle
one (Python's default: every eleventh), which scans what the young one before it kept. What
outlives a young collection in a loaded server is mostly what waits for a client (each
seat's chain of coroutines through a bot's think, about a second), and a middle collection
scans every such survivor since the last one: with Python's 10 that was about 40,000 objects
at 2,000 games, 17 ms four times a second, the pauses behind the latency tail
(docs/performance.md, "The cycle collector's middle pauses"); this way each is a small one."""

FULL_COLLECTION_THRESHOLD = 20_000
"""`gc.set_threshold`'s third value in a serving process: a full collection at most once every
20,000 middle ones (Python's default is 10, under its own rule that the objects promoted since
the last full pass be a quarter of those it would scan): with a middle collection every
other time, about once in a quarter of an hour of a loaded server, and at once when its last
client leaves (`hub.core.io.serve.serve_lines`)."""


def collect_fully_rarely() -> None:
    """Make the cycle collector's full collections rare (`FULL_COLLECTION_THRESHOLD`) and its
    middle ones small (`MIDDLE_COLLECTION_THRESHOLD`), its young ones unchanged. A server's
    heap holds every open connection and running game (a quarter of a million objects at
    1,000 games): a full pass over it cost 175-470 ms of CPU and found nothing to free while
    the games went on (bench/hub_load.py, docs/performance.md "One hub under load"), the
    whole tail of a move's latency. A game's objects are freed by their counts when it ends
    (no cycles hold them), and young cycles are still collected by the young and middle
    collections. Called by `hub.core.io.serve.serve_lines`, which every TCP server
    runs; process-wide, as `collect_less_often` is."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(
        young, min(middle, MIDDLE_COLLECTION_THRESHOLD), max(full, FULL_COLLECTION_THRESHOLD)
    )


def collect_less_often() -> None:
    """Let the cycle collector run its young collections every 10,000 allocations instead
    of every 700, and so its full collections about 14 times less often: with 100 event
    streams open, a full collection's pause was the whole tail of a click's latency
    (bench/web.py: the last spectator's p99 77 ms with the defaults, 38 ms with this;
    docs/performance.md). Garbage without cycles is freed at once as always; cycles wait a
    little longer. Called by `hub.web.server.serve_web`, which only programs serving pages
    (and their tests) run. A higher third threshold already set (`collect_fully_rarely`) is
    kept, and so is a lower second one."""
    young, middle, full = SERVING_GC_THRESHOLD
    _young, now_middle, now_full = gc.get_threshold()
    gc.set_threshold(young, min(middle, now_middle), max(full, now_full))


@attrs.frozen
class ServerLimits:
    """What one server lets its clients take; every server's options map onto this.

    ``max_per_address``, ``idle_timeout`` None: no cap, no timeout; ``max_line`` None: the
    game's own limit (a Kalah board's longest move, UQChess's 1024 bytes).
    """

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_per_address: int | None = DEFAULT_MAX_PER_ADDRESS
    max_line: int | None = None
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT

    def line_limit(self, default: int) -> int:
        return default if self.max_line is None else self.max_line


def _whole(name: str, low: int, high: int, *, zero_is_none: bool = False) -> LimitParser:
    def convert(text: str) -> int | None:
        value = parse_whole_number(text, max_digits=12)
        if value is None:
            raise ValueError(f"{name} is a whole number, not {text!r}")
        if zero_is_none and value == 0:
            return None
        if not low <= value <= high:
            raise ValueError(f"{name} is {low}..{high}, not {value}")
        return value

    return convert


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"a timeout is a number of seconds, not {text!r}") from None
    if not 0 <= value <= 10**6:  # also rejects nan
        raise ValueError(f"a timeout must be 0..1000000 seconds, not {text!r}")
    return None if value == 0 else value


LimitParser = Callable[[str], "int | float | None"]
LIMIT_OPTIONS: dict[str, tuple[str, LimitParser, str]] = {
    "--max-connections": (
        "max_connections",
        _whole("a number of connections", 1, 1_000_000),
        f"most clients served at once (default: {DEFAULT_MAX_CONNECTIONS}; fewer if the "
        "open-file limit is lower)",
    ),
    "--max-per-address": (
        "max_per_address",
        _whole("a number of connections", 1, 1_000_000, zero_is_none=True),
        f"most clients at once from one IP address; 0: no cap (default: {DEFAULT_MAX_PER_ADDRESS})",
    ),
    "--max-line": (
        "max_line",
        _whole("a line length", MIN_MAX_LINE, 1 << 24),
        "longest line a client may send, in bytes (default: the game's own)",
    ),
    "--idle-timeout": (
        "idle_timeout",
        _seconds,
        "drop a client that sends no complete line for this many seconds while not in a "
        "game; 0: never",
    ),
    "--max-output": (
        "max_output",
        _whole("an output cap", 1024, 1 << 30),
        f"bytes queued for a client that does not read before it is dropped (default: "
        f"{DEFAULT_MAX_OUTPUT})",
    ),
}
"""``--option``: (field of `ServerLimits`, parser raising ValueError, help)."""


def limits_from_values(values: Mapping[str, str], base: ServerLimits | None = None) -> ServerLimits:
    """`ServerLimits` from ``{"--max-line": "2048", ...}`` (options not given keep ``base``'s
    values); raises ValueError with the reason."""
    changes: dict[str, Any] = {}
    for option, text in values.items():
        field, parse, _help = LIMIT_OPTIONS[option]
        changes[field] = parse(text)
    return attrs.evolve(base if base is not None else ServerLimits(), **changes)


LIMIT_METAVARS = {"--max-line": "BYTES", "--idle-timeout": "SECONDS", "--max-output": "BYTES"}


def add_limit_options(
    parser: argparse.ArgumentParser,
    *,
    idle_default: float | None = DEFAULT_IDLE_TIMEOUT,
    idle_help: str | None = None,
) -> None:
    """The limit options, in a group of their own; `limits_from_args` reads them back.
    ``idle_default``/``idle_help``: a server whose idle timeout means something else (Kalah:
    the deadline for its handshake)."""
    group = parser.add_argument_group("limits (one set for every server, docs/reliability.md)")
    for option, (field, parse, help_text) in LIMIT_OPTIONS.items():
        if option == "--idle-timeout":
            shown = "0" if idle_default is None else f"{idle_default:g}"
            help_text = f"{idle_help or help_text} (default: {shown})"  # noqa: PLW2901

        def convert(text: str, parse: LimitParser = parse) -> int | float | None:
            try:
                return parse(text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None

        group.add_argument(
            option,
            dest=f"limit_{field}",
            metavar=LIMIT_METAVARS.get(option, "N"),
            type=convert,
            default=_UNSET,
            help=help_text,
        )
    parser.set_defaults(limit_idle_default=idle_default)


_UNSET: object = object()


def limits_from_args(args: argparse.Namespace) -> ServerLimits:
    changes = {
        field: getattr(args, f"limit_{field}")
        for _option, (field, _parse, _help) in LIMIT_OPTIONS.items()
        if getattr(args, f"limit_{field}", _UNSET) is not _UNSET
    }
    base = ServerLimits(idle_timeout=getattr(args, "limit_idle_default", DEFAULT_IDLE_TIMEOUT))
    return attrs.evolve(base, **changes)


def raise_open_file_limit() -> int:
    """Raise the soft open-file limit (``ulimit -n``) to the hard one; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft if soft != resource.RLIM_INFINITY else 1 << 30


def fit_open_files(limits: ServerLimits, reserve: int = FD_RESERVE) -> ServerLimits:
    """``limits`` with at most as many connections as the open-file limit leaves room for
    (after raising it to the hard limit) beside ``reserve`` descriptors of the server's own;
    a warning is logged when the limit lowers ``max_connections``."""
    room = max(1, raise_open_file_limit() - reserve)
    if room >= limits.max_connections:
        return limits
    log.warning(
        "only %d connections fit in the open-file limit (ulimit -n %d), not %d",
        room,
        room + reserve,
        limits.max_connections,
    )
    return attrs.evolve(limits, max_connections=room)
