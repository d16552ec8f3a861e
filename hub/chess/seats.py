"""Chess seats for the core match loop (`hub.core.play.match`): a built-in level, a UCI engine and
a person at the terminal, all over `ChessState` with moves as UCI text (``e2e4``).

* `level_seat`: level 1-4 of `hub.chess.search` as the core's one local-player seat
  (`hub.core.play.threads.ThreadSeat`: a worker thread with a stop flag, so Ctrl-C and a lost game
  return at once); `LevelAi` is its ``think``. Level 4 budgets its search from the turn's
  `TurnTime` (the core computes it from the seat's clocks, for a UCI engine too) as
  ``hub engine`` does for the same ``go``, less what it may overrun: the search looks at
  the clock every `CHECK_EVERY` nodes, a few ms at its speed, so `level_limits` keeps that
  interval (measured on the AI's own recent searches) out of the budget and away from the
  deadline.
* `UciSeat`: any UCI engine (Stockfish, ``hub engine``, ...) driven through one
  `EngineClient`: ``uci``, the options (``setoption name Skill Level value 3``), ``isready``,
  ``ucinewgame`` at every game, then ``position`` and ``go`` with the clocks (``wtime``/
  ``btime``/``winc``/``binc`` for a game clock, ``movetime`` for a per-move limit, less
  `MOVE_MARGIN`). An engine that cannot start, crashes, hangs past its time or answers
  garbage or an illegal move loses the game with the reason (`SeatFailure` with its
  `Termination`); its process is always stopped and reaped (`UciSeat.aclose`, also from
  ``end``).
* `ChessPersonSeat`: a person who reads the board and types moves (UCI ``e2e4`` or SAN ``Nf3``):
  the core `hub.core.play.person.PersonSeat` with `ChessPersonCodec`; the I/O is two functions
  handed in, so the seat itself is testable over memory.

`turn_go` is the one pure translation of a turn's clock into a UCI ``go`` (both engine kinds
use it).
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Awaitable, Callable, Sequence

import attrs
import chess
import trio

from hub.chess.board_art import board_lines
from hub.chess.engine_client import (
    HANDSHAKE_TIMEOUT,
    EngineClient,
    EngineError,
    EngineProtocolError,
    EngineStartError,
)
from hub.chess.rules import (
    COLOUR_NAMES,
    ChessState,
    normalise,
    position_command,
    position_command_after,
)
from hub.chess.search import (
    CHECK_EVERY,
    ComputerPlayer,
    Limits,
    Searcher,
    SearchInfo,
    level3,
)
from hub.chess.uci import Go, setoption_line
from hub.core.io.lines import LineError
from hub.core.io.output import LinesOutput
from hub.core.io.process import SpawnFailed
from hub.core.model.clock import TimeControl
from hub.core.model.identity import ai_identity, person_identity, with_options
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.person import AskAgain, PersonSeat
from hub.core.play.threads import ClockedSeat, ProcessSeat, StopFlag, ThreadSeat, TurnTime
from hub.core.play.vocabulary import LaunchedSeat, MatchResult, Moved, SeatFailure, Start, Turn

UNLIMITED_MOVETIME_MS = 1000
"""A move's time (``go movetime``) when the game has no time limit at all."""
UNLIMITED_GRACE = 10.0
"""Without a time limit, an engine that has not answered this long after its move time hangs."""
MOVE_MARGIN = 0.05
"""Seconds kept back from a per-move limit for the pipes (at most a tenth of the limit)."""
LEVEL_MARGIN = 0.02
"""Seconds level 4 keeps before its deadline beyond two looks at the clock (the thread, the
loop, a busy machine)."""
MIN_BUDGET = 0.001
"""Level 4's smallest budget: it then returns after the first iteration or two."""
SLOW_NPS = 10_000
"""Level 4's assumed speed (nodes a second) until it has measured its own."""
SPEED_SAMPLES = 8
"""Level 4 plans with the slowest of its last this many searches."""
START_TIMEOUT = HANDSHAKE_TIMEOUT
"""Seconds an engine has for ``uciok``, and again for each ``readyok``."""
STOP_GRACE = 1.0
"""Seconds an engine has to exit after ``quit`` before it is killed."""
EXIT_WAIT = 1.0
"""Seconds to wait for a dead engine's exit status (for the record)."""


