"""Games for the web view's tests: tic-tac-toe (tests/examples) through the real `Match`,
with seats that move after a delay (virtual time) or when the test lets them; events of
chess, Kalah and clubs games made by hand in the documented state-view shapes."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import attrs
import chess
import trio

from hub.chess.notation import state_view
from hub.chess.rules import ChessState
from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord, GameStarted, MoveMade, RecordedMove
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.core.play.vocabulary import BaseSeat, MatchResult, Turn
from tests.examples.tictactoe import Board, TicTacToe


@attrs.define(eq=False)
class FirstFree(BaseSeat[Board, int]):
    """Takes the first free cell after ``delay`` seconds, or when ``gate`` lets it."""

    player: PlayerInfo
    delay: float = 0.0
    gate: trio.MemoryReceiveChannel[int | None] | None = None

    async def choose(self, turn: Turn[Board]) -> int:
        if self.gate is not None:
            cell = await self.gate.receive()
            if cell is not None:
                return cell
        await trio.sleep(self.delay)  # the behaviour: a player who takes this long
        return turn.state.cells.index(".")


def tictactoe(
    bus: EventBus,
    names: Sequence[str] = ("cross", "nought"),
    *,
    delay: float = 0.0,
    gates: Sequence[trio.MemoryReceiveChannel[int | None]] | None = None,
    game_id: str | None = None,
) -> Match[Board, int]:
    seats = [
        FirstFree(PlayerInfo(name, "program"), delay, None if gates is None else gates[seat])
        for seat, name in enumerate(names)
    ]
    return Match(TicTacToe(), Board(), seats, events=bus, game_id=game_id)  # type: ignore[arg-type]


async def play_tictactoe(bus: EventBus, **options: object) -> MatchResult[Board, int]:
    return await tictactoe(bus, **options).run()  # type: ignore[arg-type]


# -- chess, Kalah and clubs events made by hand ------------------------------------------------


def chess_view(board: chess.Board) -> Any:
    """The chess state view, as the chess games publish it (`hub.chess.notation.state_view`)."""
    moves = tuple(move.uci() for move in board.move_stack)
    return state_view(ChessState(board.root().fen(), moves))


@attrs.define
class ChessGame:
    """Publishes the events of a chess game move by move, as the console would."""

    bus: EventBus
    game_id: str
    players: tuple[PlayerInfo, PlayerInfo] = (
        PlayerInfo("human", "person"),
        PlayerInfo("computer2", "ai"),
    )
    settings: dict[str, object] = attrs.Factory(lambda: {"rules": "console"})
    board: chess.Board = attrs.Factory(chess.Board)
    recorded: list[RecordedMove] = attrs.Factory(list)
    initial: Any = None

    def start(self) -> None:
        self.initial = chess_view(self.board)
        self.bus.publish(
            GameStarted(
                self.game_id,
                "chess",
                self.settings,
                self.players,
                ("none", "none"),
                self.initial,
                0,
                time.time(),
            )
        )

    def move(self, uci: str) -> None:
        seat = 0 if self.board.turn == chess.WHITE else 1
        self.board.push_uci(uci)
        view = chess_view(self.board)
        self.recorded.append(RecordedMove(seat, uci, 0.5, view))
        over = not any(self.board.generate_legal_moves())
        self.bus.publish(
            MoveMade(
                self.game_id,
                len(self.recorded),
                seat,
                uci,
                view,
                None if over else 1 - seat,
                0.5,
                (None, None),
                time.time(),
            )
        )

    def end(
        self,
        winners: Sequence[int],
        termination: Termination = Termination.NORMAL,
        detail: str = "",
    ) -> None:
        record = self.record(winners, termination, detail)
        self.bus.publish(GameEnded(self.game_id, record, time.time()))

    def record(
        self, winners: Sequence[int], termination: Termination, detail: str = ""
    ) -> GameRecord:
        scores = [1.0 if seat in winners else 0.0 for seat in (0, 1)]
        return GameRecord(
            game_id=self.game_id,
            game="chess",
            settings=self.settings,
            players=self.players,
            time_controls=("none", "none"),
            initial_state=self.initial,
            moves=self.recorded,
            final_state=chess_view(self.board),
            scores=scores,
            winners=winners,
            termination=termination,
            fault=None,
            started_at=time.time(),
            ended_at=time.time(),
            thinking=(0.0, 0.0),
            detail=detail,
        )


def kalah_view(board: Sequence[int], to_move: int | None, swapped: bool = False) -> object:
    return {
        "holes": (len(board) - 2) // 2,
        "board": list(board),
        "to_move": to_move,
        "swapped": swapped,
    }


def clubs_view(
    hands: Sequence[Sequence[str]],
    trick: Sequence[str],
    leader: int,
    to_move: int | None,
    scores: Sequence[int],
    *,
    finished: bool = False,
) -> object:
    return {
        "players": len(hands),
        "round": 2,
        "hands": [list(hand) for hand in hands],
        "trick": list(trick),
        "leader": leader,
        "to_move": to_move,
        "scores": list(scores),
        "winscore": 30,
        "finished": finished,
    }


def started(
    game_id: str, game: str, view: object, players: Sequence[str], to_move: int | None = 0
) -> GameStarted:
    infos = [PlayerInfo(name, "program") for name in players]
    return GameStarted(game_id, game, {}, infos, (), view, to_move, time.time())


def moved(
    game_id: str,
    ply: int,
    seat: int,
    move: str,
    view: object,
    to_move: int | None,
    clocks: Sequence[float | None] = (),
) -> MoveMade:
    return MoveMade(game_id, ply, seat, move, view, to_move, 0.25, clocks, time.time())
