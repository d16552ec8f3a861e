"""``hub serve kalah``: many clients at once against the server's AI, a person, or each other.

Each connection gets ``WELCOME`` at once. With ``--opponent ai`` (the default) it then gets
``INFO`` and plays the AI; with ``--opponent client`` the `Lobby` pairs connections two by
two (the one waiting is watched, so a client that leaves before it is paired is dropped
instead of handed to the next one as a ghost) and both get ``INFO`` once paired; with
``--opponent human`` the person at the terminal plays one client at a time, the others
waiting in line (before ``WELCOME``). `hub.games.kalah.game.run_game` referees every game.

The port goes to stderr as a number on its own line once the server listens; one line per
finished game goes to stdout. Nothing a client sends can produce a traceback: its lines
are bounded (`hub.games.kalah.protocol.max_line`), checked, and only shown escaped.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import random
import sys
from collections.abc import Callable, Sequence

import attrs
import trio

from hub.core.lines import LineError, LineStream
from hub.core.output import Output
from hub.core.running import run_program
from hub.core.serve import Connection, ListenError, bound_port, open_listeners, serve_lines
from hub.core.stdin import LineInput, open_line_input
from hub.games.kalah.console import describe_move, draw_board
from hub.games.kalah.game import GameRecord, LocalSeat, RemoteSeat, run_game
from hub.games.kalah.options import SERVE_USAGE, GameOptions, OptionsError, parse_serve
from hub.games.kalah.players import AiPlayer, HumanPlayer, Player, ScriptedPlayer
from hub.games.kalah.protocol import (
    READY,
    WELCOME,
    WINNER,
    Info,
    format_info,
    is_word,
    max_line,
    parse_script,
)
from hub.games.kalah.rules import KalahState, Move, new_game, random_layout

HANDSHAKE_SECONDS = 30.0
"""How long a client has to answer ``INFO`` with ``READY``."""
RECORDS_KEPT = 1000
LINGER_SECONDS = 2.0
LINGER_BYTES = 65536


@attrs.frozen
class GameSetup:
    """One game's settings, drawn from the options and the game's own seeded generator."""

    number: int
    state: KalahState
    layout: tuple[int, ...] | None
    first_seat_first: bool
    """The first seat (the client, or the first to connect) moves first."""


def setup_game(options: GameOptions, number: int) -> GameSetup:
    seed = options.seed
    rng = random.Random(seed * 1_000_003 + number) if seed is not None else random.Random()
    layout = options.layout
    if layout is None and options.random_layout:
        layout = random_layout(options.holes, options.seeds, rng)
    first = options.first == "client" or (options.first == "random" and rng.random() < 0.5)
    state = new_game(options.holes, options.seeds, pie=options.pie, layout=layout)
    return GameSetup(number, state, layout, first)


def describe_record(number: int, names: Sequence[str], record: GameRecord) -> str:
    """One line for the server's log (names are ours or escaped: safe to print)."""
    scores = record.outcome.scores
    score = f"{scores[0]}-{scores[1]}"
    if len(record.outcome.winners) == 2:
        result = f"tie {score}"
    else:
        (winner,) = record.outcome.winners
        result = f"{names[winner]} won {score}"
    line = f"game {number}: {names[0]} (first) vs {names[1]}: {result}"
    if record.fault is not None and record.fault_seat is not None:
        line += f" ({names[record.fault_seat]}: {record.fault.value}"
        line += f"; {record.detail})" if record.detail else ")"
    return line


@attrs.define(eq=False)
class _Waiting:
    lines: LineStream
    peer: str
    watch: trio.CancelScope = attrs.Factory(trio.CancelScope)
    finished: trio.Event = attrs.Factory(trio.Event)


@attrs.define(eq=False)
class Lobby:
    """The one place that pairs clients (``--opponent client``): first come, first paired."""

    waiting: _Waiting | None = None

    def join(self, slot: _Waiting) -> _Waiting | None:
        """The partner to play with now, or None if ``slot`` must wait for one."""
        if self.waiting is None:
            self.waiting = slot
            return None
        partner, self.waiting = self.waiting, None
        return partner

    def leave(self, slot: _Waiting) -> None:
        if self.waiting is slot:
            self.waiting = None


PlayerFactory = Callable[[GameSetup], Player]


def _set_event() -> trio.Event:
    event = trio.Event()
    event.set()
    return event


