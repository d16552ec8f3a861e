"""The pieces of a UQChess game as the service plays it: a connected client (`Player`), a
game (`ServedGame`: its core `Match` while it is played, its last position afterwards), a
client's wait for a human opponent (`Seek`), and the two kinds of seat of the core match
loop: `ClientSeat` (a `FedSeat` that the client's ``move`` feeds; its hooks send it ``ok``,
``moved``, ``check`` and ``gameover``) and `ComputerSeat` (the engine's best move, through
the small `Engine` interface)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import NoReturn, Protocol

import attrs

from hub.chess.engine_client import EngineTerminated
from hub.chess.game import ChessGame
from hub.chess.rules import BLACK_SEAT, WHITE_SEAT, ChessState, position_command
from hub.core.io.lobby import Waiting
from hub.core.io.serve import UNKNOWN_PEER
from hub.core.model.referee import IllegalMove, Termination
from hub.core.model.values import JSON, PlayerInfo
from hub.core.play.fed import FedSeat
from hub.core.play.match import Match
from hub.core.play.vocabulary import BaseSeat, MatchResult, Moved, Turn
from hub.games.uqchess import protocol as p


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
    game: ServedGame | None = None
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
class ServedGame:
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


@attrs.frozen(eq=False)
class Seek:
    """A client waiting for a human opponent (``start human COLOUR``) in core's lobby."""

    player: Player
    choice: p.ColourChoice


def after_move_lines(game: ChessGame, moved: Moved[ChessState, str]) -> list[str]:
    """``check`` or ``gameover ...`` after a move, or nothing (``game``: the rules)."""
    outcome = game.outcome(moved.after)
    if outcome is not None:
        if outcome.detail == "checkmate":
            return [p.format_gameover(p.GameOverHow.CHECKMATE, colour_of(moved.seat))]
        return [p.format_gameover(p.GameOverHow.STALEMATE)]
    if moved.after.board.is_check():
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
    rules: ChessGame = attrs.field(kw_only=True)
    """The game's declaration (its ending after a move)."""

    async def observe(self, moved: Moved[ChessState, str]) -> None:
        await super().observe(moved)
        # The move as it was sent (a client's own spelling, the engine's answer), as today.
        first = p.OK if moved.seat == self.seat else p.format_moved(moved.move)
        self.client.send([first, *after_move_lines(self.rules, moved)])

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
    game: ServedGame
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
