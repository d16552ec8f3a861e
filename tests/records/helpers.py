"""Records of each documented game shape, built directly, and real ones played through Match."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import chess
import trio

from hub.chess.notation import state_view
from hub.chess.rules import ChessState
from hub.core.model.bus import EventBus
from hub.core.model.events import FaultInfo, GameRecord, RecordedMove
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.match import Match
from hub.core.play.vocabulary import BaseSeat, Turn
from tests.examples.tictactoe import Board, TicTacToe

T0 = 1_700_000_000.0


def chess_view(fen: str, moves: Sequence[str]) -> object:
    """The chess view the chess games publish (hub/chess/notation.py)."""
    return state_view(ChessState(fen, tuple(moves)))


def chess_record(
    moves: Sequence[str] = ("f2f3", "e7e5", "g2g4", "d8h4"),
    *,
    game_id: str = "c0ffee01",
    fen: str = chess.STARTING_FEN,
    white: str = "alice",
    black: str = "ai:4",
    winners: Sequence[int] = (1,),
    termination: Termination = Termination.NORMAL,
    detail: str = "checkmate",
    ended: float = T0 + 60,
    fault: FaultInfo | None = None,
) -> GameRecord:
    board = chess.Board(fen)
    recorded = []
    for ply, uci in enumerate(moves):
        seat = 0 if board.turn == chess.WHITE else 1
        board.push_uci(uci)
        recorded.append(
            RecordedMove(seat, uci, 0.25 * (ply + 1), chess_view(fen, moves[: ply + 1]))
        )
    return GameRecord(
        game_id=game_id,
        game="chess",
        settings={"rules": "console", "level": 4},
        players=[PlayerInfo(white, "person"), PlayerInfo(black, "ai", "ai:4")],
        time_controls=["300+5", "300+5"],
        initial_state=chess_view(fen, ()),
        moves=recorded,
        final_state=chess_view(fen, moves),
        scores=[1.0 if 0 in winners else 0.0, 1.0 if 1 in winners else 0.0],
        winners=winners,
        termination=termination,
        fault=fault,
        started_at=ended - 60,
        ended_at=ended,
        thinking=[1.0, 2.0],
        detail=detail,
    )


def kalah_view(board: Sequence[int], to_move: int | None, swapped: bool = False) -> object:
    return {"holes": 3, "board": list(board), "to_move": to_move, "swapped": swapped}


def kalah_record(*, game_id: str = "ka1a0001", ended: float = T0 + 120) -> GameRecord:
    return GameRecord(
        game_id=game_id,
        game="kalah",
        settings={"holes": 3, "seeds": 2, "pie": True},
        players=[PlayerInfo("south", "ai", "ai:2"), PlayerInfo("north", "remote")],
        time_controls=["200ms", "200ms"],
        initial_state=kalah_view([2, 2, 2, 0, 2, 2, 2, 0], 0),
        moves=[
            RecordedMove(0, "3", 0.01, kalah_view([2, 2, 0, 1, 3, 2, 2, 0], 1)),
            RecordedMove(1, "P", 0.02, kalah_view([2, 2, 0, 1, 3, 2, 2, 0], 0, True)),
        ],
        final_state=kalah_view([0, 0, 0, 7, 0, 0, 0, 5], None, True),
        scores=[7, 5],
        winners=[0],
        termination=Termination.TIMEOUT,
        fault=FaultInfo(1, Termination.TIMEOUT, "no move in 200 ms"),
        started_at=ended - 5,
        ended_at=ended,
        thinking=[0.01, 0.22],
    )


def clubs_view(hands: list[list[str]], trick: list[str], to_move: int | None) -> object:
    return {
        "players": 3,
        "round": 0,
        "hands": hands,
        "trick": trick,
        "leader": 0,
        "to_move": to_move,
        "scores": [0, 3, 10],
        "winscore": 10,
        "finished": to_move is None,
    }


def clubs_record(*, game_id: str = "c1ub5001", ended: float = T0 + 180) -> GameRecord:
    return GameRecord(
        game_id=game_id,
        game="clubs",
        settings={"winscore": 10, "decks": [["2C", "3C"] * 30], "time_ms": 0},
        players=[PlayerInfo("clubber", spec="clubber"), PlayerInfo("p2"), PlayerInfo("p3")],
        time_controls=["none"] * 3,
        initial_state=clubs_view([["2C", "AS"], ["3C", "KD"], ["4C", "10H"]], [], 0),
        moves=[
            RecordedMove(
                0, "2C", 0.001, clubs_view([["AS"], ["3C", "KD"], ["4C", "10H"]], ["2C"], 1)
            ),
            RecordedMove(
                1, "3C", 0.002, clubs_view([["AS"], ["KD"], ["4C", "10H"]], ["2C", "3C"], 2)
            ),
        ],
        final_state=clubs_view([[], [], []], [], None),
        scores=[0, 3, 10],
        winners=[0],
        termination=Termination.NORMAL,
        fault=None,
        started_at=ended - 1,
        ended_at=ended,
        thinking=[0.001, 0.002, 0.0],
    )


@attrs.define(eq=False)
class Cells(BaseSeat[Board, int]):
    """Plays the given cells in order (then the first free one)."""

    player: PlayerInfo
    cells: list[int] = attrs.Factory(list)

    async def choose(self, turn: Turn[Board]) -> int:
        await trio.lowlevel.checkpoint()
        return self.cells.pop(0) if self.cells else turn.state.cells.index(".")


async def tictactoe(
    x: str = "x", o: str = "o", *, bus: EventBus | None = None, x_cells: Sequence[int] = ()
) -> GameRecord:
    """One real game of the example through `Match` (its record)."""
    seats = [Cells(PlayerInfo(x), list(x_cells)), Cells(PlayerInfo(o))]
    match = Match(TicTacToe(), Board(), seats, events=bus)
    return (await match.run()).record


def shapes() -> list[GameRecord]:
    """One record of each documented view (chess from a set-up position too)."""
    return [
        chess_record(),
        chess_record(
            ["e1e2"],
            game_id="c0ffee02",
            fen="4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            winners=[0, 1],
            detail="insufficient material",
            ended=T0 + 90,
        ),
        kalah_record(),
        clubs_record(),
    ]
