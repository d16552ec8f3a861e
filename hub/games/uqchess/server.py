"""``uqchessserver`` / ``hub serve uqchess``: the UQChess server (shared/specs/uqchess.md).

Layers:

* `parse_args` (pure): the command line, or None for the usage error (exit 8).
* `Lobby` (pure): matchmaking by colour, the one place that decides pairings.
* `ChessService`: the server's behaviour over `Player` handles. It holds the games and the
  lobby, and talks to the engine through the small `Engine` interface (an `EnginePool`, or
  a fake in tests). Everything except a hint or a computer move is synchronous, so replies
  that need no engine (a move between humans, ``board``, errors) never wait behind a search;
  the board is rendered locally, byte-identical to Stockfish 15.1's ``d``.
* `Outbox`: one writer task per client, so that several tasks (the client's own, its
  opponent's) can send to it without interleaving; bounded, and a client that stops reading
  until the bound is reached is disconnected instead of stalling its opponent.
* `serve`: the socket adapter on `hub.core.serve.serve_lines`, and `main`.
"""

from __future__ import annotations

import functools
import itertools
import resource
import shutil
import signal
import sys
from collections.abc import Awaitable, Callable, Hashable, Sequence
from pathlib import Path
from typing import Protocol

import attrs
import trio

from hub.core.lines import LineError, LineStream, LineTooLong
from hub.core.output import Output
from hub.core.referee import IllegalMove
from hub.core.serve import Connection, ListenError, ServerStats, bound_port, open_listeners
from hub.core.serve import serve_lines as _serve_lines
from hub.core.stdin import ensure_standard_fds
from hub.core.text import parse_whole_number
from hub.games.uqchess import protocol as p
from hub.games.uqchess.engine import (
    EnginePool,
    EngineStartError,
    EngineTerminated,
    find_engine,
)
from hub.games.uqchess.rules import (
    WHITE_SEAT,
    ChessReferee,
    ChessState,
    Ending,
    position_command,
    render_board,
)

PROGRAM = "uqchessserver"
USAGE = "Usage: ./uqchessserver [--listenOn portno]"
EXIT_USAGE = 8
EXIT_LISTEN = 20
EXIT_ENGINE_START = 4
EXIT_ENGINE_DIED = 7
MAX_LINE = 1024
"""Longest client line accepted; a longer one is answered with ``error command``."""
MAX_CONNECTIONS = 1000
OUTBOX_LIMIT = 1 << 20
"""Bytes queued for a client that does not read before it is disconnected."""
DRAIN_TIMEOUT = 2.0
MAX_ENGINES = 64


# -- command line --------------------------------------------------------------------------


@attrs.frozen
class ServerOptions:
    port: str = "0"
    engines: int = 1


def parse_args(args: Sequence[str]) -> ServerOptions | None:
    """``[--listenOn portno] [--engines N]``, each at most once with a non-empty value."""
    values: dict[str, str] = {}
    rest = list(args)
    while rest:
        option = rest.pop(0)
        if option not in ("--listenOn", "--engines") or option in values or not rest:
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
    return ServerOptions(values.get("--listenOn", "0"), engines)


# -- matchmaking ---------------------------------------------------------------------------


class Seeker(Protocol):
    @property
    def number(self) -> int: ...


@attrs.define
class Lobby:
    """Clients waiting for a human opponent, each with its colour choice."""

    waiting: dict[Seeker, p.ColourChoice] = attrs.Factory(dict)

    def leave(self, seeker: Seeker) -> None:
        self.waiting.pop(seeker, None)

    def seek(self, seeker: Seeker, choice: p.ColourChoice) -> tuple[Seeker, Seeker] | None:
        """Pair ``seeker`` with the first-connected compatible waiting client, as (white,
        black); or remember it as waiting and return None."""
        self.leave(seeker)
        compatible = [
            (other.number, other)
            for other, theirs in self.waiting.items()
            if other is not seeker and _compatible(theirs, choice)
        ]
        if not compatible:
            self.waiting[seeker] = choice
            return None
        _, waiter = min(compatible, key=lambda item: item[0])
        theirs = self.waiting.pop(waiter)
        if theirs == "white" or (theirs == "either" and choice in ("either", "black")):
            return waiter, seeker
        return seeker, waiter


def _compatible(a: p.ColourChoice, b: p.ColourChoice) -> bool:
    return a == "either" or b == "either" or a != b


# -- the service ---------------------------------------------------------------------------


class Engine(Protocol):
    """What the service needs from the engine (an `EnginePool` or a test double)."""

    async def best_move(self, game: Hashable, position: str) -> str | None: ...

    async def legal_moves(self, game: Hashable, position: str) -> list[str]: ...

    def forget(self, game: Hashable) -> None: ...

    def fail(self, reason: str) -> None: ...


Send = Callable[[Sequence[str]], None]