async def linger(stream: trio.SocketStream) -> None:
    """Close gracefully: send EOF, then read (and drop) what the client still sends.

    Closing a socket with unread input (a client's ``OK`` to our last move) sends a reset,
    which can destroy the result line before the client reads it; so we wait (bounded in
    time and bytes) for the client to close first.
    """
    with trio.move_on_after(LINGER_SECONDS):
        try:
            await stream.send_eof()
            received = 0
            while received < LINGER_BYTES:
                data = await stream.receive_some(4096)
                if not data:
                    break
                received += len(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass


@attrs.define(eq=False)
class KalahServer:
    """The connection handler and its shared state (records, lobby, thread limiter)."""

    options: GameOptions
    out: Output = attrs.Factory(lambda: Output(1))
    limiter: trio.CapacityLimiter = attrs.Factory(lambda: trio.CapacityLimiter(2))
    keyboard: LineInput | None = None
    make_player: PlayerFactory | None = None
    """The server's own player per game (tests); default: the AI, after any --script."""
    games_limit: int | None = None
    handshake_seconds: float = HANDSHAKE_SECONDS
    records: collections.deque[tuple[int, GameRecord]] = attrs.Factory(
        lambda: collections.deque(maxlen=RECORDS_KEPT)
    )
    """The last `RECORDS_KEPT` games only (for tests): a long-running server stays bounded."""
    games_played: int = 0
    all_done: trio.Event = attrs.Factory(trio.Event)
    lobby: Lobby = attrs.Factory(Lobby)
    _numbers: itertools.count[int] = attrs.Factory(lambda: itertools.count(1))
    _human_lock: trio.Lock = attrs.Factory(trio.Lock)
    active: int = 0
    _idle: trio.Event = attrs.Factory(_set_event)

    @property
    def max_line(self) -> int:
        return max_line(self.options.holes, self.options.seeds)

    def _player(self, setup: GameSetup) -> Player:
        if self.make_player is not None:
            return self.make_player(setup)
        opts = self.options
        base: Player
        if opts.opponent == "human":
            assert self.keyboard is not None
            base = HumanPlayer(self.keyboard, self.out, ("you", "client"))
        else:
            base = AiPlayer(level=opts.level, limiter=self.limiter)
        if opts.script:
            return ScriptedPlayer(parse_script(opts.script, opts.holes), then=base)
        return base

    def _record(self, number: int, names: Sequence[str], record: GameRecord) -> None:
        self.records.append((number, record))
        self.games_played += 1
        self.out.line(describe_record(number, names, record))
        self.out.flush()
        if self.games_limit is not None and self.games_played >= self.games_limit:
            self.all_done.set()

    async def handle(self, connection: Connection) -> None:
        self.active += 1
        if self._idle.is_set():
            self._idle = trio.Event()
        try:
            await self.serve_stream(connection.lines, connection.peer)
        finally:
            await linger(connection.stream)
            self.active -= 1
            if not self.active:
                self._idle.set()

    async def wait_idle(self) -> None:
        """Until no connection is being served."""
        await self._idle.wait()

    async def serve_stream(self, lines: LineStream, peer: str) -> None:
        """Serve one client over any line stream (a socket, or a memory stream in tests)."""
        lines.ignore_send_errors = True
        if self.options.opponent == "human":
            async with self._human_lock:
                await self._play_server(lines, peer)
        elif self.options.opponent == "client":
            await self._play_pair(lines, peer)
        else:
            await self._play_server(lines, peer)

    async def _handshake(self, lines: LineStream, info: Info) -> bool:
        lines.queue_line(format_info(info))
        await lines.flush()
        with trio.move_on_after(self.handshake_seconds):
            try:
                return is_word(await lines.receive_line(self.max_line), READY)
            except LineError:
                return False
        return False

    async def _play_server(self, lines: LineStream, peer: str) -> None:
        await lines.send_line(WELCOME)
        opts = self.options
        setup = setup_game(opts, next(self._numbers))
        client_first = setup.first_seat_first
        info = Info(opts.holes, opts.seeds, opts.time_ms, client_first, setup.layout)
        if not await self._handshake(lines, info):
            return  # no READY: no game to record
        player = self._player(setup)
        remote = RemoteSeat(lines, peer, self.max_line)
        local = LocalSeat(player)
        seats: list[RemoteSeat | LocalSeat] = [remote, local] if client_first else [local, remote]
        limits = [opts.time_ms, opts.server_limit_ms]
        if not client_first:
            limits.reverse()
        observer = _TerminalObserver(self.out, client_first) if opts.opponent == "human" else None
        record = await run_game(setup.state, seats, limits, observer=observer)
        names = [seat.name for seat in seats]
        self._record(setup.number, names, record)

    async def _play_pair(self, lines: LineStream, peer: str) -> None:
        await lines.send_line(WELCOME)
        slot = _Waiting(lines, peer)
        partner = self.lobby.join(slot)
        if partner is None:
            with slot.watch:
                # Nothing may arrive before INFO: a line or EOF means it gave up.
                with contextlib.suppress(LineError):
                    await lines.receive_line(self.max_line)
                self.lobby.leave(slot)
                return
            await slot.finished.wait()  # the partner's task runs the game
            return
        partner.watch.cancel()
        try:
            await self._run_pair(partner, slot)
        finally:
            partner.finished.set()

    async def _run_pair(self, first: _Waiting, second: _Waiting) -> None:
        opts = self.options
        setup = setup_game(opts, next(self._numbers))
        pair = [first, second] if setup.first_seat_first else [second, first]
        ready = [False, False]

        async def greet(index: int) -> None:
            info = Info(opts.holes, opts.seeds, opts.time_ms, index == 0, setup.layout)
            ready[index] = await self._handshake(pair[index].lines, info)

        async with trio.open_nursery() as nursery:
            for index in (0, 1):
                nursery.start_soon(greet, index)
        seats = [RemoteSeat(c.lines, c.peer, self.max_line) for c in pair]
        if not all(ready):
            # The game did not begin; the client that answered wins (its partner left).
            for index in (0, 1):
                if ready[index]:
                    await seats[index].lines.send_line(WINNER)
            return
        record = await run_game(setup.state, seats, [opts.time_ms, opts.time_ms])
        self._record(setup.number, [seat.name for seat in seats], record)


@attrs.define(eq=False)
class _TerminalObserver:
    """Shows the person at the server what the client does (``--opponent human``)."""

    out: Output
    client_first: bool

    @property
    def names(self) -> tuple[str, str]:
        return ("client", "you") if self.client_first else ("you", "client")

    @property
    def my_seat(self) -> int:
        return 1 if self.client_first else 0

    def moved(self, seat: int, move: Move, before: KalahState, after: KalahState) -> None:
        who = "you" if seat == self.my_seat else "the client"
        self.out.line(f"{who} {describe_move(move)}")
        if not after.over:
            self.out.line("\n".join(draw_board(after, self.my_seat, self.names)))
        self.out.flush()

    def ended(self, record: GameRecord) -> None:
        mine = record.result_word(self.my_seat)
        self.out.line("\n".join(draw_board(record.state, self.my_seat, self.names)))
        self.out.line(f"game over: {mine} for you")
        self.out.flush()


async def serve(
    options: GameOptions,
    port: str | int = 0,
    *,
    host: str | None = "localhost",
    max_connections: int = 256,
    games: int | None = None,
    out: Output | None = None,
    err: Output | None = None,
    keyboard: LineInput | None = None,
    make_player: PlayerFactory | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve until cancelled (or ``games`` games are over); reports the port via task_status."""
    err = err if err is not None else Output(2)
    try:
        listeners = await open_listeners(port, host)
    except ListenError as exc:
        err.line(f"hub serve kalah: can't listen on port {str(port)!r}: {exc}")
        err.flush()
        return 1
    server = KalahServer(
        options,
        out=out if out is not None else Output(1),
        keyboard=keyboard,
        make_player=make_player,
        games_limit=games,
    )
    number = bound_port(listeners)
    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(
                server.handle,
                listeners,
                max_connections=max_connections,
                max_line=server.max_line,
                task_status=task_status,
            )
        )
        err.line(str(number))
        err.flush()
        task_status.started(number)
        await server.all_done.wait()
        with trio.move_on_after(LINGER_SECONDS + 1):
            await server.wait_idle()  # let the last clients read their results
        nursery.cancel_scope.cancel()
    return 0


def main(argv: Sequence[str]) -> int:
    err = Output(2)
    try:
        options = parse_serve(argv)
    except OptionsError as exc:
        err.line(SERVE_USAGE)
        err.line(f"hub serve kalah: {exc}")
        err.flush()
        return 2

    async def run() -> int:
        async with contextlib.AsyncExitStack() as stack:
            keyboard = None
            if options.game.opponent == "human":  # only a person at the server reads stdin
                keyboard = await stack.enter_async_context(open_line_input())
            return await serve(
                options.game,
                options.port,
                host=options.host,
                max_connections=options.max_connections,
                games=options.games,
                keyboard=keyboard,
            )

    return run_program(run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
