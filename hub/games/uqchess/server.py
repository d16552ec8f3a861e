"""``uqchessserver`` / ``hub serve uqchess``: the UQChess server (shared/specs/uqchess.md).

Layers:

* `parse_args` (pure): the command line, or None for the usage error (exit 8).
* `new_lobby`, `colours` (pure): matchmaking by colour on core's `hub.core.lobby.Lobby`,
  the one place that decides pairings (compatible requests, first connected first).
* `ChessService`: the server's behaviour over `Player` handles. It holds the lobby and the
  games, each a core `hub.core.match.Match` between two seats run in the service's nursery
  and publishing to its `EventBus`: a `ClientSeat` (a `FedSeat` that the client's ``move``
  feeds, whose hooks send ``ok``/``moved``/``check``/``gameover``) per client and a
  `ComputerSeat` (the engine's best move) for the computer. Resigning and leaving are
  `Match.stop`, at any time. It talks to the engine through the small `Engine` interface
  (an `EnginePool`, or a fake in tests); only a hint or a computer move waits for it, so
  replies that need no engine (a move between humans, ``board``, errors) never wait behind
  a search; the board is rendered locally, byte-identical to Stockfish 15.1's ``d``.
* `Outbox` (`hub.core.outbox`, each connection's, from `hub.core.serve`): one writer task
  per client, so that several tasks (the client's own, its opponent's) can send to it
  without interleaving; bounded (``--max-output``), and a client that stops reading until
  the bound is reached is disconnected instead of stalling its opponent. A client that
  is neither in a game nor waiting for one is dropped after ``--idle-timeout`` of silence.
* `serve`: the socket adapter on `hub.core.serve.serve_lines`, and `main`.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import logging
import pathlib
import signal
import sys
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import NoReturn, Protocol

import attrs
import trio

from hub.chess.engine_client import (
    ENGINE_ENV,
    EnginePool,
    EngineStartError,
    EngineTerminated,
    find_engine,
)
from hub.chess.game import ChessGame
from hub.chess.notation import ChessNotation
from hub.chess.rules import (
    BLACK_SEAT,
    WHITE_SEAT,
    ChessReferee,
    ChessState,
    Ending,
    position_command,
    render_board,
)
from hub.core.bus import EventBus
from hub.core.identity import remote_identity
from hub.core.lines import LineError, LineStream, LineTooLong, iter_lines
from hub.core.lobby import Lobby, Waiting
from hub.core.match import BaseSeat, Match, MatchResult, Moved, Seat, Turn
from hub.core.output import Output
from hub.core.programs import which_program
from hub.core.referee import IllegalMove, Termination
from hub.core.running import run_program
from hub.core.seats import FedSeat
from hub.core.serve import (
    FD_RESERVE,
    LIMIT_OPTIONS,
    LOG_LEVELS,
    UNKNOWN_PEER,
    Connection,
    ListenError,
    ServerLimits,
    ServerStats,
    add_limit_options,
    add_log_options,
    bound_port,
    configure_logging,
    fit_open_files,
    freeze_start_up,
    limits_from_values,
    log_games,
    open_listeners,
)
from hub.core.serve import serve_lines as _serve_lines
from hub.core.stdin import ensure_standard_fds
from hub.core.text import parse_whole_number, wants_help
from hub.core.usage import (
    Parser,
    flag_options,
    help_text,
    show_help,
    value_options,
)
from hub.core.values import JSON, PlayerInfo
from hub.games.uqchess import protocol as p
from hub.records.options import add_record_options, record_path
from hub.records.recording import environment_record_path, open_recording, report
from hub.web.options import ENVIRONMENT as WEB_ENVIRONMENT
from hub.web.options import add_web_option, web_address, web_from_environment

PROGRAM = "uqchessserver"
USAGE = "Usage: ./uqchessserver [--listenOn portno]"
EXIT_USAGE = 8
EXIT_LISTEN = 20
EXIT_ENGINE_START = 4
EXIT_ENGINE_DIED = 7
MAX_LINE = 1024
"""Longest client line accepted; a longer one is answered with ``error command``."""
DRAIN_TIMEOUT = 2.0
MAX_ENGINES = 64


# -- command line --------------------------------------------------------------------------


@attrs.frozen
class ServerOptions:
    port: str = "0"
    engines: int = 1
    web: tuple[str, int] | None = None
    """Where to serve the live web view (``hub serve uqchess --web``, or ``$HUB_WEB``)."""
    record: pathlib.Path | None = None
    """The records database every finished game goes to (``hub serve uqchess``: ``--db PATH``,
    by default hub.records' default, None with ``--no-record``; ``uqchessserver``: ``$HUB_DB``,
    None when unset)."""
    limits: ServerLimits = attrs.Factory(ServerLimits)
    """``hub serve uqchess``'s ``--max-connections`` ...; ``uqchessserver`` uses the defaults."""
    log_level: str | None = None
    """``hub serve uqchess``: ``warning`` unless ``--log-level``/``--verbose`` say more;
    ``uqchessserver``: None, nothing is logged (its spec fixes what it prints)."""


