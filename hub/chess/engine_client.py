"""Driving a UCI chess engine (Stockfish) shared by many games, on trio.

Layers, from the bottom:

* The pure readers of the engine's output are in `hub.chess.uci` (`HandshakeReader`,
  `BestMoveReader`, `PerftReader`, `BoardReader`); they raise `EngineProtocolError` for
  output they cannot accept.
* `EngineClient`: one engine process (stdin/stdout pipes, stderr inherited, as the spec says),
  its handshake under a deadline and one request at a time. Only its owner task talks to it:
  the pool's (`execute`) or a chess match's `hub.chess.seats.UciSeat` (`setup` for options
  and ``ucinewgame``, `search` with the ``go`` of the player's clock).
* `EnginePool`: N engines (default 1), each owned by one task that takes requests from a
  bounded queue. The queue is a bounded memory channel with two refinements on the receiving
  side: requests that need the engine but no search (``hint all``: `JobKind.PERFT`, and the
  board art) go ahead of queued searches, and a game keeps to the engine that served it last
  (its hash stays warm, and no ``ucinewgame`` is needed) unless that engine is busy while
  another is idle. ``ucinewgame`` + ``isready`` is sent only on a context switch, when an
  engine's next request is about a different game than its last. The death of any engine is
  seen at once (a task waits on each process), every waiting request fails with
  `EngineTerminated`, and `EnginePool.run` raises `EngineTerminated`.

`EngineError` and `EngineProtocolError` are defined beside the readers (which raise them) and
exported from here with the other errors.
"""

from __future__ import annotations

import atexit
import enum
import os
import shutil
import signal
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

import attrs
import trio

from hub.chess.uci import (
    BestMoveReader,
    BoardReader,
    EngineError,
    EngineProtocolError,
    HandshakeReader,
    PerftReader,
    Reader,
    ReadyReader,
)
from hub.core.io.lines import LineError, LineTooLong
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.model.identity import engine_identity, program_identity

__all__ = [
    "EngineClient",
    "EngineError",
    "EnginePool",
    "EngineProtocolError",
    "EngineStartError",
    "EngineTerminated",
    "JobKind",
    "find_engine",
]

ENGINE_NAME = "stockfish"
DEBIAN_ENGINE = "/usr/games/stockfish"
ENGINE_ENV = "UQCHESS_ENGINE"
"""Our addition: an explicit engine command (split on spaces) instead of looking for Stockfish."""

SEARCH_COMMAND = "go movetime 500 depth 15"
PERFT_COMMAND = "go perft 1"
HANDSHAKE_TIMEOUT = 10.0
REQUEST_TIMEOUT = 30.0
"""A request the engine has not answered by then means the engine is broken (exit 7)."""
ENGINE_MAX_LINE = 65536
URGENT_BUDGET = 0.1
"""Seconds of urgent work an engine does between two searches when searches are waiting."""
DEFAULT_MAX_PENDING = 4096
LATENCY_ENV = "HUB_UCI_LATENCY"
"""A file name: when set, the hub measures its own time per move (see `TurnTimer`)."""

T = TypeVar("T")


