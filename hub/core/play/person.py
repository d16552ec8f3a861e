"""A person at the terminal, behind the one `hub.core.play.vocabulary.Seat` interface.

* `PersonSeat`: a person at the terminal who is the one reader of the keyboard: shown the
  game and asked for a move in words by a game's pure `PersonCodec`, told why a move was
  refused and asked again (`AskAgain`; clubs' human seat in ``hub play clubs``), with an
  optional countdown (`countdown_frame`, `time_left`) and lines typed before a turn dropped
  (`TypeAhead`, `dropping_type_ahead`); `open_keyboard` is the keyboard it reads (`Keys`).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Generic, Protocol, TypeVar

import attrs
import trio

from hub.core.io.output import Output, write_all
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.vocabulary import (
    BaseSeat,
    SeatFailure,
    Start,
    Turn,
)

S = TypeVar("S")
M = TypeVar("M")
T = TypeVar("T")
S_contra = TypeVar("S_contra", contravariant=True)


class AskAgain(Exception):
    """What a person typed is not a move: say ``lines`` and ask again (a typo, ``help``)."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class Keys(Protocol):
    """Where a person's lines come from: a `hub.core.io.stdin.LineInput`, Kalah's `TypeAhead`,
    or any reader."""

    async def receive(self) -> str | None:
        """The next line typed, or None at the end of input."""
        ...


class PersonCodec(Protocol[S_contra, M]):
    """A game's side of a conversation with a person at the terminal: pure, in words.

    ``seat`` is the person's seat. What everyone sees (the moves, the scores) is better
    printed by an `EventBus.listen` callback; the codec says what only this seat sees.
    """

    def turn_lines(self, seat: int, state: S_contra) -> Sequence[str]:
        """What to show when the person's turn comes (their hand, the position ...)."""
        ...

    def prompt(self, seat: int, state: S_contra) -> str:
        """The question, printed without a newline (the typed answer follows on the line;
        empty: none, the turn's lines end with the question)."""
        ...

    def read_move(self, seat: int, text: str, state: S_contra) -> M:
        """The move typed as ``text``; raises `AskAgain` for anything else, or `SeatFailure`
        (``RESIGNATION``) when the person asks to leave the game."""
        ...

    def refused_lines(
        self, seat: int, move: M, error: IllegalMove, state: S_contra
    ) -> Sequence[str]:
        """Why the referee refused ``move``, in words (the person is then asked again)."""
        ...


TYPED_AHEAD = "ignored input typed before your turn"
"""Said when lines typed before a person's turn were dropped (`TypeAhead`)."""
TICK = 0.1
"""Seconds between two redraws of a person's countdown on a terminal."""


def seconds_text(milliseconds: int) -> str:
    """``1 s``, ``1.5 s``, ``30 s``: a time in ms as a person reads it."""
    return f"{milliseconds / 1000:g} s"


def countdown_frame(text: str) -> str:
    """Terminal text that rewrites the line above the cursor with ``text`` and puts the
    cursor back where it was (on the input line, after what the person has typed so far)."""
    return f"\x1b7\x1b[A\r{text}\x1b[K\x1b8"


def time_left(prompt: str, seconds: float) -> str:
    """The status line of a turn with ``seconds`` left: ``your move (...), 4.2 s left``."""
    return f"{prompt}, {max(0.0, seconds):.1f} s left"


@attrs.define(eq=False)
class TypeAhead:
    """A person's lines, read all the time (`run`, one task) so that the lines typed while it
    was not their turn can be told apart (`drop_typed_ahead`) instead of becoming moves: a
    `PersonSeat` drops them at the start of each turn and says so (`TYPED_AHEAD`).

    At most ``capacity`` lines wait; more typed ahead are dropped at once (and counted). The
    end of input is never dropped: `receive` returns None from then on.
    """

    source: Keys
    capacity: int = 16
    _send: trio.MemorySendChannel[str] = attrs.field(init=False)
    _receive: trio.MemoryReceiveChannel[str] = attrs.field(init=False)
    _overflow: int = 0

    def __attrs_post_init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[str](self.capacity)

    async def run(self) -> None:
        """Read ``source`` until its end of input (or until cancelled)."""
        with self._send:
            while (line := await self.source.receive()) is not None:
                try:
                    self._send.send_nowait(line)
                except trio.WouldBlock:
                    self._overflow += 1

    def drop_typed_ahead(self) -> int:
        """Drop every line that has arrived and not been taken; how many there were."""
        dropped, self._overflow = self._overflow, 0
        while True:
            try:
                self._receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return dropped
            dropped += 1

    async def receive(self) -> str | None:
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            return None


@contextlib.asynccontextmanager
async def dropping_type_ahead(source: Keys) -> AsyncIterator[TypeAhead]:
    """``source`` read by a `TypeAhead` task for the block."""
    keys = TypeAhead(source)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keys.run)
        yield keys
        nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def open_keyboard(fd: int = 0) -> AsyncIterator[Keys]:
    """A person's lines from ``fd``: on a terminal through a `TypeAhead` (lines typed before
    a turn are dropped); from a pipe or file (a script) every line in order."""
    from hub.core.io.stdin import open_line_input

    async with open_line_input(fd) as lines:
        if not os.isatty(fd):
            yield lines
            return
        async with dropping_type_ahead(lines) as keys:
            yield keys