def help_parser(*, hub_options: bool = False) -> Parser:
    """The ``--help`` of ``uqchessserver`` (``hub serve uqchess`` with ``hub_options``): it
    lists the options `parse_args` takes (which keeps the spec's usage error, exit 8)."""
    parser = Parser(
        "hub serve uqchess" if hub_options else PROGRAM,
        description="Serve networked chess on localhost (docs/uqchess.md): each client of "
        "uqchessclient's protocol plays the computer (Stockfish) or another client. The port "
        "is printed on stderr once listening. Wrong usage prints the spec's usage line and "
        "exits 8; --help works as the only argument.",
        epilog=f"Environment: {ENGINE_ENV}='PROGRAM ARGS' is the engine (default: stockfish on "
        "PATH, else /usr/games/stockfish"
        + (
            ", else our own engine, hub engine)."
            if hub_options
            else f"); {WEB_ENVIRONMENT}=[HOST:]PORT serves the live web view and "
            "HUB_DB=PATH records the games (default: neither)."
        ),
    )
    parser.add_argument(
        "--listenOn",
        metavar="portno",
        help="the port number or service name to listen on; 0: any free port (default: 0)",
    )
    parser.add_argument(
        "--engines",
        metavar="N",
        help=f"chess engines shared by the games, 1..{MAX_ENGINES} (default: 1)",
    )
    if hub_options:
        add_web_option(parser)
        add_record_options(parser)
        add_limit_options(parser)
        add_log_options(parser)
    return parser


def parse_args(args: Sequence[str], *, hub_options: bool = False) -> ServerOptions | None:
    """``[--listenOn portno] [--engines N]``, each at most once with a non-empty value;
    ``hub serve uqchess`` (``hub_options``) also takes ``--web [HOST:]PORT``, ``--db PATH``,
    ``--no-record``, the limits (`hub.core.serve.LIMIT_OPTIONS`), ``--log-level LEVEL`` and
    ``-v``/``--verbose``. Only the options `help_parser` lists are known."""
    parser = help_parser(hub_options=hub_options)
    flags, allowed = flag_options(parser), value_options(parser)
    values: dict[str, str] = {}
    given: set[str] = set()
    rest = list(args)
    while rest:
        option = rest.pop(0)
        if option in flags and option not in given:
            given.add(option)
            continue
        if option not in allowed or option in values or not rest:
            return None
        value = rest.pop(0)
        if not value:
            return None
        values[option] = value
    engines = 1
    if "--engines" in values:
        count = parse_whole_number(values["--engines"], max_digits=3)
        if count is None or not 1 <= count <= MAX_ENGINES:
            return None
        engines = count
    web = None
    if "--web" in values:
        try:
            web = web_address(values["--web"])
        except ValueError:
            return None
    record = None
    limits = ServerLimits()
    log_level = None
    if hub_options:
        no_record = "--no-record" in given
        record = record_path(argparse.Namespace(db=values.get("--db"), no_record=no_record))
        try:
            limits = limits_from_values({k: v for k, v in values.items() if k in LIMIT_OPTIONS})
        except ValueError:
            return None
        verbose = bool(given & {"-v", "--verbose"})
        log_level = values.get("--log-level", "info" if verbose else "warning")
        if log_level not in LOG_LEVELS:
            return None
    return ServerOptions(values.get("--listenOn", "0"), engines, web, record, limits, log_level)


