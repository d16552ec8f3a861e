"""Running a program's trio main: Ctrl-C becomes an exit status, never a traceback.

Inside a nursery, trio delivers Ctrl-C as a `KeyboardInterrupt` that may arrive wrapped in
a `BaseExceptionGroup` (strict exception groups); a plain ``except KeyboardInterrupt``
misses that and the user sees a traceback. `run_program` unwraps both forms.

Every program's trio main runs through it (``hub play chess``, ``hub engine``, the Kalah
server and client) except where a specification says otherwise: ``clubhub`` catches SIGINT
itself (its players get ``end``, exit 9, docs/clubs.md), and ``uqchessserver`` and
``uqchessclient`` die of the signal like the originals (SIG_DFL, docs/uqchess.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar, TypeVarTuple

import trio

INTERRUPTED = 130
"""The shell's status for a program ended by SIGINT (128 + 2)."""

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def only_keyboard_interrupts(exc: BaseException) -> bool:
    """True if ``exc`` is a KeyboardInterrupt, or a group of nothing else."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, BaseExceptionGroup):
        _, rest = exc.split(KeyboardInterrupt)
        return rest is None
    return False


def run_program(
    main: Callable[[*Ts], Awaitable[T]], *args: *Ts, interrupted: int = INTERRUPTED
) -> T | int:
    """``trio.run(main, *args)``; the exit status ``interrupted`` if Ctrl-C ended it."""
    try:
        return trio.run(main, *args)
    except BaseException as exc:
        if only_keyboard_interrupts(exc):
            return interrupted
        raise