@attrs.define(eq=False)
class Player:
    """A connected client."""

    number: int
    send: Send
    game: Game | None = None
    """The current game, or the last finished one (for ``board``), or None."""
    colour: p.Colour = "white"
    drained: Callable[[], Awaitable[None]] | None = None
    """Waits until everything sent to the client is written (None: nothing to wait for)."""


@attrs.define(eq=False)
class Game:
    id: int
    state: ChessState
    seats: dict[p.Colour, Player | None]
    """Who plays each colour: a player, or None for the computer. Emptied once over."""
    over: bool = False

    @property
    def turn(self) -> p.Colour:
        return "white" if self.state.turn_seat == WHITE_SEAT else "black"

    @property
    def vs_computer(self) -> bool:
        return None in self.seats.values()


class ChessService:
    """Every game of a server; one method per thing a client can send or do."""

    def __init__(self, engine: Engine, referee: ChessReferee | None = None) -> None:
        self.engine = engine
        self.referee = referee or ChessReferee(automatic_draws=False)
        self.lobby = Lobby()
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
    ) -> Player:
        player = Player(next(self._numbers) if number is None else number, send, drained=drained)
        self.players[player.number] = player
        return player

    def disconnect(self, player: Player) -> None:
        """EOF or a failed write: the client resigns its game and is forgotten."""
        if self.players.pop(player.number, None) is None:
            return
        self.lobby.leave(player)
        if self.failed:
            return  # the server is exiting: the clients have had `error engine`
        self._resign(player, tell_self=False)
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
                self.resign(player)

    def _in_progress(self, player: Player) -> Game | None:
        game = player.game
        if game is None or game.over:
            return None
        return game

    def _error(self, player: Player, reason: p.ErrorReason) -> None:
        player.send([p.format_error(reason)])

    async def start(self, player: Player, against: p.Against, choice: p.ColourChoice) -> None:
        self._resign(player, tell_self=True)
        self.lobby.leave(player)
        player.game = None
        if against == "computer":
            colour: p.Colour = "black" if choice == "black" else "white"
            seats: dict[p.Colour, Player | None] = {colour: player, p.other(colour): None}
            game = self._new_game(seats)
            player.send([p.format_started(colour)])
            if colour == "black":
                await self._computer_moves(game, player)
            return
        pair = self.lobby.seek(player, choice)
        if pair is None:
            return
        white, black = pair
        assert isinstance(white, Player)
        assert isinstance(black, Player)
        self._new_game({"white": white, "black": black})
        white.send([p.format_started("white")])
        black.send([p.format_started("black")])

    def _new_game(self, seats: dict[p.Colour, Player | None]) -> Game:
        game = Game(next(self._game_ids), self.referee.initial(), seats)
        for colour, seated in seats.items():
            if seated is not None:
                seated.game = game
                seated.colour = colour
        return game

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
        game = self._check_turn(player)
        if game is None:
            return
        try:
            game.state = self.referee.apply(game.state, text)
        except IllegalMove:
            self._error(player, p.ErrorReason.MOVE)
            return
        opponent = game.seats[p.other(player.colour)]
        after = self._after_move(game, player.colour)
        player.send([p.OK, *after])
        if opponent is not None:
            opponent.send([p.format_moved(text), *after])
        elif not game.over:
            await self._computer_moves(game, player)

    async def _computer_moves(self, game: Game, player: Player) -> None:
        move = await self.engine.best_move(game.id, position_command(game.state))
        try:
            if move is None:
                raise IllegalMove("the engine found no move")
            game.state = self.referee.apply(game.state, move)
        except IllegalMove as exc:
            self.engine.fail(f"the engine answered {move!r}: {exc}")
            raise EngineTerminated(str(exc)) from exc
        player.send([p.format_moved(move), *self._after_move(game, p.other(player.colour))])

    def _after_move(self, game: Game, mover: p.Colour) -> list[str]:
        """``check`` or ``gameover ...`` (ending the game) after ``mover``'s move, or nothing."""
        ending = self.referee.ending(game.state)
        if ending is Ending.CHECKMATE:
            self._finish(game)
            return [p.format_gameover(p.GameOverHow.CHECKMATE, mover)]
        if ending is not None:
            self._finish(game)
            return [p.format_gameover(p.GameOverHow.STALEMATE)]
        if self.referee.in_check(game.state):
            return [p.CHECK]
        return []

    def _finish(self, game: Game) -> None:
        game.over = True
        game.seats = {}
        self.engine.forget(game.id)

    def resign(self, player: Player) -> None:
        if self._in_progress(player) is None:
            self._error(player, p.ErrorReason.GAME)
            return
        self._resign(player, tell_self=True)

    def _resign(self, player: Player, *, tell_self: bool) -> None:
        game = self._in_progress(player)
        if game is None:
            return
        opponent = game.seats.get(p.other(player.colour))
        message = [p.format_gameover(p.GameOverHow.RESIGNATION, p.other(player.colour))]
        self._finish(game)
        if tell_self:
            player.send(message)
        if opponent is not None:
            opponent.send(message)