# -- the clock, as UCI says it ------------------------------------------------------------


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def turn_go(
    control: TimeControl,
    colour: chess.Color,
    time_left: float,
    game_left: float | None,
    other_left: float | None,
) -> Go:
    """The ``go`` for a turn (pure).

    ``time_left``: seconds to the turn's deadline (``inf``: none); ``game_left``: the mover's
    game clock now, ``other_left`` the opponent's (None: no game clock). A per-move limit is
    ``movetime`` less `MOVE_MARGIN` (at most a tenth); a game clock is ``wtime``/``btime``
    with the increments; no limit at all is ``movetime`` `UNLIMITED_MOVETIME_MS`.
    """
    movetime = None
    if control.per_move is not None:
        movetime = _ms(time_left - min(MOVE_MARGIN, time_left / 10))
    if control.base is None or game_left is None:
        return Go(movetime=movetime if movetime is not None else UNLIMITED_MOVETIME_MS)
    own = _ms(game_left)
    other = _ms(other_left) if other_left is not None else own
    increment = int(control.increment * 1000)
    white, black = (own, other) if colour == chess.WHITE else (other, own)
    return Go(movetime=movetime, wtime=white, btime=black, winc=increment, binc=increment)


def level_limits(go: Go, colour: chess.Color, time_left: float, check_interval: float) -> Limits:
    """Level 4's bounds for ``go`` (as ``hub engine`` reads it). ``check_interval`` is the
    time between two looks at the clock, which a search may run past its budget: the budget
    leaves it out, and ends two intervals plus `LEVEL_MARGIN` before the deadline (at least
    `MIN_BUDGET`)."""
    limits = go.limits(colour)
    if limits.movetime is None:
        return limits
    budget = limits.movetime - check_interval
    if time_left != math.inf:
        budget = min(budget, time_left - 2 * check_interval - LEVEL_MARGIN)
    return attrs.evolve(limits, movetime=max(budget, MIN_BUDGET))


def turn_go_of(time: TurnTime, colour: chess.Color) -> Go:
    """`turn_go` for a turn's `TurnTime` (what a seat computed from its clocks)."""
    return turn_go(time.control, colour, time.left, time.game_left, time.other_left)


# -- a built-in level ----------------------------------------------------------------------


@attrs.define(eq=False)
class LevelAi:
    """What chess's built-in levels need of the core's `hub.core.play.threads.ThreadSeat`: its
    ``think``. Level 1-4 of `hub.chess.search`; its randomness comes from ``rng`` alone.
    Level 4 measures its speed on its recent searches (``speeds``) to keep its looks at the
    clock away from the deadline (`level_limits`)."""

    level: int = attrs.field(default=4, validator=attrs.validators.in_((1, 2, 3, 4)))
    rng: random.Random = attrs.Factory(random.Random)
    computer: ComputerPlayer = attrs.field(init=False)
    searcher: Searcher = attrs.field(init=False)
    speeds: deque[float] = attrs.Factory(lambda: deque(maxlen=SPEED_SAMPLES))
    """Nodes a second of level 4's recent searches."""

    def __attrs_post_init__(self) -> None:
        self.computer = ComputerPlayer(self.level, self.rng)
        self.searcher = Searcher(self.rng)

    @property
    def check_interval(self) -> float:
        """Seconds between two looks at the clock, at the slowest recent speed."""
        return CHECK_EVERY / min(self.speeds, default=SLOW_NPS)

    def __call__(self, state: ChessState, time: TurnTime, stop: StopFlag) -> str:
        board = state.board.copy()
        if self.level < 4:
            return self.computer.choose(board).uci()
        stop.offer(level3(board, random.Random(0)).uci())  # for the hard stop, then each depth's
        go = turn_go_of(time, board.turn)
        limits = level_limits(go, board.turn, time.left, self.check_interval)
        budget = time.budget()  # the core's rule, less a look at the clock: before the hard stop
        if budget is not None and limits.movetime is not None:
            budget -= self.check_interval
            limits = attrs.evolve(limits, movetime=max(MIN_BUDGET, min(limits.movetime, budget)))
        return self.search(board, limits, stop)

    def search(self, board: chess.Board, limits: Limits, stop: StopFlag) -> str:
        """Level 4's move for ``board`` (a copy this call may use freely)."""

        def offer(info: SearchInfo) -> None:  # each finished depth: for the hard stop
            if info.pv:
                stop.offer(info.pv[0].uci())

        result = self.searcher.search(board, limits, offer, should_stop=stop.is_set)
        if result.seconds >= 0.002 and result.nodes >= 64:
            self.speeds.append(result.nodes / result.seconds)
        assert result.move is not None  # the loop asks only in a position with moves
        return result.move.uci()


