"""``hub play chess``: chess in the terminal, one command a line (specs/chess-console.md).

The package, by concern (docs/chess.md):

* `commands`: pure: a line to a command value (`parse_command`, `parse_setup`), a human's
  move words to a legal move (`parse_move`), the spec's messages, the help text;
* `session`: `ConsoleSession`, the command interpreter: one core `Match` per game, the
  commands dispatched through a table of handlers; the `Transcript` of a game (a
  spectator of its `Match`); `open_console` (a session in a nursery);
* `terminal`: what is printed: the spec's board and score, `Terminal` (what a person at a
  terminal sees besides);
* `options`: `ConsoleOptions`, the options as one value;
* `cli`: `parse_options`, `help_parser`, `run`, `run_with_gui`, `run_recorded`, `main`;
* `sync`: `Console`, the same session for synchronous callers (``hub demo chess``, tests).

The chess rules it uses are the chess library's: `hub.chess.setup` (what setup mode's
``done`` checks, the FEN it starts from) and `hub.chess.rules.repetition_count`.

Options: ``--classic`` (the assignment alone: no undo, history, SAN input, repetition notice,
hint, help, nor the line naming a computer's move), ``--seed N`` (every computer level and
hint reproducible), ``--movetime MS`` (level 4's budget per move, default 1000), ``--nodes N``
(level 4's budget in nodes; with ``--seed`` and no ``--movetime`` it defaults to
`SEEDED_NODES`, so that a seeded game replays exactly whatever the machine's speed).

This module re-exports the names other code imports from ``hub.games.chess.console``.
"""

from __future__ import annotations

from hub.chess.rules import repetition_count
from hub.chess.setup import setup_fen, setup_problems
from hub.games.chess.console.cli import (
    MAX_LINE,
    USAGE,
    help_parser,
    main,
    parse_options,
    run,
    run_recorded,
    run_with_gui,
)
from hub.games.chess.console.commands import (
    AMBIGUOUS,
    BAD_PROMOTION,
    GAME_RUNNING,
    GAME_USAGE,
    HELP,
    ILLEGAL,
    INVALID,
    INVALID_HELP,
    LEVELS,
    LINE_TOO_LONG,
    MOVE_USAGE,
    MOVE_USAGE_SAN,
    NEEDS_PROMOTION,
    NO_GAME,
    NO_MOVES_YET,
    NOT_PROMOTION,
    SETUP_DONE,
    SETUP_USAGE,
    move_words,
    parse_square,
)
from hub.games.chess.console.options import (
    DEFAULT_MOVETIME_MS,
    MAX_MOVETIME_MS,
    MAX_NODES,
    SEEDED_NODES,
    ConsoleOptions,
)
from hub.games.chess.console.session import (
    ConsoleSeat,
    ConsoleSession,
    Mode,
    Player,
    Think,
    Transcript,
    open_console,
    search_move,
)
from hub.games.chess.console.sync import STOP_TIMEOUT, Console
from hub.games.chess.console.terminal import (
    COLOURS,
    StatusLine,
    Terminal,
    board_display,
    format_points,
)

__all__ = [
    "AMBIGUOUS",
    "BAD_PROMOTION",
    "COLOURS",
    "DEFAULT_MOVETIME_MS",
    "GAME_RUNNING",
    "GAME_USAGE",
    "HELP",
    "ILLEGAL",
    "INVALID",
    "INVALID_HELP",
    "LEVELS",
    "LINE_TOO_LONG",
    "MAX_LINE",
    "MAX_MOVETIME_MS",
    "MAX_NODES",
    "MOVE_USAGE",
    "MOVE_USAGE_SAN",
    "NEEDS_PROMOTION",
    "NOT_PROMOTION",
    "NO_GAME",
    "NO_MOVES_YET",
    "SEEDED_NODES",
    "SETUP_DONE",
    "SETUP_USAGE",
    "STOP_TIMEOUT",
    "USAGE",
    "Console",
    "ConsoleOptions",
    "ConsoleSeat",
    "ConsoleSession",
    "Mode",
    "Player",
    "StatusLine",
    "Terminal",
    "Think",
    "Transcript",
    "board_display",
    "format_points",
    "help_parser",
    "main",
    "move_words",
    "open_console",
    "parse_options",
    "parse_square",
    "repetition_count",
    "run",
    "run_recorded",
    "run_with_gui",
    "search_move",
    "setup_fen",
    "setup_problems",
]