class TurnTimer:
    """The hub's own time per move, for benchmarks (bench/fastchess.py): from reading an
    engine's ``bestmove`` to writing the next ``go`` of the same game (to the opponent),
    in nanoseconds of `time.perf_counter_ns`, twice: to the start of the write (the hub's
    own work) and to its end (with the write, which wakes the engine and may let it run
    first on a busy machine): one line ``BEFORE AFTER`` per move.

    Made only when $HUB_UCI_LATENCY names a file (`TIMER`; otherwise None, and the engine
    path pays one ``is None`` test per message). Each process keeps its samples and appends
    them to that file at exit, one integer a line. A process plays one game at a time (a
    match's worker, or ``hub match`` itself), so one timer per process pairs each ``go`` with
    the last ``bestmove``; ``ucinewgame`` (`EngineClient.setup`) forgets it, so a game's first
    ``go`` is not counted."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.samples: list[tuple[int, int]] = []
        self.last: int | None = None
        self.writing: int | None = None

    def bestmove(self) -> None:
        self.last = time.perf_counter_ns()

    def write(self) -> None:
        self.writing = time.perf_counter_ns()

    def go(self) -> None:
        if self.last is not None and self.writing is not None:
            self.samples.append((self.writing - self.last, time.perf_counter_ns() - self.last))
        self.last = self.writing = None

    def reset(self) -> None:
        self.last = None

    def save(self) -> None:
        if self.samples:
            text = "".join(f"{before} {after}\n" for before, after in self.samples)
            with open(self.path, "a", encoding="ascii") as file:
                file.write(text)
            self.samples.clear()

    @classmethod
    def from_env(cls) -> TurnTimer | None:
        path = os.environ.get(LATENCY_ENV)
        if not path:
            return None
        timer = cls(path)
        atexit.register(timer.save)
        return timer


TIMER = TurnTimer.from_env()


class EngineStartError(EngineError):
    """The engine could not be started or did not complete the handshake."""


class EngineTerminated(EngineError):
    """An engine exited (or was killed after misbehaving) while the server needed it."""


# -- one engine ----------------------------------------------------------------------------


def find_engine() -> list[str] | None:
    """The engine command: $UQCHESS_ENGINE, else ``stockfish`` on PATH, else Debian's path.

    An empty $UQCHESS_ENGINE means "no engine found" (tests use it).
    """
    explicit = os.environ.get(ENGINE_ENV)
    if explicit is not None:
        return explicit.split() or None
    found = shutil.which(ENGINE_NAME)
    if found is not None:
        return [found]
    if os.access(DEBIAN_ENGINE, os.X_OK):
        return [DEBIAN_ENGINE]
    return None


class JobKind(enum.Enum):
    SEARCH = "search"
    PERFT = "perft"
    BOARD = "board"

    @property
    def urgent(self) -> bool:
        return self is not JobKind.SEARCH


@attrs.define(eq=False)
class EngineClient:
    """One engine process. Only its owner task may call `execute`."""

    child: ChildProcess
    index: int = 0
    search_command: str = SEARCH_COMMAND
    request_timeout: float = REQUEST_TIMEOUT
    last_game: Hashable | None = None
    busy: bool = False
    requests: int = 0
    context_switches: int = 0
    urgent_time: float = 0.0
    """Time spent on urgent jobs since the last search (see `_JobQueue._pick`)."""
    id_name: str = ""
    """What the engine said in ``id name`` during the handshake ("" if nothing)."""
    readying: bool = False
    """A ``readyok`` is still to be read (`begin_setup`, `finish_setup`)."""
    last_score: int | None = None
    """The score of the last `search`'s last ``info ... score`` line, in centipawns from the
    mover's view (`hub.chess.uci.parse_score`); None if it reported none."""

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        index: int = 0,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        search_command: str = SEARCH_COMMAND,
        request_timeout: float = REQUEST_TIMEOUT,
        uci_first: bool = False,
        new_process_group: bool = False,
    ) -> EngineClient:
        """Spawn ``argv`` (stderr inherited) and complete the handshake, or `EngineStartError`.

        The handshake is ``isready`` then ``uci`` (what the UQChess spec has Stockfish see),
        or with ``uci_first`` the protocol's own ``uci`` alone, for any UCI engine.
        ``new_process_group`` keeps a terminal's Ctrl-C from reaching the engine.
        """
        try:
            child = await ChildProcess.spawn(
                argv, max_line=ENGINE_MAX_LINE, new_process_group=new_process_group, stderr=None
            )
        except SpawnFailed as exc:
            raise EngineStartError(str(exc)) from exc
        lines = child.lines
        engine = cls(child, index, search_command, request_timeout)
        try:
            with trio.fail_after(handshake_timeout):
                if not uci_first:
                    await lines.send_line("isready")
                    await engine._read(ReadyReader())
                await lines.send_line("uci")
                handshake = HandshakeReader(ready=True)
                await engine._read(handshake)
                engine.id_name = handshake.name
        except (trio.TooSlowError, EngineError) as exc:
            await engine.stop(grace=0)
            raise EngineStartError(f"handshake failed: {exc or type(exc).__name__}") from exc
        except BaseException:  # cancelled during the handshake: no engine is left behind
            await engine.stop(grace=0)
            raise
        return engine

    @property
    def pid(self) -> int:
        return self.child.pid

    @property
    def identity(self) -> str:
        """Who the engine is (hub.core.model.identity): ``uci:ID NAME``, or without an ``id name``
        its program, ``program:PATH@HASH``."""
        if self.id_name:
            return engine_identity(self.id_name)
        program = self.child.argv[0] if self.child.argv else ""
        return program_identity(program)

    @property
    def alive(self) -> bool:
        return not self.child.exited

    async def _read(self, reader: Reader[T]) -> T:
        """Feed ``reader`` until it is complete; `EngineProtocolError` for an over-long line,
        `EngineTerminated` when the engine's output ends or breaks."""
        try:
            while True:
                if reader.feed(await self.child.lines.receive_line()):
                    return reader.result
        except LineTooLong as exc:
            raise EngineProtocolError(f"engine {self.index}: {exc}") from exc
        except LineError as exc:
            raise EngineTerminated(f"engine {self.index}: {exc}") from exc

    async def setup(self, commands: Sequence[str]) -> None:
        """Send ``commands`` (``setoption ...``, ``ucinewgame``), then ``isready``, and wait for
        ``readyok``. Bounded by the caller; raises like `_read`."""
        await self.begin_setup(commands)
        await self.finish_setup()

    async def begin_setup(self, commands: Sequence[str]) -> None:
        """`setup`'s first half: send ``commands`` and ``isready`` without waiting; the
        engine works on them (``ucinewgame`` clears its hash) until `finish_setup` reads
        its ``readyok``. `readying` says that one is still to be read."""
        if TIMER is not None:
            TIMER.reset()
        lines = self.child.lines
        for command in (*commands, "isready"):
            lines.queue_line(command)
        self.readying = True
        await lines.flush_eagerly()

    async def finish_setup(self) -> None:
        """`setup`'s second half: wait for the ``readyok`` of `begin_setup`."""
        await self._read(ReadyReader())
        self.readying = False

    async def search(
        self, position: str, go: str, sent: Callable[[], None] | None = None
    ) -> str | None:
        """Send ``position`` and ``go``; the move of the ``bestmove`` line (None for
        ``bestmove (none)``). Bounded by the caller (the player's clock); raises like `_read`,
        and leaves the engine running whatever happens (its owner stops it). The score it
        reported for the move is kept in `last_score`. ``sent`` is called once the ``go``
        is written (the engine's clock starts then: `hub.core.play.vocabulary.Turn.told`)."""
        await self.begin_search(position, go)
        if sent is not None:
            sent()
        return await self.finish_search()

    async def begin_search(self, position: str, go: str) -> None:
        """`search`'s first half: write ``position`` and ``go`` (at once if the pipe has
        room); `finish_search` reads the answer, or `cancel_search` drops it."""
        lines = self.child.lines
        lines.queue_line(position)
        lines.queue_line(go)
        self.last_score = None
        if TIMER is None:
            await lines.flush_eagerly()
        else:
            TIMER.write()
            await lines.flush_eagerly()
            TIMER.go()

    async def finish_search(self) -> str | None:
        """`search`'s second half: the ``bestmove`` of the search `begin_search` started."""
        reader = BestMoveReader()
        move = await self._read(reader)
        if TIMER is not None:
            TIMER.bestmove()
        self.last_score = reader.score
        return move

    async def cancel_search(self) -> None:
        """Stop the search `begin_search` started (``stop``) and read its ``bestmove``,
        which is dropped: the engine is idle again. Bounded by the caller."""
        await self.child.lines.send_line("stop")
        await self._read(BestMoveReader())
        if TIMER is not None:
            TIMER.reset()

    async def execute(self, game: Hashable, position: str, kind: JobKind) -> object:
        """One request: context switch if needed, ``position``, then ``go``/``d``.

        Any failure (the engine died, timed out or printed something unacceptable) kills
        the engine and raises `EngineTerminated`: the pool's watcher then reports its death.
        """
        lines = self.child.lines
        try:
            with trio.fail_after(self.request_timeout):
                if game != self.last_game:
                    self.last_game = None
                    await lines.send_line("ucinewgame")
                    await lines.send_line("isready")
                    await self._read(ReadyReader())
                    self.last_game = game
                    self.context_switches += 1
                self.requests += 1
                lines.queue_line(position)
                if kind is JobKind.SEARCH:
                    lines.queue_line(self.search_command)
                    await lines.flush()
                    return await self._read(BestMoveReader())
                if kind is JobKind.PERFT:
                    lines.queue_line(PERFT_COMMAND)
                    await lines.flush()
                    return await self._read(PerftReader())
                lines.queue_line("d")
                await lines.flush()
                return await self._read(BoardReader())
        except (trio.TooSlowError, EngineError) as exc:
            self.kill()
            raise EngineTerminated(f"engine {self.index}: {exc or type(exc).__name__}") from exc

    def kill(self) -> None:
        self.child.signal(signal.SIGKILL)

    async def stop(self, *, grace: float = 1.0) -> None:
        """Close its stdin (Stockfish quits on EOF), then SIGKILL at ``grace``; always reap."""
        await self.child.close_stdin()
        await stop_all([self.child], grace=grace)