def level_seat(
    level: int = 4,
    rng: random.Random | None = None,
    *,
    player: PlayerInfo | None = None,
    limiter: trio.CapacityLimiter | None = None,
    threaded: bool = True,
    process: bool = False,
) -> ThreadSeat[ChessState, str]:
    """Level ``level`` as the core's one local-player seat (a `LevelAi` thinking in a worker
    thread, with the seat's hard stop behind its budget: `any_move`; ``threaded=False``: in
    the event loop's thread, for tests). ``process``: level 4's timed turns think in a
    worker process (`hub.core.play.threads.ProcessSeat`: its search holds the GIL, which the
    event loop needs to keep the clock; ``hub match``)."""
    ai = LevelAi(level, rng if rng is not None else random.Random())
    if player is None:
        player = PlayerInfo(f"ai:{level}", "ai", f"ai:{level}", ai_identity("chess", level))
    kind = ProcessSeat if process and level == 4 else ThreadSeat
    return kind(ai, player, limiter=limiter, threaded=threaded, fallback=any_move)


def any_move(state: ChessState) -> str:
    """A level's answer at the seat's hard stop when its search has not answered (a busy
    machine): the first legal move, at once (the seat is asked only when there is one)."""
    return next(iter(state.board.legal_moves)).uci()


# -- a UCI engine ---------------------------------------------------------------------------


def _status_text(engine: EngineClient) -> str:
    status = engine.child.status
    if status is None:
        return "the engine stopped talking"
    if status.signal is not None:
        return f"the engine was killed by signal {status.signal}"
    return f"the engine exited with status {status.code}"