# -- matchmaking ---------------------------------------------------------------------------


@attrs.frozen(eq=False)
class Seek:
    """A client waiting for a human opponent (``start human COLOUR``) in core's lobby."""

    player: Player
    choice: p.ColourChoice


def compatible(a: Seek, b: Seek) -> bool:
    """The spec's compatible requests: white+black, a colour + either, either+either."""
    return a.choice == "either" or b.choice == "either" or a.choice != b.choice


def new_lobby() -> Lobby[Seek]:
    """Pairs compatible requests, the waiting client that connected first first."""
    return Lobby(2, fits=compatible, rank=lambda seek: seek.player.number)


def colours(waiter: Seek, newcomer: Seek) -> tuple[Player, Player]:
    """(white, black) of a pair: each gets the colour it asked for; with either+either the
    client that was waiting gets white and the newcomer black."""
    theirs, mine = waiter.choice, newcomer.choice
    if theirs == "white" or (theirs == "either" and mine in ("either", "black")):
        return waiter.player, newcomer.player
    return newcomer.player, waiter.player


# -- the service ---------------------------------------------------------------------------


class Engine(Protocol):
    """What the service needs from the engine (an `EnginePool` or a test double)."""

    async def best_move(self, game: Hashable, position: str) -> str | None: ...

    async def legal_moves(self, game: Hashable, position: str) -> list[str]: ...

    def forget(self, game: Hashable) -> None: ...

    def fail(self, reason: str) -> None: ...


Send = Callable[[Sequence[str]], None]
ChessMatch = Match[ChessState, str]
SEAT_OF: dict[p.Colour, int] = {"white": WHITE_SEAT, "black": BLACK_SEAT}
SETTINGS: dict[str, JSON] = {"rules": "uqchess"}


def colour_of(seat: int) -> p.Colour:
    return "white" if seat == WHITE_SEAT else "black"


@attrs.define(eq=False)
class Player:
    """A connected client."""

    number: int
    send: Send
    game: Game | None = None
    """The current game, or the last finished one (for ``board``), or None."""
    colour: p.Colour = "white"
    seek: Waiting[Seek] | None = None
    """Its entry in the lobby while it waits for a human opponent."""
    drained: Callable[[], Awaitable[None]] | None = None
    """Waits until everything sent to the client is written (None: nothing to wait for)."""
    peer: str = UNKNOWN_PEER
    """``host:port`` of its socket (logs and records), `UNKNOWN_PEER` if none."""

    @property
    def name(self) -> str:
        """``client 3 (127.0.0.1:40000)``, as the records and logs show it."""
        return f"client {self.number}" + (f" ({self.peer})" if self.peer != UNKNOWN_PEER else "")


@attrs.define(eq=False)
class Game:
    """A game as the service sees it: its `Match` while it is played, its last position
    afterwards (``board``); the match and the seats are dropped once it is over."""

    id: int
    last: ChessState
    """The position once the game is over (the match holds it while it is played)."""
    seats: dict[p.Colour, ClientSeat | None] = attrs.Factory(dict)
    """Each colour's client seat, or None for the computer. Emptied once over."""
    match: ChessMatch | None = None
    failure: EngineTerminated | None = None
    """Set by the computer's seat when the engine died or answered no legal move."""

    @property
    def state(self) -> ChessState:
        return self.last if self.match is None else self.match.state

    @property
    def over(self) -> bool:
        return self.match is None or self.match.result is not None

    @property
    def turn(self) -> p.Colour:
        return colour_of(self.state.turn_seat)


