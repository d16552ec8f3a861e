"""Running a program: Ctrl-C and SIGTERM become an exit status, never a traceback.

One mechanism for every program: **SIGTERM is delivered as a Ctrl-C**. `catch_sigterm`
installs a SIGTERM handler that notes the signal and raises SIGINT in the process, so that
whatever handles Ctrl-C at that moment handles SIGTERM the same way: Python's default
(a `KeyboardInterrupt` before trio runs), trio's (a `KeyboardInterrupt` delivered at a safe
point, in the main task), or a program's own ``trio.open_signal_receiver(SIGINT)``. Every
program's clean-up and final words (children reaped, the console's score, a match's
results) therefore serve both signals, and only the exit status differs:
`interrupted_status` is 128 + the signal (130 for SIGINT, 143 once a SIGTERM came).

Inside a nursery, trio delivers Ctrl-C as a `KeyboardInterrupt` that may arrive wrapped in
a `BaseExceptionGroup` (strict exception groups); a plain ``except KeyboardInterrupt``
misses that and the user sees a traceback. `run_program` unwraps both forms, and
`exit_status_on_interrupt` covers a program's start-up before trio runs (imports, plug-in
discovery) and any code of its own that is not under trio.

Every program's trio main runs through `run_program` (``hub play chess``, ``hub engine``,
the Kalah server and client, ``hub serve uqchess``, ``uqchessclient``; the demos and every
other ``hub`` command run under `exit_status_on_interrupt` in ``hub``'s main), except
where a specification says otherwise: ``clubhub`` catches SIGINT itself (its players get
``end``, exit 9, docs/clubs.md; SIGTERM likewise, exit 143), and ``uqchessserver`` dies
of the signal like the original (SIG_DFL, docs/uqchess.md). ``hub match`` receives both
signals itself to print the results so far (docs/matches.md). trio is imported only when
a program runs, so that ``hub`` can install the handlers before its heavy imports.

Servers (``hub serve``, ``hub serve GAME``, ``hub serve uqchess``, the Kalah server) and ``hub
play GAME`` (whose web view is a server too) run with
``cancel_on_signal``: there the signals are received as values and cancel the server, so that
no `KeyboardInterrupt` lands inside a connection task's nursery exit (which corrupts trio's
nursery stack); the exit statuses are the same.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar, TypeVarTuple

INTERRUPTED = 130
"""The shell's status for a program ended by SIGINT (128 + 2)."""
TERMINATED = 143
"""The shell's status for a program ended by SIGTERM (128 + 15)."""

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

_received: list[int] = []
"""The SIGTERMs received since `catch_sigterm` (a SIGINT leaves no note)."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM: note it, then raise SIGINT, which the current Ctrl-C handling delivers."""
    _received.append(signum)
    signal.raise_signal(signal.SIGINT)


def catch_sigterm() -> None:
    """From now on a SIGTERM ends the program as a Ctrl-C does (see the module's text).

    Only in the main thread (the only one that may set handlers), and only where Ctrl-C
    raises `KeyboardInterrupt` (not where SIGINT is ignored or fatal, as in
    ``uqchessserver``: there SIGTERM keeps its default, death by the signal)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) in (signal.SIG_DFL, signal.SIG_IGN):
        return
    _received.clear()  # a program starts afresh (tests run several in one process)
    signal.signal(signal.SIGTERM, _on_sigterm)


def interrupted_status(sigint: int = INTERRUPTED) -> int:
    """The exit status of a program that an interrupt ended: 143 if a SIGTERM came (see
    `catch_sigterm`), else ``sigint`` (130 by default)."""
    return TERMINATED if _received else sigint


def only_keyboard_interrupts(exc: BaseException) -> bool:
    """True if ``exc`` is a KeyboardInterrupt, or a group of nothing else."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, BaseExceptionGroup):
        _, rest = exc.split(KeyboardInterrupt)
        return rest is None
    return False


@contextmanager
def exit_status_on_interrupt(status: list[int]) -> Iterator[None]:
    """Run the block with SIGTERM caught; if an interrupt (bare or in a group) ends it,
    append its exit status to ``status`` instead of letting a traceback out.

    For the top of a program (``hub``'s `main`), around the start-up that precedes trio."""
    catch_sigterm()
    try:
        yield
    except BaseException as exc:
        if not only_keyboard_interrupts(exc):
            raise
        status.append(interrupted_status())


def run_program(
    main: Callable[[*Ts], Awaitable[T]],
    *args: *Ts,
    interrupted: int = INTERRUPTED,
    cancel_on_signal: bool = False,
) -> T | int:
    """``trio.run(main, *args)`` with SIGTERM caught; the exit status `interrupted_status`
    (``interrupted`` for Ctrl-C, 143 for SIGTERM) if an interrupt ended it.

    ``cancel_on_signal``: for servers. SIGINT and SIGTERM are received as values
    (``trio.open_signal_receiver``) and cancel ``main``, which then ends as any cancelled
    task does, so no `KeyboardInterrupt` is raised at an arbitrary point in a connection's
    task: one that landed inside a nursery's ``__aexit__`` corrupted trio's nursery stack
    and left ``hub serve`` exiting 1 or not at all (once in about 150 runs). A second signal
    during the shutdown raises `KeyboardInterrupt` as usual (a way out of a stuck one)."""
    import trio

    catch_sigterm()
    try:
        if cancel_on_signal and _interruptible():
            return trio.run(_cancelled_by_signals, main, *args)
        return trio.run(main, *args)
    except BaseException as exc:
        if only_keyboard_interrupts(exc):
            return interrupted_status(interrupted)
        raise


def _interruptible() -> bool:
    """True where Ctrl-C raises `KeyboardInterrupt` (not where SIGINT is ignored, as in a
    shell's background job, or fatal, as in ``uqchessserver``)."""
    return signal.getsignal(signal.SIGINT) is signal.default_int_handler


async def _cancelled_by_signals(main: Callable[[*Ts], Awaitable[T]], *args: *Ts) -> T | int:
    """``main(*args)``, cancelled by the first SIGINT or SIGTERM; then 128 + that signal."""
    import trio

    got: list[int] = []

    async def watch(task_status: trio.TaskStatus[None]) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            async for signum in signals:
                got.append(signum)
                nursery.cancel_scope.cancel()
                return

    results: list[T] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(watch)
        results.append(await main(*args))
        nursery.cancel_scope.cancel()
    if got:
        return 128 + got[0]
    return results[0]