@attrs.define(eq=False)
class UciSeat(ClockedSeat[ChessState, str], LaunchedSeat[ChessState, str]):
    """A UCI engine, started by `launch` (or at ``begin``) and stopped by `aclose` (or at
    ``end``). ``options`` are sent as ``setoption`` in order, once, after ``uciok``."""

    argv: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    player: PlayerInfo = attrs.Factory(lambda: PlayerInfo("engine", "engine"))
    start_timeout: float = START_TIMEOUT
    new_process_group: bool = True
    """Own process group: a Ctrl-C at the terminal reaches only hub, which ends the game."""
    engine: EngineClient | None = None
    failure: SeatFailure | None = None
    """Why `launch` failed (raised at ``begin``, so the game records this seat's fault)."""
    launched: bool = False
    shelf: EngineShelf | None = None
    """Where an engine waits between games (`EngineShelf`): `launch` takes one from there,
    and `aclose` puts a healthy, idle engine back instead of stopping it."""
    idle: bool = True
    """False from a ``go`` until its ``bestmove`` (an engine still searching is not reused)."""
    last_score: int | None = None
    """The score the engine reported for its last move of this game, in centipawns from its
    own side (a mate: ``hub.chess.uci.MATE_SCORE`` less the distance); None before its first
    move or when it reported none. What adjudication reads (`hub.declared.adjudication`)."""

    control: TimeControl = attrs.field(factory=TimeControl, init=False)
    """This seat's time control in the current game (from ``begin``)."""
    ahead: tuple[str, float] | None = attrs.field(default=None, init=False)
    """A search started by `foresee` and not yet taken over: its ``position`` command and
    when its ``go`` was written."""

    @property
    def shelf_key(self) -> tuple[object, ...]:
        return (self.argv, self.options, self.new_process_group)

    async def launch(self) -> None:
        """Start the engine and set its options (once), or take one already set up from the
        shelf; then ``ucinewgame`` and ``isready`` (the seats of a game launch together, so
        both engines get ready at once); a failure is kept for ``begin``."""
        if self.launched:
            return
        self.launched = True
        engine = None if self.shelf is None else self.shelf.take(self.shelf_key)
        started = engine is None
        if engine is None:
            try:
                engine = await EngineClient.start(
                    self.argv,
                    handshake_timeout=self.start_timeout,
                    uci_first=True,
                    new_process_group=self.new_process_group,
                )
            except EngineStartError as exc:
                self.failure = self._start_failure(exc)
                return
        self.engine = engine
        # The engine says who it is in its handshake (``id name``): the record's identity.
        self.player = attrs.evolve(self.player, identity=self._identity(engine))
        try:
            if started:  # one from the shelf has its options already
                options = [setoption_line(name, value) for name, value in self.options]
                await self._setup(options, "its options")
            # one from the shelf was sent its ``ucinewgame`` as it was put there (`aclose`)
            await self._setup(None if engine.readying else ["ucinewgame"], "ucinewgame")
        except SeatFailure as exc:
            self.failure = exc

    def _identity(self, engine: EngineClient) -> str:
        """The engine's identity with the options it was given (hub.core.model.identity)."""
        return with_options(engine.identity, self.options)

    def _start_failure(self, exc: EngineStartError) -> SeatFailure:
        cause = exc.__cause__
        if isinstance(cause, SpawnFailed):
            return SeatFailure(Termination.DISCONNECT, f"could not be started: {cause}")
        if isinstance(cause, trio.TooSlowError):
            return SeatFailure(
                Termination.TIMEOUT, f"no uciok within {self.start_timeout:g} s of uci"
            )
        if isinstance(cause, EngineProtocolError):
            return SeatFailure(Termination.MALFORMED, f"during the handshake: {cause}")
        return SeatFailure(Termination.DISCONNECT, f"during the handshake: {cause or exc}")

    async def _failure(self, exc: EngineError, doing: str) -> SeatFailure:
        """The fault of an engine that failed while ``doing``: garbage or a dead engine."""
        if isinstance(exc, EngineProtocolError):
            return SeatFailure(Termination.MALFORMED, f"{doing}: {exc}")
        assert self.engine is not None
        with trio.move_on_after(EXIT_WAIT):
            await self.engine.child.reap()
        return SeatFailure(Termination.DISCONNECT, f"{doing}: {_status_text(self.engine)}")

    async def _setup(self, commands: Sequence[str] | None, what: str) -> None:
        """Send ``commands`` and ``isready`` (None: only wait for the ``readyok`` of those
        sent already) and wait for ``readyok``, within ``start_timeout``."""
        assert self.engine is not None
        with trio.move_on_after(self.start_timeout):
            try:
                self.idle = False
                if commands is not None:
                    await self.engine.begin_setup(commands)
                await self.engine.finish_setup()
                self.idle = True
            except EngineError as exc:
                raise await self._failure(exc, f"setting up {what}") from exc
            return
        raise SeatFailure(
            Termination.TIMEOUT, f"no readyok within {self.start_timeout:g} s of {what}"
        )

    async def begin(self, start: Start[ChessState]) -> None:
        await super().begin(start)
        self.control = start.control
        await self.launch()
        if self.failure is not None:
            raise self.failure
        self.last_score = None

    async def foresee(self, turn: Turn[ChessState], move: str, stopped: float) -> None:
        """The opponent's ``move`` is in (`hub.core.play.vocabulary.Foresight`): start this
        engine's search on the position after it at once, with the clocks as the move leaves
        them, while the referee checks the move, looks for the game's end and records it.
        `choose` takes the search over when the game goes on as foreseen (the engine's clock
        runs from this ``go``); otherwise it is stopped (``stop``, its ``bestmove`` dropped).
        Only in a timed two-player game, with the engine idle and the game short enough to
        list from its start."""
        engine = self.engine
        if (
            engine is None
            or not self.idle
            or self.failure is not None
            or turn.seat == self.seat
            or len(self.clocks) != 2
            or not self.control.limited
        ):
            return
        position = position_command_after(turn.state, move)
        if position is None:
            return
        own = self.clocks[self.seat]
        per_move = self.control.per_move
        left = min(math.inf if per_move is None else per_move, math.inf if own is None else own)
        other = turn.clock.after(stopped)
        if other is None:
            other = turn.clock.control.per_move
        go = turn_go(self.control, not turn.state.board.turn, left, own, other)
        self.idle = False
        try:
            await engine.begin_search(position, go.command())
        except (EngineError, LineError):
            return  # a broken engine: its next `choose` says how
        self.ahead = (position, trio.current_time())

    async def _drop_ahead(self, engine: EngineClient) -> None:
        """Stop the search `foresee` started and read its ``bestmove`` (within `STOP_GRACE`);
        the engine stays busy (not idle: `aclose` stops it) if it does not answer."""
        self.ahead = None
        with trio.move_on_after(STOP_GRACE):
            try:
                await engine.cancel_search()
            except EngineError:
                return
            self.idle = True

    async def choose(self, turn: Turn[ChessState]) -> str:
        engine = self.engine
        assert engine is not None  # begin succeeded
        ahead = self.ahead
        if ahead is not None:
            if ahead[0] == position_command(turn.state):  # the game went on as foreseen
                self.ahead = None
                turn.began(ahead[1])
                return await self._search(engine, turn, None)
            await self._drop_ahead(engine)
        go = turn_go_of(self.turn_time(turn), turn.state.board.turn)
        if turn.deadline != math.inf:  # the match loop's clock bounds the search
            return await self._search(engine, turn, go)
        # no clock: the loop would wait forever
        bound = (go.movetime or UNLIMITED_MOVETIME_MS) / 1000 + UNLIMITED_GRACE
        with trio.move_on_after(bound):
            return await self._search(engine, turn, go)
        raise SeatFailure(Termination.TIMEOUT, f"no bestmove within {bound:g} s")

    async def _search(self, engine: EngineClient, turn: Turn[ChessState], go: Go | None) -> str:
        """The engine's move for ``turn``: a new search with ``go``, or with None the one
        `foresee` started."""
        now = trio.current_time
        try:
            self.idle = False
            if go is None:
                move = await engine.finish_search()
            else:
                move = await engine.search(
                    position_command(turn.state), go.command(), lambda: turn.told(now())
                )
            self.idle = True
            self.last_score = engine.last_score
        except EngineError as exc:
            raise await self._failure(exc, "searching") from exc
        if move is None:
            raise SeatFailure(
                Termination.ILLEGAL_MOVE, "bestmove (none) in a position with legal moves"
            )
        return move

    async def end(self, result: MatchResult[ChessState, str]) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Put the engine back on the shelf if there is one and the engine is alive, idle and
        never failed (a search `foresee` started for a game that ended is stopped first);
        otherwise send ``quit``, wait `STOP_GRACE` for the engine to exit, kill it, reap it
        (even when cancelled; again is a no-op)."""
        engine = self.engine
        if engine is None:
            return
        if self.ahead is not None:
            with trio.CancelScope(shield=True):
                await self._drop_ahead(engine)
        self.engine = None
        if self.shelf is not None and self.failure is None and self.idle and engine.alive:
            # The next game's ``ucinewgame`` (and ``isready``) at once: the engine clears its
            # hash while this game is recorded and the next one set up, and that game's
            # `launch` only reads the ``readyok``.
            with trio.CancelScope(shield=True):
                await engine.begin_setup(["ucinewgame"])
            self.shelf.put(self.shelf_key, engine)
            return
        await stop_engine(engine)


async def stop_engine(engine: EngineClient) -> None:
    """Send ``quit``, wait `STOP_GRACE` for the engine to exit, kill it, reap it (shielded)."""
    with trio.CancelScope(shield=True):
        with trio.move_on_after(STOP_GRACE):
            await engine.child.lines.send_line("quit")
        await engine.stop(grace=STOP_GRACE)


@attrs.define(eq=False)
class EngineShelf:
    """Engines kept between the games of one match slot, by what started them (command,
    options): a `UciSeat` takes one at `UciSeat.launch` and puts it back, alive and idle, at
    `UciSeat.aclose`; its next game begins with ``ucinewgame`` and ``isready`` as every game
    does. Starting Stockfish costs tens of ms of CPU (its network, its hash), paid once per
    engine instead of once per game, as fastchess and cutechess do. `aclose` stops them all."""

    idle: dict[tuple[object, ...], list[EngineClient]] = attrs.Factory(dict)
    dropped: list[EngineClient] = attrs.Factory(list)
    """Engines found dead on the shelf, reaped at `aclose`."""

    def take(self, key: tuple[object, ...]) -> EngineClient | None:
        waiting = self.idle.get(key)
        while waiting:
            engine = waiting.pop()
            if engine.alive:
                return engine
            self.dropped.append(engine)
        return None

    def put(self, key: tuple[object, ...], engine: EngineClient) -> None:
        self.idle.setdefault(key, []).append(engine)

    async def aclose(self) -> None:
        """Stop every engine on the shelf (shielded; again is a no-op)."""
        engines = [engine for waiting in self.idle.values() for engine in waiting]
        engines += self.dropped
        self.idle.clear()
        self.dropped.clear()
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for engine in engines:
                    nursery.start_soon(stop_engine, engine)


# -- a person -------------------------------------------------------------------------------


def read_person_move(board: chess.Board, text: str) -> str | None:
    """The legal move ``text`` names, in UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``),
    as UCI text; None if it names none."""
    text = text.strip()
    try:
        move = board.parse_uci(normalise(text))
    except ValueError:
        try:
            move = board.parse_san(text)
        except ValueError:
            return None
    return move.uci() if move else None  # not the null move


def result_line(result: MatchResult[ChessState, str]) -> str:
    """``1-0 (checkmate)``, ``1/2-1/2 (threefold repetition)``, ``0-1 (white: timeout)``."""
    record = result.record
    reason = record.detail or record.termination.value
    if record.fault is not None:
        reason = f"{COLOUR_NAMES[record.fault.seat]}: {record.fault.termination.value}"
    return f"{record.result_text()} ({reason})"


class ChessPersonCodec:
    """Chess's `hub.core.play.person.PersonCodec`: a move typed in UCI or SAN (`read_person_move`),
    ``resign`` or ``quit`` to give up; the question ends the turn's lines (no prompt)."""

    def turn_lines(self, seat: int, state: ChessState) -> Sequence[str]:
        return board_lines(state.board)

    def prompt(self, seat: int, state: ChessState) -> str:
        return ""

    def read_move(self, seat: int, text: str, state: ChessState) -> str:
        text = text.strip()
        if text in ("resign", "quit"):
            raise SeatFailure(Termination.RESIGNATION, text)
        move = read_person_move(state.board, text) if text else None
        if move is not None:
            return move
        raise AskAgain(f"Not a legal move here: {text}") if text else AskAgain()

    def refused_lines(
        self, seat: int, move: str, error: IllegalMove, state: ChessState
    ) -> Sequence[str]:
        return [f"Not a legal move here: {move}"]


