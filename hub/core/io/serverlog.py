"""A server's log: ``--log-level``, one line per record on stderr, games started and ended.

Every server logs through the standard `logging` module under the ``hub`` logger
(``hub.serve``: refused, dropped and failed connections; ``hub.games.GAME``: games, from
`log_games`). `configure_logging` sends them to stderr, one formatted line each, or
nowhere at all for a program whose specification fixes its output. trio's
``serve_listeners``, which accepts every server's connections, logs an accept that fails
for lack of resources to ``trio.serve_listeners``; `configure_logging` passes those records
on to ``hub.serve`` (``accept failed: [Errno 24] Too many open files``), so they follow the
same level and format. A server that never configured its logging gets
`configure_default_logging`'s: warnings and errors, as ``hub``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from hub.core.model.bus import EventBus
from hub.core.model.events import Event, GameEnded, GameRecord, GameStarted
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo

LOG_LEVELS = ("warning", "info", "debug")
LOG_FORMAT_DATE = "%Y-%m-%d %H:%M:%S"
DEFAULT_LOG_PROG = "hub"
DEFAULT_LOG_LEVEL = "warning"
TRIO_ACCEPT_LOGGER = "trio.serve_listeners"
"""The logger of `trio.serve_listeners` (accept errors it retries after a pause)."""
_installed: list[logging.Handler] = []

serve_log = logging.getLogger("hub.serve")


def add_log_options(parser: argparse._ActionsContainer) -> None:
    """``--log-level {warning,info,debug}`` and ``-v/--verbose`` (= info)."""
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=None,
        help="what goes to stderr: warnings; games and refused or dropped clients; every "
        "connection (default: warning)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="the same as --log-level info (default: off)",
    )


def log_level_from_args(args: argparse.Namespace) -> str:
    level: str | None = args.log_level
    if level is None:
        level = "info" if args.verbose else "warning"
    return level


class _Stderr(logging.StreamHandler[TextIO]):
    """A `logging.StreamHandler` on ``sys.stderr`` as it is when each record is written (so
    a replaced ``sys.stderr``, a test's capture say, gets the records made meanwhile)."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass


class _AcceptFailures(logging.Handler):
    """Passes ``trio.serve_listeners``' records on to ``hub.serve``: an accept that failed
    for lack of resources (which trio retries after a pause) as one line that names the
    error, without the traceback (it is always the same accept)."""

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, OSError):
            serve_log.log(record.levelno, "accept failed: %s; retrying", error)
        else:
            serve_log.log(record.levelno, "%s", record.getMessage())


def configure_logging(prog: str, level: str | None) -> None:
    """Send the ``hub`` loggers' records at ``level`` and above to stderr, one line each:
    ``2026-11-25 02:10:00 kalah: game 3 started: ...``. None: print nothing at all (a
    program whose specification fixes its output). ``trio.serve_listeners``' records go
    through ``hub.serve``."""
    root = logging.getLogger("hub")
    for handler in _installed:
        root.removeHandler(handler)
    _installed.clear()
    output: logging.Handler
    if level is None:
        output = logging.NullHandler()
        root.setLevel(logging.CRITICAL + 1)
    else:
        output = _Stderr()
        output.setFormatter(
            logging.Formatter(f"%(asctime)s {prog}: %(message)s", datefmt=LOG_FORMAT_DATE)
        )
        root.setLevel(level.upper())
    root.addHandler(output)
    root.propagate = False
    _installed.append(output)
    _forward_accept_failures()


def configure_default_logging() -> None:
    """`configure_logging` as ``hub`` at ``warning``, unless logging is configured already
    (for a server started by a program, or a test, that did not configure it)."""
    if not _installed:
        configure_logging(DEFAULT_LOG_PROG, DEFAULT_LOG_LEVEL)


def _forward_accept_failures() -> None:
    trio_log = logging.getLogger(TRIO_ACCEPT_LOGGER)
    if not any(isinstance(handler, _AcceptFailures) for handler in trio_log.handlers):
        trio_log.addHandler(_AcceptFailures())
    trio_log.propagate = False  # one line per failure, ours


def describe_players(players: Sequence[PlayerInfo]) -> str:
    return " vs ".join(player.name for player in players)


def describe_result(record: GameRecord) -> str:
    """A finished game's result in words, for a log line."""
    names = [player.name for player in record.players]
    if record.termination is Termination.ABORTED and record.fault is None:
        result = "aborted"
    elif not record.winners:
        result = "no winner"
    elif len(record.winners) == len(names):
        result = "draw"
    else:
        result = " and ".join(names[index] for index in record.winners) + " won"
    if record.scores and any(record.scores):
        result += " " + "-".join(f"{score:g}" for score in record.scores)
    fault = record.fault
    if fault is not None:
        who = names[fault.seat] if fault.seat is not None else "the server"
        result += f" ({who}: {fault.termination.value}"
        result += f"; {fault.detail})" if fault.detail else ")"
    elif record.termination not in (Termination.NORMAL, Termination.ABORTED):
        result += f" ({record.termination.value})"
    return f"{result}, {len(record.moves)} moves"


def log_games(events: EventBus, logger: logging.Logger | None = None) -> Callable[[], None]:
    """Log one line when each game on ``events`` starts (its players) and ends (its result);
    returns the function that stops it. Call it once logging is configured: when ``logger``
    logs nothing at INFO it does not listen at all, since a game whose bus has a listener
    makes an event, with the state's view, for every move (a FEN: a third of what the
    UQChess server spent on a human move)."""
    logger = logger if logger is not None else logging.getLogger("hub.games")
    if not logger.isEnabledFor(logging.INFO):
        return lambda: None

    def listen(event: Event) -> None:
        if not logger.isEnabledFor(logging.INFO):
            return
        if isinstance(event, GameStarted):
            logger.info("game %s started: %s", event.game_id[:8], describe_players(event.players))
        elif isinstance(event, GameEnded):
            record = event.record
            logger.info(
                "game %s ended: %s: %s",
                event.game_id[:8],
                describe_players(record.players),
                describe_result(record),
            )

    return events.listen(listen, moves=False)
