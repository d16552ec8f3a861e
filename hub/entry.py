"""The console scripts' entry points: Ctrl-C while a program is still importing its code.

A console script imports its ``main``'s module before calling it, and for most of hub's
programs that import (trio, attrs, the core) is most of their start-up, about 0.1 s. A
Ctrl-C in it would print a traceback, and nothing in the program could catch it, so each
entry point here imports its program inside a ``try`` and ends an interrupted import the way
the program ends an interrupt: ``hub`` and ``uqchessclient`` with 130, ``clubhub`` with its
spec's ``SIGINT caught`` and 9, ``uqchessserver`` by dying of the signal as its spec says.
(Nothing is running yet: no child, no socket.) A SIGTERM in that window keeps its default:
the process dies of it, silently. ``clubber`` imports only the standard library and keeps
its plain entry point. Only the interpreter's own start-up, before this module, is left.

Once a program's code is imported, `gc.freeze` moves everything made so far (modules,
classes, functions: most objects of a fresh process) out of the cycle collector's sight.
The collector then never scans them again: not in the program's run, and not in the
collections of the interpreter's exit, which for one clubs game were about 55 million
instructions, a tenth of what the import costs (they are still freed as usual when
unreferenced; docs/performance.md).

``hub`` also turns on, unless the environment says otherwise, the worker processes in which
built-in AIs think their timed turns (``HUB_AI_PROCESS=1``, read by
`hub.core.play.threads.ProcessSeat`; in-process callers and tests keep threads).

This module must stay free of imports (see `hub`'s docstring).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

INTERRUPTED = 130
"""`hub.core.commands.running.INTERRUPTED`, without importing it."""
CLUBHUB_SIGINT = 9
"""clubs.md: the hub received SIGINT (``SIGINT caught``)."""


def _main_of(module: str) -> Callable[[], int] | None:
    """``module.main``, or None if a Ctrl-C came while ``module`` was being imported."""
    try:
        main: Callable[[], int] = import_module(module).main
    except KeyboardInterrupt:
        return None
    gc.freeze()
    return main


def hub() -> int:
    # built-in AIs think their timed turns in worker processes (hub.core.play.threads's
    # PROCESS_SWITCH): a search thread holds the GIL that the event loop needs for its clock
    os.environ.setdefault("HUB_AI_PROCESS", "1")
    main = _main_of("hub.cli")
    return INTERRUPTED if main is None else main()


def clubhub() -> int:
    """Checks its arguments and starts its players first (`hub.games.clubs.launch`: their
    start-up overlaps the hub's imports), then imports the game and hands them over."""
    early = None
    try:
        from hub.games.clubs.launch import abandon, first_steps

        early = first_steps(sys.argv[1:])
        if isinstance(early, int):
            return early  # the spec's message for a refused command line, printed
        from hub.games.clubs.hub import main
    except KeyboardInterrupt:
        if early is not None and not isinstance(early, int):
            abandon(early)
        os.write(2, b"SIGINT caught\n")
        return CLUBHUB_SIGINT
    gc.freeze()
    return main(early=early)


def uqchessserver() -> int:
    main = _main_of("hub.games.uqchess.server")
    if main is None:  # it does not handle SIGINT: it dies of it
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return INTERRUPTED  # (not reached)
    return main()


def uqchessclient() -> int:
    main = _main_of("hub.games.uqchess.client")
    return INTERRUPTED if main is None else main()