@attrs.frozen
class _ReadLine:
    read_line: Callable[[], Awaitable[str | None]]

    async def receive(self) -> str | None:
        return await self.read_line()


@attrs.define(eq=False, init=False)
class ChessPersonSeat(PersonSeat[ChessState, str]):
    """A person: the core `hub.core.play.person.PersonSeat` with `ChessPersonCodec`, where `write`
    shows lines and `read_line` returns the next typed line (None at the end of input, which
    resigns). ``resign`` (or ``quit``) gives up; a line that is not a legal move is refused
    and the person asked again, with the clock running. With no narrator on the terminal, the
    seat itself says the game's start, the opponent's moves, a time-out and the end."""

    opponent: str = "the opponent"

    def __init__(
        self,
        read_line: Callable[[], Awaitable[str | None]],
        write: Callable[[Sequence[str]], None],
        player: PlayerInfo | None = None,
    ) -> None:
        if player is None:
            player = PlayerInfo("human", "person", "human", person_identity("human"))
        self.__attrs_init__(_ReadLine(read_line), LinesOutput(write), ChessPersonCodec(), player)

    def _say(self, *lines: str) -> None:
        self._show(lines)

    async def begin(self, start: Start[ChessState]) -> None:
        await super().begin(start)
        self.opponent = start.event.players[1 - start.seat].name
        self._say(f"You play {COLOUR_NAMES[start.seat]} against {self.opponent}.")

    def turn_lines(self, turn: Turn[ChessState]) -> Sequence[str]:
        board = turn.state.board
        left = turn.time_left()
        clock = "" if left == math.inf else f", {left:.1f} s left"
        return [
            *super().turn_lines(turn),
            f"You are {COLOUR_NAMES[turn.seat]}{' (in check)' if board.is_check() else ''}"
            f"{clock}: your move (e2e4 or Nf3), or resign",
        ]

    async def rejected(self, turn: Turn[ChessState], move: str, error: IllegalMove) -> bool:
        await super().rejected(turn, move, error)
        self._refused = False  # the board and the question again, as before the core seat
        return True

    async def observe(self, moved: Moved[ChessState, str]) -> None:
        if moved.seat != self.seat:
            board = moved.before.board
            san = board.san(board.parse_uci(moved.text))
            self._say(f"{self.opponent} plays {san} ({moved.text}).")

    async def time_up(self, seat: int) -> None:
        if seat == self.seat:
            self._say("Your time is up.")

    async def end(self, result: MatchResult[ChessState, str]) -> None:
        self._say(*board_lines(result.state.board), f"Game over: {result_line(result)}")
