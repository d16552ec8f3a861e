"""`Console`: a `ConsoleSession` for synchronous callers (``hub demo chess``, tests): its
games run in a trio loop on a thread of its own, and `Console.handle` waits for the lines."""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

import attrs
import trio

from hub.chess.rules import ChessState
from hub.core.model.bus import EventBus
from hub.games.chess.console.options import ConsoleOptions
from hub.games.chess.console.session import ConsoleSession, Mode, Think, open_console, search_move
from hub.games.chess.console.terminal import Terminal

T = TypeVar("T")

STOP_TIMEOUT = 5.0
"""Seconds `Console.close` waits for its loop (a search stops within milliseconds)."""


@attrs.define(eq=False)
class _Loop:
    """The trio loop of a `Console`, on a thread of its own. It holds no reference to the
    `Console`, so that a console dropped without `Console.close` is collected and its
    loop stopped."""

    session: ConsoleSession | None = None
    token: trio.lowlevel.TrioToken | None = None
    scope: trio.CancelScope | None = None
    error: BaseException | None = None
    ready: threading.Event = attrs.Factory(threading.Event)

    def serve(
        self,
        options: ConsoleOptions | None,
        bus: EventBus | None,
        think: Think,
        terminal: Terminal | None = None,
    ) -> None:
        try:
            trio.run(self._main, options, bus, think, terminal)
        except BaseException as exc:  # handed to the caller by `Console`
            self.error = exc
        finally:
            self.ready.set()

    async def _main(
        self,
        options: ConsoleOptions | None,
        bus: EventBus | None,
        think: Think,
        terminal: Terminal | None,
    ) -> None:
        with trio.CancelScope() as self.scope:
            async with open_console(options, bus=bus, think=think, terminal=terminal) as session:
                self.session = session
                self.token = trio.lowlevel.current_trio_token()
                self.ready.set()
                await trio.sleep_forever()

    @staticmethod
    def stop(loop: _Loop, thread: threading.Thread) -> None:
        if loop.token is not None and loop.scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                loop.token.run_sync_soon(loop.scope.cancel)
        thread.join(STOP_TIMEOUT)


class Console:
    """A `ConsoleSession` for synchronous callers (``hub demo chess``, tests): the same
    commands, games and events, run in a trio loop on a thread of its own; each call waits
    for its answer. `finish` (the end of the input) also closes the loop."""

    def __init__(
        self,
        options: ConsoleOptions | None = None,
        *,
        bus: EventBus | None = None,
        think: Think = search_move,
        terminal: Terminal | None = None,
    ) -> None:
        self._loop = _Loop()
        thread = threading.Thread(
            target=self._loop.serve,
            args=(options, bus, think, terminal),
            name="chess-console",
            daemon=True,
        )
        thread.start()
        self._loop.ready.wait()
        if self._loop.session is None:  # pragma: no cover - the loop could not start
            raise RuntimeError("the console's loop did not start") from self._loop.error
        self.session = self._loop.session
        self._close = weakref.finalize(self, _Loop.stop, self._loop, thread)

    @property
    def options(self) -> ConsoleOptions:
        return self.session.options

    @property
    def mode(self) -> Mode:
        return self.session.mode

    @property
    def state(self) -> ChessState | None:
        return self.session.state

    @property
    def bus(self) -> EventBus:
        return self.session.bus

    def handle(self, line: str) -> list[str]:
        """The output for one input line, as `ConsoleSession.handle`."""
        return self._call(self.session.handle, line)

    def finish(self) -> list[str]:
        """The final score (as `ConsoleSession.finish`); the console is closed after it."""
        try:
            return self._call(self.session.finish)
        finally:
            self.close()

    def line_too_long(self) -> list[str]:
        return self.session.line_too_long()

    def close(self) -> None:
        """Stop the loop (a running game ends as ``ABORTED``); later calls do nothing."""
        self._close()

    def _call(self, function: Callable[..., Awaitable[T]], *args: object) -> T:
        if not self._close.alive:
            raise RuntimeError("the console is closed")
        token = self._loop.token
        try:
            return trio.from_thread.run(function, *args, trio_token=token)
        except (trio.Cancelled, trio.RunFinishedError):  # pragma: no cover - the loop died
            self.close()
            if self._loop.error is not None:
                raise self._loop.error from None
            raise