@attrs.define(eq=False)
class PersonSeat(BaseSeat[S, M], Generic[S, M]):
    """A person at the terminal, typing moves on ``keyboard`` (its one reader) and reading
    ``out`` (shared with the program's other output, so the order on screen is the order of
    events). A refused move is explained and asked again with the clock running; end of
    input is the person leaving (``RESIGNATION``), as is whatever the codec treats so.

    With a `TypeAhead` keyboard, lines typed before the turn began are dropped (and that is
    said). With ``countdown`` (any timed person: Kalah's) the codec's prompt is a status
    line: on a terminal (``terminal``; None: whether ``out`` is one) above an input line
    ``> ``, and with a time limit the status line counts down the time left every `TICK`
    seconds, rewritten in place (`countdown_frame`); elsewhere (a pipe, a file) the prompt is
    one line ending ``> `` and the limit is said once per turn."""

    keyboard: Keys
    out: Output
    codec: PersonCodec[S, M]
    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("person", "person"))
    waits_for_input: bool = True
    seat: int = -1
    countdown: bool = False
    terminal: bool | None = None
    write: Callable[[str], None] | None = None
    """Writes terminal text as it is (no newline); default: straight to ``out``'s fd."""
    late_grace: float = 0.0
    _refused: bool = False

    async def begin(self, start: Start[S]) -> None:
        self.seat = start.seat

    def _show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out.line(line)
        self.out.flush()

    def _is_terminal(self) -> bool:
        if self.terminal is None:
            self.terminal = self.out.fd >= 0 and os.isatty(self.out.fd)
        return self.terminal

    def _write(self, text: str) -> None:
        self.out.flush()
        if self.write is not None:
            self.write(text)
        elif not self.out.broken:
            self.out.broken = not write_all(self.out.fd, text.encode("utf-8", "replace"))

    def turn_lines(self, turn: Turn[S]) -> Sequence[str]:
        """What to show when the turn comes: the codec's (a subclass may add the clock)."""
        return self.codec.turn_lines(self.seat, turn.state)

    def _opening(self, limit_ms: int) -> list[str]:
        """What is said before the turn's lines: dropped type-ahead, the limit (off a
        terminal, with ``countdown``)."""
        lines = []
        if isinstance(self.keyboard, TypeAhead) and self.keyboard.drop_typed_ahead():
            lines.append(TYPED_AHEAD)
        if self.countdown and limit_ms and not self._is_terminal():
            lines.append(f"(you have {seconds_text(limit_ms)} for the whole turn)")
        return lines

    async def choose(self, turn: Turn[S]) -> M:
        state = turn.state
        limit_ms = 0
        if turn.deadline != math.inf:
            limit_ms = max(1, math.floor(turn.time_left() * 1000 + 1e-6))
        deadline = trio.current_time() + limit_ms / 1000 if limit_ms else None
        lines = [] if self._refused else [*self._opening(limit_ms), *self.turn_lines(turn)]
        self._refused = False
        while True:
            self._show(lines)
            text = await self._ask(self.codec.prompt(self.seat, state), deadline)
            if text is None:
                raise SeatFailure(Termination.RESIGNATION, "end of input")
            try:
                return self.codec.read_move(self.seat, text, state)
            except AskAgain as exc:
                lines = list(exc.lines)

    async def _ask(self, prompt: str, deadline: float | None) -> str | None:
        """Ask with ``prompt`` and read the person's line."""
        if not self.countdown:
            if prompt and not self.out.broken:
                self.out.broken = not write_all(self.out.fd, prompt.encode("utf-8", "replace"))
            return await self.keyboard.receive()
        if not self._is_terminal():
            self.out.line(f"{prompt}> ")
            self.out.flush()
            return await self.keyboard.receive()
        return await self._read_on_terminal(prompt, deadline)

    async def _read_on_terminal(self, prompt: str, deadline: float | None) -> str | None:
        """The status line, then ``> `` and the person's line, the time left counting down
        above it until the line comes; if cancelled (the game ended meanwhile), the input
        line is ended so that what follows starts on a line of its own."""
        if deadline is None:
            self.out.line(prompt)
        else:
            self.out.line(time_left(prompt, deadline - trio.current_time()))
        self._write("> ")
        try:
            if deadline is None:
                return await self.keyboard.receive()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._count_down, prompt, deadline)
                line = await self.keyboard.receive()
                nursery.cancel_scope.cancel()
            return line
        except BaseException:
            self._write("\n")
            raise

    async def _count_down(self, prompt: str, deadline: float) -> None:
        tick = trio.current_time()
        while True:
            tick += TICK
            if tick >= deadline - TICK / 100:  # the last tenth: wake at the deadline itself
                await trio.sleep_until(deadline)
                self._write(countdown_frame(f"{prompt}: time is up"))
                return
            await trio.sleep_until(tick)
            self._write(countdown_frame(time_left(prompt, deadline - trio.current_time())))

    async def rejected(self, turn: Turn[S], move: M, error: IllegalMove) -> bool:
        self._show(self.codec.refused_lines(self.seat, move, error, turn.state))
        self._refused = True
        return True