def after_move_lines(referee: ChessReferee, moved: Moved[ChessState, str]) -> list[str]:
    """``check`` or ``gameover ...`` after a move, or nothing."""
    ending = referee.ending(moved.after)
    if ending is Ending.CHECKMATE:
        return [p.format_gameover(p.GameOverHow.CHECKMATE, colour_of(moved.seat))]
    if ending is not None:
        return [p.format_gameover(p.GameOverHow.STALEMATE)]
    if referee.in_check(moved.after):
        return [p.CHECK]
    return []


@attrs.define(eq=False)
class ClientSeat(FedSeat[ChessState, str]):
    """A client's seat: its ``move`` commands feed the loop (`FedSeat.submit`, an illegal
    move is refused and asked again) and its hooks send it what it hears of the game: ``ok``
    for its own move and ``moved X`` for the opponent's (each with ``check`` or the
    checkmate/stalemate ``gameover``), and the resignation's ``gameover`` at the end (not to a
    client that has gone)."""

    client: Player = attrs.field(kw_only=True)
    referee: ChessReferee = attrs.field(kw_only=True)

    async def observe(self, moved: Moved[ChessState, str]) -> None:
        await super().observe(moved)
        # The move as it was sent (a client's own spelling, the engine's answer), as today.
        first = p.OK if moved.seat == self.seat else p.format_moved(moved.move)
        self.client.send([first, *after_move_lines(self.referee, moved)])

    async def end(self, result: MatchResult[ChessState, str]) -> None:
        fault = result.fault
        if fault is None or fault.seat is None:
            return  # checkmate or stalemate (told with the move), or an abort
        if fault.termination is Termination.DISCONNECT and fault.seat == self.seat:
            return  # the client has gone
        if fault.termination in (Termination.RESIGNATION, Termination.DISCONNECT):
            winner = p.other(colour_of(fault.seat))
            self.client.send([p.format_gameover(p.GameOverHow.RESIGNATION, winner)])


@attrs.define(eq=False)
class ComputerSeat(BaseSeat[ChessState, str]):
    """The computer: the engine's best move. An engine that dies, finds no move or answers
    an illegal one is the server's failure (`EngineTerminated`, exit 7), not a lost game:
    it is kept on the game and raised out of the match."""

    engine: Engine
    game: Game
    player: PlayerInfo = attrs.field(factory=lambda: PlayerInfo("computer", "engine"))

    async def choose(self, turn: Turn[ChessState]) -> str:
        try:
            move = await self.engine.best_move(self.game.id, position_command(turn.state))
        except EngineTerminated as exc:
            self.game.failure = exc
            raise
        if move is None:
            self._fail(move, "the engine found no move")
        return move

    async def rejected(self, turn: Turn[ChessState], move: str, error: IllegalMove) -> bool:
        self._fail(move, str(error))

    def _fail(self, move: str | None, why: str) -> NoReturn:
        self.engine.fail(f"the engine answered {move!r}: {why}")
        self.game.failure = EngineTerminated(why)
        raise self.game.failure