# -- the pool ------------------------------------------------------------------------------


@attrs.define(eq=False)
class _Job:
    game: Hashable
    position: str
    kind: JobKind
    done: trio.Event = attrs.Factory(trio.Event)
    result: object = None
    error: BaseException | None = None
    abandoned: bool = False

    def finish(self, result: object = None, error: BaseException | None = None) -> None:
        if not self.done.is_set():
            self.result, self.error = result, error
            self.done.set()


class _JobQueue:
    """A bounded channel of jobs whose receivers pick by urgency and engine affinity."""

    def __init__(self, capacity: int) -> None:
        self._room = trio.Semaphore(capacity)
        self._urgent: deque[_Job] = deque()
        self._searches: deque[_Job] = deque()
        self._lot = trio.lowlevel.ParkingLot()
        self.closed: EngineTerminated | None = None

    def __len__(self) -> int:
        return len(self._urgent) + len(self._searches)

    async def put(self, job: _Job) -> None:
        if self.closed is not None:
            raise self.closed
        await self._room.acquire()
        if self.closed is not None:
            self._room.release()
            raise self.closed
        (self._urgent if job.kind.urgent else self._searches).append(job)
        self._lot.unpark_all()

    def withdraw(self, job: _Job) -> None:
        for queue in (self._urgent, self._searches):
            if job in queue:
                queue.remove(job)
                self._room.release()
                return

    async def take(self, engine: EngineClient, pool: EnginePool) -> _Job:
        while True:
            if self.closed is not None:
                raise self.closed
            job = self._pick(engine, pool)
            if job is not None:
                self._room.release()
                return job
            await self._lot.park()

    def _pick(self, engine: EngineClient, pool: EnginePool) -> _Job | None:
        """The oldest urgent job, else the oldest search, that ``engine`` should take.

        Jobs are taken in order of arrival (no game can starve another); a job is passed
        over only while the engine that served its game last is idle, for that engine is
        about to take it (the game keeps to its engine, with its hash, while it can).
        Urgent jobs go first until they have had ``URGENT_BUDGET`` seconds of the engine
        since its last search: then a waiting search goes first, so that a flood of
        ``hint all`` cannot starve the computer's moves.
        """
        order = (self._urgent, self._searches)
        if engine.urgent_time >= URGENT_BUDGET:
            order = (self._searches, self._urgent)
        for queue in order:
            for job in queue:
                home = pool.home.get(job.game)
                if home is None or home == engine.index or pool.engines[home].busy:
                    queue.remove(job)
                    return job
        return None

    def close(self, error: EngineTerminated) -> None:
        self.closed = error
        for queue in (self._urgent, self._searches):
            while queue:
                queue.popleft().finish(error=error)
                self._room.release()
        self._lot.unpark_all()


