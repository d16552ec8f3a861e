"""``hub serve kalah``: many clients at once against the server's AI, a person, or each other.

Each connection gets ``WELCOME`` at once. With ``--opponent ai`` (the default) it then gets
``INFO`` and plays the AI; with ``--opponent client`` core's `hub.core.io.lobby.Lobby` pairs
connections two by two (the one waiting is watched, so a client that leaves before it is
paired is dropped instead of handed to the next one as a ghost) and both get ``INFO`` once
paired; with ``--opponent human`` the person at the terminal plays one client at a time,
the others waiting in line (before ``WELCOME``). Every game is a `hub.core.play.match.Match` built
by `hub.games.kalah.seats.new_match`: a client is a `LineSeat` speaking `KalahCodec`, the
server's own player (the AI in a worker thread, a script, the person) a local seat of
`hub.games.kalah.players`. The
games publish their events on `KalahServer.events`; the person at the server sees the game
through a listener of them.

The port goes to stderr as a number on its own line once the server listens; one line per
finished game goes to stdout. Nothing a client sends can produce a traceback: its lines
are bounded (`hub.games.kalah.protocol.max_line`), checked, and only shown escaped.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import logging
import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs
import trio

from hub.core.commands.running import run_program
from hub.core.commands.usage import HelpRequested, hint, show_help
from hub.core.io.limits import ServerLimits, fit_open_files, freeze_start_up
from hub.core.io.lines import LineError, LineStream
from hub.core.io.listen import ListenError, bound_port, open_listeners
from hub.core.io.lobby import Lobby, Waiting
from hub.core.io.output import Output
from hub.core.io.serve import LINGER_SECONDS, Connection, linger, serve_lines
from hub.core.io.serverlog import configure_logging, log_games
from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord
from hub.core.model.identity import remote_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.person import Keys, open_keyboard
from hub.games.kalah.codec import FAULT_WORDS, result_word
from hub.games.kalah.console import describe_move
from hub.games.kalah.game import KalahGame
from hub.games.kalah.options import (
    SERVE_PROG,
    SERVER_LIMITS,
    GameOptions,
    OptionsError,
    parse_serve,
)
from hub.games.kalah.players import ai_seat, person_seat, scripted_seat
from hub.games.kalah.printer import BoardPrinter
from hub.games.kalah.protocol import WINNER, Info, max_line, parse_script
from hub.games.kalah.rules import KalahState
from hub.games.kalah.seats import KalahSeat, client_seat, greet, new_match, welcome
from hub.games.kalah.settings import KalahSettings
from hub.records.recording import open_recording, report

if TYPE_CHECKING:
    from hub.records.database import Location
    from hub.web.limits import AllowedHosts

RECORDS_KEPT = 100
"""Records kept in memory (the database has them all). Every record is some hundred objects
the cycle collector scans; with 1,000 a loaded server paused for up to 130 ms in its full
collections and games were lost on time (bench/load.py, docs/reliability.md)."""


@attrs.frozen
class GameSetup:
    """What is drawn per game (from the options' `KalahSettings` and the game's own seeded
    generator): its number, its layout (a random one, or the settings'), who moves first,
    and the state it starts from; ``game``, the declaration that plays it. The settings
    themselves stay `KalahServer.settings`."""

    game: KalahGame
    number: int
    state: KalahState
    layout: tuple[int, ...] | None
    first_seat_first: bool
    """The first seat (the client, or the first to connect) moves first."""


def setup_game(options: GameOptions, number: int) -> GameSetup:
    seed = options.seed
    rng = random.Random(seed * 1_000_003 + number) if seed is not None else random.Random()
    settings = options.settings
    layout = settings.layout_for(rng)
    first = options.first == "client" or (options.first == "random" and rng.random() < 0.5)
    game = KalahGame(settings.declared(layout))
    return GameSetup(game, number, settings.new_game(layout), layout, first)


def describe_record(number: int, record: GameRecord) -> str:
    """One line for the server's log (names are ours or escaped: safe to print)."""
    names = [player.name for player in record.players]
    scores = record.scores
    score = f"{scores[0]}-{scores[1]}"
    if len(record.winners) == 2:
        result = f"tie {score}"
    elif not record.winners:
        result = f"no result {score}"
    else:
        (winner,) = record.winners
        result = f"{names[winner]} won {score}"
    line = f"game {number}: {names[0]} (first) vs {names[1]}: {result}"
    fault = record.fault
    if fault is not None:
        detail = fault.detail
        if fault.termination is Termination.ILLEGAL_MOVE and fault.move is not None:
            detail = f"{fault.move}: {detail}"
        line += f" ({names[fault.seat]}: {FAULT_WORDS[fault.termination]}"
        line += f"; {detail})" if detail else ")"
    elif record.termination is Termination.ABORTED:
        line += " (aborted)"
    return line


Client = tuple[LineStream, str]
"""A client waiting in the lobby (``--opponent client``): its lines and its peer."""


PlayerFactory = Callable[[GameSetup], KalahSeat]


def _set_event() -> trio.Event:
    event = trio.Event()
    event.set()
    return event


@attrs.define(eq=False)
class KalahServer:
    """The connection handler and its shared state (records, lobby, thread limiter)."""

    options: GameOptions
    out: Output = attrs.Factory(lambda: Output(1))
    limiter: trio.CapacityLimiter = attrs.Factory(lambda: trio.CapacityLimiter(1))
    keyboard: Keys | None = None
    events: EventBus = attrs.Factory(EventBus)
    """Every game's events (the person's view listens to its game's)."""
    make_player: PlayerFactory | None = None
    """The server's own player per game (tests); default: the AI, after any --script."""
    games_limit: int | None = None
    limits: ServerLimits = SERVER_LIMITS
    """Its ``max_line`` (None: the board's own) and ``idle_timeout`` (the deadline for
    ``READY``, None: none) are the server's; `serve` gives the rest to `serve_lines`."""
    records: collections.deque[tuple[int, GameRecord]] = attrs.Factory(
        lambda: collections.deque(maxlen=RECORDS_KEPT)
    )
    """The last `RECORDS_KEPT` games only (for tests): a long-running server stays bounded."""
    games_played: int = 0
    all_done: trio.Event = attrs.Factory(trio.Event)
    lobby: Lobby[Client] = attrs.Factory(Lobby)
    """Pairs ``--opponent client`` connections two by two, first come, first paired."""
    _numbers: itertools.count[int] = attrs.Factory(lambda: itertools.count(1))
    _human_lock: trio.Lock = attrs.Factory(trio.Lock)
    active: int = 0
    _idle: trio.Event = attrs.Factory(_set_event)

    @property
    def settings(self) -> KalahSettings:
        """The games' settings (Kalah's one settings value, `GameOptions.settings`)."""
        return self.options.settings

    @property
    def max_line(self) -> int:
        return self.limits.line_limit(max_line(self.settings.holes, self.settings.seeds))

    @property
    def handshake_seconds(self) -> float:
        timeout = self.limits.idle_timeout
        return math.inf if timeout is None else timeout

    def _player(self, setup: GameSetup) -> KalahSeat:
        if self.make_player is not None:
            return self.make_player(setup)
        opts = self.options
        base: KalahSeat
        if opts.opponent == "human":
            assert self.keyboard is not None
            base = person_seat(self.keyboard, self.out, ("you", "client"))
        else:
            base = ai_seat(opts.level, limiter=self.limiter)
        if opts.script:
            return scripted_seat(parse_script(opts.script, self.settings.holes), then=base)
        return base

    def _record(self, number: int, record: GameRecord) -> None:
        self.records.append((number, record))
        self.games_played += 1
        self.out.line(describe_record(number, record))
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
        failure = await greet(lines, info, max_line=self.max_line, timeout=self.handshake_seconds)
        return failure is None

    async def _play(
        self, setup: GameSetup, seats: list[KalahSeat], limits: list[int], view: bool = False
    ) -> None:
        """Referee one game between ``seats`` (in seat order) and record it."""
        match = new_match(
            setup.game,
            setup.state,
            seats,
            limits,
            events=self.events,
            settings=self.settings.record_json(setup.layout),
        )
        stop_view = None
        if view:
            printer = _PersonView.of(self.out, setup.first_seat_first, match.game_id)
            stop_view = self.events.listen(printer)
        try:
            result = await match.run()
        finally:
            if stop_view is not None:
                stop_view()
        self._record(setup.number, result.record)

    async def _play_server(self, lines: LineStream, peer: str) -> None:
        await welcome(lines)
        opts = self.options
        setup = setup_game(opts, next(self._numbers))
        client_first = setup.first_seat_first
        info = self.settings.info(client_first, setup.layout)
        if not await self._handshake(lines, info):
            return  # no READY: no game to record
        # Kalah's protocol has no name for a client: its identity is anonymous.
        remote = client_seat(
            lines, PlayerInfo(peer, "remote", "", remote_identity()), self.max_line
        )
        local = self._player(setup)
        seats: list[KalahSeat] = [remote, local]
        limits = [self.settings.time_ms, opts.server_limit_ms]
        if not client_first:
            seats.reverse()
            limits.reverse()
        await self._play(setup, seats, limits, view=opts.opponent == "human")

    async def _play_pair(self, lines: LineStream, peer: str) -> None:
        await welcome(lines)
        me = Waiting((lines, peer))
        table = self.lobby.join(me)
        if table is None:

            async def gone() -> None:
                # Nothing may arrive before INFO: a line or EOF means it gave up.
                with contextlib.suppress(LineError):
                    await lines.receive_line(self.max_line)

            await self.lobby.wait(me, gone)  # the partner's task runs the game
            return
        async with table.playing() as (first, second):  # never two readers of one stream
            await self._run_pair(first, second)

    async def _run_pair(self, first: Client, second: Client) -> None:
        opts = self.options
        setup = setup_game(opts, next(self._numbers))
        pair = [first, second] if setup.first_seat_first else [second, first]
        ready = [False, False]

        async def greet(index: int) -> None:
            info = self.settings.info(index == 0, setup.layout)
            ready[index] = await self._handshake(pair[index][0], info)

        async with trio.open_nursery() as nursery:
            for index in (0, 1):
                nursery.start_soon(greet, index)
        if not all(ready):
            # The game did not begin; the client that answered wins (its partner left).
            for index in (0, 1):
                if ready[index]:
                    await pair[index][0].send_line(WINNER)
            return
        seats: list[KalahSeat] = [
            client_seat(lines, PlayerInfo(peer, "remote", "", remote_identity()), self.max_line)
            for lines, peer in pair
        ]
        await self._play(setup, seats, [self.settings.time_ms] * 2)


@attrs.define(eq=False)
class _PersonView(BoardPrinter):
    """Shows the person at the server what the client does (``--opponent human``)."""

    @classmethod
    def of(cls, out: Output, client_first: bool, game_id: str) -> _PersonView:
        names = ("client", "you") if client_first else ("you", "client")
        return cls(out, names, 1 if client_first else 0, game_id=game_id)

    def move_line(self, seat: int, move: str, before: KalahState) -> str:
        who = "you" if seat == self.bottom else "the client"
        return f"{who} {describe_move(move)}"

    def result_line(self, record: GameRecord) -> str:
        if record.termination is Termination.ABORTED:
            return "game aborted"
        return f"game over: {result_word(record.winners, self.bottom)} for you"


async def serve(
    options: GameOptions,
    port: str | int = 0,
    *,
    host: str | None = "localhost",
    limits: ServerLimits = SERVER_LIMITS,
    games: int | None = None,
    out: Output | None = None,
    err: Output | None = None,
    keyboard: Keys | None = None,
    make_player: PlayerFactory | None = None,
    web: tuple[str, int] | None = None,
    record: Location | None = None,
    allowed_hosts: AllowedHosts | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve until cancelled (or ``games`` games are over); reports the port via task_status.
    ``web``: also serve the live web view of the games there (its URL on stderr), answering
    to ``allowed_hosts`` (default: its address and the loopback names).
    ``record``: write every finished game to this database (hub.records).
    ``limits``: connections, lines, output per client; the idle timeout is the deadline
    for ``READY`` (a client waiting for its partner or its turn at the terminal is not idle).
    """
    err = err if err is not None else Output(2)
    try:
        listeners = await open_listeners(port, host)
    except ListenError as exc:
        err.line(f'{SERVE_PROG}: can\'t start listening on port "{port}"')
        err.line(f"{SERVE_PROG}: {exc}; {exc.hint}" if exc.hint else f"{SERVE_PROG}: {exc}")
        err.flush()
        return 1
    server = KalahServer(
        options,
        out=out if out is not None else Output(1),
        keyboard=keyboard,
        make_player=make_player,
        games_limit=games,
        limits=fit_open_files(limits),
    )
    number = bound_port(listeners)
    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(
                server.handle,
                listeners,
                # The handshake's deadline is the idle timeout; after it, games have clocks.
                limits=attrs.evolve(server.limits, idle_timeout=None),
                max_line=server.max_line,
                task_status=task_status,
            )
        )
        # the database before the port: a signal sent once the port is out never lands
        # while the records writer is imported or the database opened
        problem = await open_recording(nursery, server.events, record, prog="hub serve kalah")
        err.line(str(number))
        err.flush()
        report(problem)
        stop_log = log_games(server.events, logging.getLogger("hub.games.kalah"))
        try:
            if web is not None and not await _start_web(
                nursery, server.events, web, err, record, allowed_hosts
            ):
                nursery.cancel_scope.cancel()
                return 1
            task_status.started(number)
            await server.all_done.wait()
            with trio.move_on_after(LINGER_SECONDS + 1):
                await server.wait_idle()  # let the last clients read their results
            nursery.cancel_scope.cancel()
        finally:
            stop_log()
    return 0


async def _start_web(
    nursery: trio.Nursery,
    events: EventBus,
    web: tuple[str, int],
    err: Output,
    record: Location | None,
    allowed_hosts: AllowedHosts | None,
) -> bool:
    """The web view (hub.web) of the server's games, live and saved in ``record``; False if
    it cannot listen."""
    from hub.web.records import RecordsReader
    from hub.web.server import start_web  # only --web needs the web stack

    records = RecordsReader.of(record)
    started = await start_web(
        nursery,
        events,
        web,
        err=err,
        prog=SERVE_PROG,
        records=records,
        allowed_hosts=allowed_hosts,
    )
    return started is not None


def main(argv: Sequence[str]) -> int:
    err = Output(2)
    try:
        options = parse_serve(argv)
    except HelpRequested as exc:
        return show_help(exc)
    except OptionsError as exc:
        err.line(hint(SERVE_PROG, str(exc)))
        err.flush()
        return 2

    configure_logging("kalah", options.log_level)
    freeze_start_up()

    async def run() -> int:
        async with contextlib.AsyncExitStack() as stack:
            keyboard = None
            if options.game.opponent == "human":  # only a person at the server reads stdin
                keyboard = await stack.enter_async_context(open_keyboard())
            return await serve(
                options.game,
                options.port,
                host=options.host,
                limits=options.limits,
                games=options.games,
                keyboard=keyboard,
                web=options.web,
                record=options.record,
                allowed_hosts=options.allowed_hosts,
            )

    return run_program(run, cancel_on_signal=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