class ChessService:
    """Every game of a server; one method per thing a client can send or do.

    Each game is a `Match` run in ``nursery`` (publishing to ``events``) between two seats:
    a `ClientSeat` per client and a `ComputerSeat` for the computer. Commands that wait for
    the game (``start``, ``move``, ``resign``) return once the loop rests again, so their
    replies (and the computer's answer) are all sent when they return.
    """

    def __init__(
        self,
        engine: Engine,
        nursery: trio.Nursery,
        referee: ChessReferee | None = None,
        events: EventBus | None = None,
    ) -> None:
        self.engine = engine
        # The computer is the engine (``uci:ID NAME``); a test double has no identity.
        identity = engine.identity if isinstance(engine, EnginePool) else ""
        self.computer = PlayerInfo("computer", "engine", "", identity)
        self.nursery = nursery
        self.referee = referee or ChessReferee(automatic_draws=False)
        self.events = EventBus() if events is None else events
        self.notation = ChessNotation()
        self.chess = ChessGame(rules=self.referee)
        """The game every match plays (the spec's rules: no automatic draws)."""
        self.lobby = new_lobby()
        self.players: dict[int, Player] = {}
        self.failed = False
        self._numbers = itertools.count(1)
        self._game_ids = itertools.count(1)

    # -- connections ----------------------------------------------------------------------

    def connect(
        self,
        send: Send,
        number: int | None = None,
        drained: Callable[[], Awaitable[None]] | None = None,
        peer: str = UNKNOWN_PEER,
    ) -> Player:
        number = next(self._numbers) if number is None else number
        player = Player(number, send, drained=drained, peer=peer)
        self.players[player.number] = player
        return player

    def busy(self, player: Player) -> bool:
        """Whether ``player`` is in a game or waiting for an opponent (not idle)."""
        return player.seek is not None or self._in_progress(player) is not None

    async def disconnect(self, player: Player) -> None:
        """EOF or a failed write: the client resigns its game and is forgotten."""
        if self.players.pop(player.number, None) is None:
            return
        self._leave_lobby(player)
        if self.failed:
            return  # the server is exiting: the clients have had `error engine`
        await self._resign(player, Termination.DISCONNECT)
        player.game = None

    def engine_failed(self) -> None:
        """The engine died: ``error engine`` to every connected client; no more replies."""
        self.failed = True
        for player in list(self.players.values()):
            player.send([p.format_error(p.ErrorReason.ENGINE)])

    # -- commands -------------------------------------------------------------------------

    async def handle(self, player: Player, line: str) -> None:
        """Answer one line from ``player``. Raises `EngineTerminated` if the engine died."""
        if self.failed:
            raise EngineTerminated("the engine has died")
        command = p.parse_command(line)
        match command:
            case None:
                player.send([p.format_error(p.ErrorReason.COMMAND)])
            case p.Start(against, colour):
                await self.start(player, against, colour)
            case p.BoardRequest():
                self.board(player)
            case p.Hint(all=every):
                await self.hint(player, every)
            case p.MoveRequest(move):
                await self.move(player, move)
            case p.Resign():
                await self.resign(player)

    def _in_progress(self, player: Player) -> Game | None:
        game = player.game
        if game is None or game.over:
            return None
        return game

    def _error(self, player: Player, reason: p.ErrorReason) -> None:
        player.send([p.format_error(reason)])

    async def start(self, player: Player, against: p.Against, choice: p.ColourChoice) -> None:
        await self._resign(player, Termination.RESIGNATION)
        self._leave_lobby(player)
        player.game = None
        if against == "computer":
            colour: p.Colour = "black" if choice == "black" else "white"
            game = self._new_game({colour: player, p.other(colour): None})
        else:
            player.seek = Waiting(Seek(player, choice))
            table = self.lobby.join(player.seek)
            if table is None:
                return
            waiter, newcomer = table.items
            waiter.player.seek = newcomer.player.seek = None
            white, black = colours(waiter, newcomer)
            game = self._new_game({"white": white, "black": black})
        await self._settle(game)  # the computer's first move, if it has white

    def _leave_lobby(self, player: Player) -> None:
        if player.seek is not None:
            self.lobby.leave(player.seek)
            player.seek = None

    def _new_game(self, clients: dict[p.Colour, Player | None]) -> Game:
        """A game's `Match`, started in the service's nursery; ``started`` sent to each
        client at once (so a resignation before the loop's first step still follows it)."""
        game = Game(next(self._game_ids), self.referee.initial())
        seats: list[Seat[ChessState, str]] = []
        for colour in p.COLOURS:
            client = clients[colour]
            if client is None:
                game.seats[colour] = None
                seats.append(ComputerSeat(self.engine, game, player=self.computer))
                continue
            seat = ClientSeat(
                # The protocol has no name for a client: its identity is anonymous.
                player=PlayerInfo(client.name, "remote", "", remote_identity()),
                seat=SEAT_OF[colour],
                client=client,
                referee=self.referee,
            )
            game.seats[colour] = seat
            seats.append(seat)
            client.game = game
            client.colour = colour
        game.match = Match(
            self.chess,
            game.last,
            seats,
            events=self.events,
            settings=SETTINGS,
        )
        for colour in p.COLOURS:
            if (client := clients[colour]) is not None:
                client.send([p.format_started(colour)])
        self.nursery.start_soon(self._play, game, game.match)
        return game

    async def _play(self, game: Game, match: ChessMatch) -> None:
        try:
            await match.run()
        except EngineTerminated:
            pass  # kept on the game for the waiting command; the engine pool reports it
        finally:
            game.last = match.state
            game.match = None
            game.seats = {}
            self.engine.forget(game.id)

    async def _settle(self, game: Game) -> None:
        """Wait until ``game``'s loop rests (a client's turn, or over); raise
        `EngineTerminated` if the engine failed meanwhile."""
        if game.match is not None:
            await game.match.settle()
        if game.failure is not None:
            raise EngineTerminated(str(game.failure)) from game.failure

    def board(self, player: Player) -> None:
        if player.game is None:
            self._error(player, p.ErrorReason.GAME)
            return
        player.send(p.format_board(render_board(player.game.state)))

    def _check_turn(self, player: Player) -> Game | None:
        game = self._in_progress(player)
        if game is None:
            self._error(player, p.ErrorReason.GAME)
            return None
        if game.turn != player.colour:
            self._error(player, p.ErrorReason.TURN)
            return None
        return game

    async def hint(self, player: Player, every: bool) -> None:
        game = self._check_turn(player)
        if game is None:
            return
        position = position_command(game.state)
        if every:
            moves = await self.engine.legal_moves(game.id, position)
        else:
            best = await self.engine.best_move(game.id, position)
            moves = [] if best is None else [best]
        if game.over:
            # The game ended while the engine worked on it (the opponent resigned or left):
            # forget it again, since the engine has just seen it (nothing kept per game).
            self.engine.forget(game.id)
        player.send([p.format_moves(moves)])

    async def move(self, player: Player, text: str) -> None:
        """Feed the move to the client's seat; its hooks send ``ok`` and tell the opponent,
        and this returns after the computer's reply (the loop rests again)."""
        game = self._check_turn(player)
        if game is None:
            return
        seat = game.seats[player.colour]
        assert seat is not None
        await self._settle(game)  # the loop has begun and asks for this move
        verdict = await seat.submit(text)
        if not verdict.accepted:
            self._error(player, p.ErrorReason.GAME if verdict.over else p.ErrorReason.MOVE)
        await self._settle(game)

    async def resign(self, player: Player) -> None:
        if self._in_progress(player) is None:
            self._error(player, p.ErrorReason.GAME)
            return
        await self._resign(player, Termination.RESIGNATION)

    async def _resign(self, player: Player, termination: Termination) -> None:
        """Stop ``player``'s game, if any, as lost by ``termination``; the seats' ``end``
        hooks send the ``gameover`` lines. Returns once the game is over."""
        game = self._in_progress(player)
        if game is None or game.match is None:
            return
        match = game.match
        match.stop(SEAT_OF[player.colour], termination)
        await match.wait_finished()