class EnginePool:
    """N started engines serving every game; run `run` in a nursery, then send requests."""

    def __init__(self, engines: Sequence[EngineClient], *, max_pending: int = DEFAULT_MAX_PENDING):
        if not engines:
            raise ValueError("a pool needs at least one engine")
        self.engines = list(engines)
        self.home: dict[Hashable, int] = {}
        self._queue = _JobQueue(max_pending)
        self.failure: EngineTerminated | None = None

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        count: int = 1,
        *,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        search_command: str = SEARCH_COMMAND,
        request_timeout: float = REQUEST_TIMEOUT,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> EnginePool:
        """Start ``count`` engines (in parallel); `EngineStartError` if any fails."""
        engines: list[EngineClient | None] = [None] * count
        failures: list[EngineStartError] = []

        async def start_one(index: int) -> None:
            try:
                engines[index] = await EngineClient.start(
                    argv,
                    index=index,
                    handshake_timeout=handshake_timeout,
                    search_command=search_command,
                    request_timeout=request_timeout,
                )
            except EngineStartError as exc:
                failures.append(exc)

        async with trio.open_nursery() as nursery:
            for index in range(count):
                nursery.start_soon(start_one, index)
        started = [engine for engine in engines if engine is not None]
        if failures:
            with trio.CancelScope(shield=True):
                for engine in started:
                    await engine.stop(grace=1.0)
            raise failures[0]
        return cls(started, max_pending=max_pending)

    @property
    def pending(self) -> int:
        return len(self._queue)

    @property
    def identity(self) -> str:
        """The engines' identity (they are one program): `EngineClient.identity`."""
        return self.engines[0].identity

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Own the engines until cancelled or until one dies (then raise `EngineTerminated`).

        Every engine is stopped and reaped on the way out, whatever the reason.
        """
        try:
            async with trio.open_nursery() as nursery:
                for engine in self.engines:
                    nursery.start_soon(self._own, engine)
                    nursery.start_soon(self._watch, engine, nursery.cancel_scope)
                task_status.started()
        finally:
            with trio.CancelScope(shield=True):
                for engine in self.engines:
                    if not engine.alive:
                        continue
                    await engine.stop(grace=1.0)
                # A dead engine was reaped by its watcher; close its pipes too.
                for engine in self.engines:
                    await engine.child.close_pipes()
        if self.failure is not None:
            raise self.failure

    async def _watch(self, engine: EngineClient, scope: trio.CancelScope) -> None:
        await engine.child.reap()
        if self.failure is None:
            code = engine.child.status
            self.failure = EngineTerminated(f"engine {engine.index} exited ({code})")
            self._queue.close(self.failure)
        scope.cancel()

    async def _own(self, engine: EngineClient) -> None:
        """The one task that talks to ``engine``: take a job, run it, answer it, repeat."""
        while True:
            try:
                job = await self._queue.take(engine, self)
            except EngineTerminated:
                return
            if job.abandoned:
                continue
            self._make_home(job.game, engine)
            engine.busy = True
            started = trio.current_time()
            try:
                result = await engine.execute(job.game, job.position, job.kind)
            except EngineTerminated as exc:
                job.finish(error=self.failure or exc)
                await trio.sleep_forever()  # the watcher sees the death and ends the pool
            finally:
                engine.busy = False
            if job.kind.urgent:
                engine.urgent_time += trio.current_time() - started
            else:
                engine.urgent_time = 0.0
            job.finish(result)
            if self._queue:
                await trio.lowlevel.checkpoint()

    def _make_home(self, game: Hashable, engine: EngineClient) -> None:
        """``engine`` serves ``game`` now: it is that game's home, and no other game's.

        The game it served before lost its hash at the switch (``ucinewgame``), so its
        affinity is worth nothing. This keeps `home` to one entry per engine at most, even
        for a game forgotten while one of its requests was still waiting in the queue.
        """
        for other in [key for key, index in self.home.items() if index == engine.index]:
            del self.home[other]
        self.home[game] = engine.index

    async def _request(self, game: Hashable, position: str, kind: JobKind) -> object:
        if self.failure is not None:
            raise self.failure
        job = _Job(game, position, kind)
        await self._queue.put(job)
        try:
            await job.done.wait()
        finally:
            if not job.done.is_set():
                job.abandoned = True
                self._queue.withdraw(job)
        if job.error is not None:
            raise job.error
        return job.result

    async def best_move(self, game: Hashable, position: str) -> str | None:
        """The engine's move (``go movetime 500 depth 15``) for ``position``; None if none."""
        result = await self._request(game, position, JobKind.SEARCH)
        assert result is None or isinstance(result, str)
        return result

    async def legal_moves(self, game: Hashable, position: str) -> list[str]:
        """The moves of ``go perft 1`` in the engine's order (ahead of queued searches)."""
        result = await self._request(game, position, JobKind.PERFT)
        assert isinstance(result, list)
        return result

    async def board(self, game: Hashable, position: str) -> list[str]:
        """The board art of ``d`` (20 lines, as clients receive it)."""
        result = await self._request(game, position, JobKind.BOARD)
        assert isinstance(result, list)
        return result

    def fail(self, reason: str) -> None:
        """An engine misbehaved in a way only the caller can see: kill them all (exit 7)."""
        for engine in self.engines:
            engine.kill()

    def forget(self, game: Hashable) -> None:
        """The game is over: drop its engine affinity (memory returns to baseline)."""
        self.home.pop(game, None)
        for engine in self.engines:
            if engine.last_game == game:
                # Keep the key out of memory; the next request still switches context.
                engine.last_game = _Forgotten()


class _Forgotten:
    """A game key that equals no other (stands for a game the engine served last)."""