# -- per-client writer ---------------------------------------------------------------------


class Outbox:
    """Lines for one client, written by one task; `send` never blocks."""

    def __init__(self, stream: trio.abc.SendStream, limit: int = OUTBOX_LIMIT) -> None:
        self._stream = stream
        self._limit = limit
        self._buffer = bytearray()
        self._wakeup = trio.Event()
        self._idle = trio.Event()
        self._idle.set()
        self.broken = False
        self._scope: trio.CancelScope | None = None

    def send(self, lines: Sequence[str]) -> None:
        if self.broken:
            return
        for line in lines:
            self._buffer += line.encode("latin-1", "replace")
            self._buffer += b"\n"
        if len(self._buffer) > self._limit:
            self._break()
            return
        self._idle = trio.Event() if self._idle.is_set() else self._idle
        self._wakeup.set()

    def _break(self) -> None:
        self.broken = True
        self._buffer.clear()
        self._idle.set()
        if self._scope is not None:
            self._scope.cancel()

    async def run(self, scope: trio.CancelScope) -> None:
        """Write until cancelled; a failed write cancels ``scope`` (the client is gone)."""
        self._scope = scope
        if self.broken:
            scope.cancel()
            return
        while True:
            if not self._buffer:
                self._idle.set()
                self._wakeup = trio.Event()
                await self._wakeup.wait()
                continue
            data = bytes(self._buffer)
            self._buffer.clear()
            try:
                await self._stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self._break()
                return

    async def drained(self) -> None:
        """Wait until everything sent so far is written (or the client is gone)."""
        await self._idle.wait()


# -- sockets -------------------------------------------------------------------------------


async def _read_commands(service: ChessService, player: Player, lines: LineStream) -> None:
    """Answer each line in turn until EOF (`PeerClosed`) or a broken transport."""
    while True:
        try:
            line = await lines.receive_line()
        except LineTooLong as exc:
            if not exc.dropped:
                await lines.skip_line()
            line = "\n"  # any line that is not a command: error command
        await service.handle(player, line)


async def handle_connection(service: ChessService, connection: Connection) -> None:
    outbox = Outbox(connection.stream)
    player = service.connect(outbox.send, connection.number, outbox.drained)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(outbox.run, nursery.cancel_scope)
            try:
                await _read_commands(service, player, connection.lines)
            except LineError:
                pass  # EOF or a broken connection: the client has gone
            except EngineTerminated:
                await trio.sleep_forever()  # the server reports it to everyone and exits
            finally:
                with trio.CancelScope(shield=True):
                    service.disconnect(player)  # resigns at once
                    if not service.failed:
                        with trio.move_on_after(DRAIN_TIMEOUT):
                            await outbox.drained()
                nursery.cancel_scope.cancel()
    finally:
        service.disconnect(player)


def max_connections() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft - 64 - MAX_ENGINES * 3))


async def serve(
    listeners: Sequence[trio.SocketListener],
    pool: EnginePool,
    *,
    stats: ServerStats | None = None,
    task_status: trio.TaskStatus[ChessService] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve until cancelled (returns 0) or until an engine dies (returns 7).

    ``pool`` must be started (`EnginePool.start`) but not running: this runs it.
    """
    service = ChessService(pool)

    async with trio.open_nursery() as nursery:

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
                max_connections=max_connections(),
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
    sibling = Path(sys.executable).parent / "hub"
    hub = str(sibling) if sibling.exists() else shutil.which("hub")
    return None if hub is None else [hub, "engine"]


async def _main(options: ServerOptions, err: Output, fallback: bool) -> int:
    try:
        listeners = await open_listeners(options.port)
    except ListenError:
        err.line(f'{PROGRAM}: can\'t start listening on port "{options.port}"')
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
    err.line(str(bound_port(listeners)))
    err.flush()
    status = await serve(listeners, pool)
    if status == EXIT_ENGINE_DIED:
        err.line(f"{PROGRAM}: chess engine exited unexpectedly")
    return status


def main(argv: Sequence[str] | None = None, *, fallback: bool = False) -> int:
    """The ``uqchessserver`` console script; ``hub serve uqchess`` with ``fallback=True``
    (when no Stockfish is found, use ``hub engine`` instead of exiting 4)."""
    args = list(sys.argv[1:] if argv is None else argv)
    err = Output(2)
    options = parse_args(args)
    if options is None:
        err.line(USAGE)
        err.flush()
        return EXIT_USAGE
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the original does not handle SIGINT
    ensure_standard_fds()
    try:
        return trio.run(_main, options, err, fallback)
    finally:
        err.flush()


if __name__ == "__main__":
    sys.exit(main())