# -- sockets -------------------------------------------------------------------------------


async def _read_commands(service: ChessService, player: Player, lines: LineStream) -> None:
    """Answer each line in turn until EOF (a broken transport raises `TransportFailed`)."""
    async for line in iter_lines(lines):
        # An over-long line is not a command: error command.
        await service.handle(player, "\n" if isinstance(line, LineTooLong) else line)


async def handle_connection(service: ChessService, connection: Connection) -> None:
    """One client: its commands in order, its replies through the connection's outbox (so
    that its opponent's moves reach it whatever it is doing); busy for the idle timeout
    while it plays or waits for an opponent."""
    outbox = connection.outbox
    player = service.connect(outbox.send, connection.number, outbox.drained, connection.peer)
    connection.busy = functools.partial(service.busy, player)
    try:
        try:
            await _read_commands(service, player, connection.lines)
        except LineError:
            pass  # EOF or a broken connection: the client has gone
        except EngineTerminated:
            await trio.sleep_forever()  # the server reports it to everyone and exits
        finally:
            with trio.CancelScope(shield=True):
                await service.disconnect(player)  # resigns at once
                if not service.failed:
                    with trio.move_on_after(DRAIN_TIMEOUT):
                        await outbox.drained()
    finally:
        with trio.CancelScope(shield=True):
            await service.disconnect(player)


