"""`ChessService`: the UQChess server's behaviour over `Player` handles (no sockets).

It holds the lobby and the games, each a core `hub.core.play.match.Match` of the chess
declaration (`hub.chess.game.ChessGame`, without automatic draws: the spec knows none)
between two seats run in the service's nursery and publishing to its `EventBus`: a
`ClientSeat` per client and a `ComputerSeat` for the computer. Resigning and leaving are
`Match.stop`, at any time. It talks to the engine through the small `Engine` interface (an
`EnginePool`, or a fake in tests); only a hint or a computer move waits for it, so replies
that need no engine (a move between humans, ``board``, errors) never wait behind a search;
the board is rendered locally, byte-identical to Stockfish 15.1's ``d``."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable

import trio

from hub.chess.engine_client import EnginePool, EngineTerminated
from hub.chess.game import ChessGame
from hub.chess.rules import ChessState, Draws, initial, position_command, render_board
from hub.core.io.lobby import Waiting
from hub.core.io.serve import UNKNOWN_PEER
from hub.core.model.bus import EventBus
from hub.core.model.identity import remote_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.core.play.vocabulary import Seat
from hub.games.uqchess import protocol as p
from hub.games.uqchess.pairing import colours, new_lobby
from hub.games.uqchess.seats import (
    SEAT_OF,
    SETTINGS,
    ChessMatch,
    ClientSeat,
    ComputerSeat,
    Engine,
    Player,
    Seek,
    Send,
    ServedGame,
)


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
        rules: ChessGame | None = None,
        events: EventBus | None = None,
    ) -> None:
        self.engine = engine
        # The computer is the engine (``uci:ID NAME``); a test double has no identity.
        identity = engine.identity if isinstance(engine, EnginePool) else ""
        self.computer = PlayerInfo("computer", "engine", "", identity)
        self.nursery = nursery
        self.rules = ChessGame(draws=Draws.NONE) if rules is None else rules
        """Chess as the spec plays it: the declaration, without automatic draws (the spec
        knows no ending but checkmate, stalemate and resignation)."""
        self.events = EventBus() if events is None else events
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
            case p.StartRequest(against, colour):
                await self.start(player, against, colour)
            case p.BoardRequest():
                self.board(player)
            case p.Hint(all=every):
                await self.hint(player, every)
            case p.MoveRequest(move):
                await self.move(player, move)
            case p.Resign():
                await self.resign(player)

    def _in_progress(self, player: Player) -> ServedGame | None:
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

    def _new_game(self, clients: dict[p.Colour, Player | None]) -> ServedGame:
        """A game's `Match`, started in the service's nursery; ``started`` sent to each
        client at once (so a resignation before the loop's first step still follows it)."""
        game = ServedGame(next(self._game_ids), initial())
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
                rules=self.rules,
            )
            game.seats[colour] = seat
            seats.append(seat)
            client.game = game
            client.colour = colour
        game.match = Match(
            self.rules,
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

    async def _play(self, game: ServedGame, match: ChessMatch) -> None:
        try:
            await match.run()
        except EngineTerminated:
            pass  # kept on the game for the waiting command; the engine pool reports it
        finally:
            game.last = match.state
            game.match = None
            game.seats = {}
            self.engine.forget(game.id)

    async def _settle(self, game: ServedGame) -> None:
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

    def _check_turn(self, player: Player) -> ServedGame | None:
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
