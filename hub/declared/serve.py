"""``hub serve GAME`` for every declared game: a TCP lobby speaking the JSON bot protocol.

Each client is welcomed and answers with a hello (docs/bots.md). Its ``opponent`` decides
its game: ``any`` (the default) pairs it with the clients that arrive next, in order of
arrival (the first to arrive takes the first seat); ``ai:N`` or ``random`` starts a game at
once against a built-in player. After its game ends a client may say hello again to play
another, or leave. Games have the clocks of ``--tc``; the server's limits (connections, line
length, idle clients, output per client) are the core's `ServerLimits`; it binds to
127.0.0.1 unless told otherwise, prints its port on stderr, records every game and, with
``--web``, serves the web board.
"""

from __future__ import annotations

import argparse
import logging
import random
from collections.abc import Sequence
from typing import Any

import attrs
import trio

from hub.core.bus import EventBus
from hub.core.clock import TimeControl
from hub.core.game import Game
from hub.core.identity import remote_identity
from hub.core.jsonbot import MAX_LINE, OPPONENTS_ANY, BadHello, Hello, dumps
from hub.core.lines import LineError
from hub.core.match import Match, Seat
from hub.core.output import Output
from hub.core.running import run_program
from hub.core.seats import LineSeat
from hub.core.serve import (
    Connection,
    ListenError,
    add_limit_options,
    add_log_options,
    bound_port,
    configure_logging,
    fit_open_files,
    limits_from_args,
    log_games,
    log_level_from_args,
    open_listeners,
    serve_lines,
)
from hub.core.usage import Parser
from hub.core.values import PlayerInfo
from hub.declared.options import (
    add_game_options,
    add_time_control,
    read_command_line,
    settings_from,
    time_control,
)
from hub.declared.seats import SeatSpecError, handshake, parse_seat
from hub.records.options import add_record_options, record_path
from hub.web.options import add_web_option

log = logging.getLogger("hub.declared.serve")
DEFAULT_TC = "60+1"


def parser_for(game: type[Game[Any, Any]]) -> Parser:
    parser = Parser(
        f"hub serve {game.name}",
        usage=f"hub serve {game.name} [OPTIONS]",
        description=f"{game.summary}. Serve {game.name} over TCP to clients speaking the "
        "JSON bot protocol (docs/bots.md): each client's hello asks for a partner (the next "
        "client to arrive) or a built-in player (ai:N, random).",
    )
    parser.add_argument(
        "--port", default="0", help="the port to listen on (default 0: any free port)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    )
    add_game_options(parser, game)
    add_time_control(parser, DEFAULT_TC)
    add_limit_options(parser)
    add_log_options(parser)
    add_web_option(parser)
    add_record_options(parser)
    return parser


def main(game_class: type[Game[Any, Any]], args: Sequence[str]) -> int:
    def build(options: argparse.Namespace) -> tuple[Any, ...]:
        game = game_class(settings_from(options, game_class))
        return game, time_control(options.tc), options

    parsed = read_command_line(parser_for(game_class), args, build)
    if isinstance(parsed, int):
        return parsed
    game, control, options = parsed
    configure_logging(game.name, log_level_from_args(options))
    status: int = run_program(serve, game, control, options)
    return status


@attrs.define(eq=False)
class Waiting:
    """A client waiting in the lobby for partners: told its game is over by ``done``."""

    connection: Connection
    hello: Hello
    done: trio.Event = attrs.Factory(trio.Event)


@attrs.define(eq=False)
class Lobby:
    """The one place where clients are paired, in order of arrival, and games are played."""

    game: Game[Any, Any]
    control: TimeControl
    events: EventBus
    waiting: list[Waiting] = attrs.Factory(list)
    games: int = 0

    async def handle(self, connection: Connection) -> None:
        lines = connection.lines
        welcome = True  # once a connection (docs/bots.md): later hellos follow an end
        while True:
            try:
                hello = await handshake(lines, self.game.name, welcome=welcome)
                welcome = False
            except BadHello as exc:
                await lines.send_line(dumps({"type": "error", "error": str(exc)}))
                return
            except LineError:
                return
            connection.busy = lambda: True
            try:
                await self._one_game(connection, hello)
            finally:
                connection.busy = lambda: False

    async def _one_game(self, connection: Connection, hello: Hello) -> None:
        opponent = hello.opponent
        if opponent != OPPONENTS_ANY:
            try:
                spec = parse_seat(opponent, type(self.game))
                if spec.kind not in ("ai", "random"):
                    raise SeatSpecError(f"{opponent!r}: ask for any, random or ai:N")
            except SeatSpecError as exc:
                await connection.lines.send_line(dumps({"type": "error", "error": str(exc)}))
                return
            from hub.declared.seats import SeatMaker

            maker = SeatMaker(self.game, random.randrange(2**31))
            async with maker.seats([spec]) as (built,):
                await self._play([self._seat(connection, hello), built])
            return
        me = Waiting(connection, hello)
        self.waiting.append(me)
        needed = self.game.players[0]
        if len(self.waiting) < needed:
            await me.done.wait()
            return
        table, self.waiting = self.waiting[:needed], self.waiting[needed:]
        try:
            await self._play([self._seat(w.connection, w.hello) for w in table])
        finally:
            for waiting in table:
                waiting.done.set()

    def _seat(self, connection: Connection, hello: Hello) -> Seat[Any, Any]:
        from hub.core.jsonbot import JsonCodec

        player = PlayerInfo(hello.name, "remote", "tcp", remote_identity(hello.name))
        return LineSeat(connection.lines, JsonCodec(self.game), player)

    async def _play(self, seats: list[Seat[Any, Any]]) -> None:
        self.games += 1
        match = Match(
            self.game,
            self.game.start(random.Random()),
            seats,
            notation=self.game,
            events=self.events,
            time_control=self.control,
            settings=self.game.settings,
        )
        await match.run()


async def serve(
    game: Game[Any, Any],
    control: TimeControl,
    options: argparse.Namespace,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> int:
    prog = f"hub serve {game.name}"
    err = Output(2)
    try:
        listeners = await open_listeners(options.port, options.host)
    except ListenError as exc:
        err.line(f"{prog}: can't listen on port {options.port}: {exc}")
        err.flush()
        return 1
    events = EventBus()
    lobby = Lobby(game, control, events)
    limits = fit_open_files(limits_from_args(options))
    from hub.records.recording import start_recording

    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve_lines(
                lobby.handle, listeners, limits=limits, max_line=MAX_LINE, task_status=task_status
            )
        )
        port = bound_port(listeners)
        err.line(str(port))
        err.flush()
        await start_recording(nursery, events, record_path(options), prog=prog)
        stop_log = log_games(events, logging.getLogger(f"hub.games.{game.name}"))
        try:
            if options.web is not None:
                from hub.web.server import start_web

                if await start_web(nursery, events, options.web, err=err, prog=prog) is None:
                    nursery.cancel_scope.cancel()
                    return 1
            task_status.started(port)
            await trio.sleep_forever()
        finally:
            stop_log()
    return 0