def server_limits(limits: ServerLimits) -> ServerLimits:
    """``limits`` with as many connections as the open-file limit allows beside the engines
    (raised to the hard limit first)."""
    return fit_open_files(limits, reserve=FD_RESERVE + MAX_ENGINES * 3)


async def serve(
    listeners: Sequence[trio.SocketListener],
    pool: EnginePool,
    *,
    stats: ServerStats | None = None,
    events: EventBus | None = None,
    limits: ServerLimits | None = None,
    task_status: trio.TaskStatus[ChessService] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve until cancelled (returns 0) or until an engine dies (returns 7), within
    ``limits`` (default: `ServerLimits`' defaults, lines of at most `MAX_LINE` bytes).

    ``pool`` must be started (`EnginePool.start`) but not running: this runs it.
    """
    async with trio.open_nursery() as nursery:
        service = ChessService(pool, nursery, events=events)

        async def run_engines(task_status: trio.TaskStatus[None]) -> None:
            try:
                await pool.run(task_status=task_status)
            except EngineTerminated:
                service.engine_failed()
                with trio.move_on_after(DRAIN_TIMEOUT):
                    await _drain_everyone(service)
                nursery.cancel_scope.cancel()

        async def handler(connection: Connection) -> None:
            await handle_connection(service, connection)

        await nursery.start(run_engines)
        await nursery.start(
            functools.partial(
                _serve_lines,
                handler,
                listeners,
                limits=server_limits(limits if limits is not None else ServerLimits()),
                max_line=MAX_LINE,
                stats=stats,
            )
        )
        task_status.started(service)
    return EXIT_ENGINE_DIED if service.failed else 0


async def _drain_everyone(service: ChessService) -> None:
    async with trio.open_nursery() as nursery:
        for player in list(service.players.values()):
            if player.drained is not None:
                nursery.start_soon(player.drained)


def builtin_engine() -> list[str] | None:
    """``hub engine`` (a plug-in's UCI engine tool), if one is installed."""
    from hub.core.plugin import discover

    if not any("engine" in plugin.tools for plugin in discover().values()):
        return None
    hub = which_program("hub")
    return None if hub is None else [hub, "engine"]


async def _main(options: ServerOptions, err: Output, fallback: bool) -> int:
    try:
        listeners = await open_listeners(options.port)
    except ListenError as exc:
        err.line(f'{PROGRAM}: can\'t start listening on port "{options.port}"')
        if fallback:  # hub serve uqchess: why, and what to do (the spec fixes only line 1)
            err.line(f"{PROGRAM}: {exc}; {exc.hint}" if exc.hint else f"{PROGRAM}: {exc}")
        return EXIT_LISTEN
    try:
        argv = find_engine()
        if argv is None and fallback and (argv := builtin_engine()) is not None:
            err.line(f"{PROGRAM}: no Stockfish found, using the built-in engine (hub engine)")
            err.flush()
        if argv is None:
            raise EngineStartError("no engine found")
        pool = await EnginePool.start(argv, options.engines)
    except EngineStartError:
        for listener in listeners:
            await listener.aclose()
        err.line(f"{PROGRAM}: cannot start communication with chess engine")
        return EXIT_ENGINE_START
    try:
        status = await _serve_watched(listeners, pool, options, err, strict=fallback)
    finally:  # the pool reaps its engines once it runs; a Ctrl-C may come before it does
        with trio.CancelScope(shield=True):
            for engine in pool.engines:
                await engine.stop()
    if status == EXIT_ENGINE_DIED:
        err.line(f"{PROGRAM}: chess engine exited unexpectedly")
    return status


async def _serve_watched(
    listeners: Sequence[trio.SocketListener],
    pool: EnginePool,
    options: ServerOptions,
    err: Output,
    *,
    strict: bool,
) -> int:
    """Print the port and `serve` with what watches its games: the web view (``options.web``,
    live games and those saved in the records database; its URL goes on stderr after the
    port) and the records database (``options.record``, opened before the port is printed;
    one line on stderr after the port and the URL if it cannot be, and the server goes on
    without it). A web port that cannot be bound is exit 1 for ``hub serve uqchess``
    (``strict``) and only a warning for ``uqchessserver`` with ``$HUB_WEB``, whose exit
    statuses a spec fixes."""
    events = EventBus()
    async with trio.open_nursery() as nursery:
        problem = await open_recording(nursery, events, options.record, prog=PROGRAM)
        err.line(str(bound_port(listeners)))
        err.flush()
        if options.web is not None:
            from hub.web.records import RecordsReader
            from hub.web.server import start_web  # only the web view needs the web stack

            started = await start_web(
                nursery,
                events,
                options.web,
                err=err,
                prog=PROGRAM,
                records=RecordsReader.of(options.record),
            )
            if started is None and strict:
                for listener in listeners:
                    await listener.aclose()
                for engine in pool.engines:
                    await engine.stop()
                nursery.cancel_scope.cancel()
                return 1
        err.flush()  # before the records' line, if any
        report(problem)
        stop_log = log_games(events, logging.getLogger("hub.games.uqchess"))
        try:
            status = await serve(listeners, pool, events=events, limits=options.limits)
        finally:
            stop_log()
        nursery.cancel_scope.cancel()
    return status


def main(argv: Sequence[str] | None = None, *, fallback: bool = False) -> int:
    """The ``uqchessserver`` console script; ``hub serve uqchess`` with ``fallback=True``
    (when no Stockfish is found, use ``hub engine`` instead of exiting 4)."""
    args = list(sys.argv[1:] if argv is None else argv)
    err = Output(2)
    if wants_help(args):
        return show_help(help_text(help_parser(hub_options=fallback)))
    options = parse_args(args, hub_options=fallback)
    if options is None:
        err.line(USAGE)
        err.flush()
        return EXIT_USAGE
    if options.web is None:
        try:
            options = attrs.evolve(options, web=web_from_environment())
        except ValueError as exc:
            err.line(f"{PROGRAM}: ignoring ${WEB_ENVIRONMENT}: {exc}")
    if not fallback:  # uqchessserver records only when asked
        options = attrs.evolve(options, record=environment_record_path())
    if not fallback:  # uqchessserver dies of SIGINT like the original, which ignores it
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    ensure_standard_fds()
    configure_logging("uqchess", options.log_level)  # uqchessserver: None, silent
    freeze_start_up()
    try:
        if fallback:  # hub serve uqchess, our own command: exit 130/143, engines reaped
            return run_program(_main, options, err, fallback)
        return trio.run(_main, options, err, fallback)
    finally:
        err.flush()


if __name__ == "__main__":
    sys.exit(main())
