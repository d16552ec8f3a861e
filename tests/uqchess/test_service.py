"""The server's behaviour without sockets: matchmaking, games, errors (a fake engine)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable, Sequence

import chess
import pytest
import trio

from hub.chess.engine_client import EngineTerminated
from hub.core.io.lobby import Lobby, Waiting
from hub.core.model.events import GameEnded, GameRecord
from hub.core.model.referee import Termination
from hub.games.uqchess.options import ServerOptions, parse_args
from hub.games.uqchess.pairing import colours, new_lobby
from hub.games.uqchess.protocol import ColourChoice
from hub.games.uqchess.seats import Player, Seek
from hub.games.uqchess.service import ChessService


def seek(lobby: Lobby[Seek], player: Player, choice: ColourChoice) -> tuple[int, int] | None:
    """What the service does for ``start human CHOICE``: (white, black) numbers of a pair."""
    if player.seek is not None:
        lobby.leave(player.seek)
    player.seek = Waiting(Seek(player, choice))
    table = lobby.join(player.seek)
    if table is None:
        return None
    waiter, newcomer = table.items
    waiter.player.seek = newcomer.player.seek = None
    white, black = colours(waiter, newcomer)
    return white.number, black.number


def waiting(lobby: Lobby[Seek]) -> list[tuple[int, str]]:
    return [(entry.item.player.number, entry.item.choice) for entry in lobby.waiting]


def test_lobby_pairs_by_colour_first_connected_first() -> None:
    lobby = new_lobby()
    a, b, c, d, e = (Player(n, print) for n in range(1, 6))
    assert seek(lobby, b, "white") is None
    assert seek(lobby, a, "white") is None
    assert seek(lobby, c, "white") is None
    assert seek(lobby, d, "black") == (1, 4)  # a connected first (even though b waited longer)
    assert seek(lobby, e, "either") == (2, 5)
    assert waiting(lobby) == [(3, "white")]


def test_lobby_either_cases() -> None:
    lobby = new_lobby()
    a, b, c, d = (Player(n, print) for n in range(1, 5))
    assert seek(lobby, a, "either") is None
    assert seek(lobby, b, "either") == (1, 2)  # the waiting client gets white
    assert seek(lobby, c, "either") is None
    assert seek(lobby, d, "white") == (4, 3)
    assert seek(lobby, a, "black") is None
    assert seek(lobby, a, "white") is None  # a second seek replaces the first, never self-pairs
    assert waiting(lobby) == [(1, "white")]
    assert a.seek is not None
    lobby.leave(a.seek)
    assert not lobby.waiting


def test_server_args() -> None:
    assert parse_args([]) == ServerOptions("0", 1)
    assert parse_args(["--listenOn", "mysql"]) == ServerOptions("mysql", 1)
    assert parse_args(["--engines", "2", "--listenOn", "5"]) == ServerOptions("5", 2)
    for bad in (
        ["--listenOn"],
        ["--listenOn", ""],
        ["--listenOn", "1", "--listenOn", "2"],
        ["extra"],
        ["--listenOn", "1", "x"],
        [""],
        ["--engines", "0"],
        ["--engines", "x"],
    ):
        assert parse_args(bad) is None, bad


class FakeEngine:
    """Plays the first legal move (python-chess order); records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.forgotten: list[Hashable] = []
        self.failed: str | None = None
        self.answer: str | None = None
        self.script: list[str] = []

    def _board(self, position: str) -> chess.Board:
        board = chess.Board()
        for move in position.split()[3:]:
            board.push_uci(move)
        return board

    async def best_move(self, game: Hashable, position: str) -> str | None:
        self.asked.append("go")
        if self.script:
            return self.script.pop(0)
        if self.answer is not None:
            return self.answer
        moves = list(self._board(position).legal_moves)
        return moves[0].uci() if moves else None

    async def legal_moves(self, game: Hashable, position: str) -> list[str]:
        self.asked.append("perft")
        return [move.uci() for move in self._board(position).legal_moves]

    def forget(self, game: Hashable) -> None:
        self.forgotten.append(game)

    def fail(self, reason: str) -> None:
        self.failed = reason


class Client:
    def __init__(self, service: ChessService) -> None:
        self.got: list[str] = []
        self.service = service
        self.player: Player = service.connect(self.got.extend)

    async def say(self, *lines: str) -> list[str]:
        """Everything received since the last call, including the replies to ``lines``."""
        for line in lines:
            await self.service.handle(self.player, line)
        got, self.got[:] = list(self.got), []
        return got


@pytest.fixture
async def service() -> AsyncIterator[ChessService]:
    async with trio.open_nursery() as nursery:  # the games' matches run in it
        yield ChessService(FakeEngine(), nursery)
        nursery.cancel_scope.cancel()


async def test_errors_before_any_game(service: ChessService) -> None:
    a = Client(service)
    for line in ("board", "hint best", "hint all", "move e2e4", "resign"):
        assert await a.say(line) == ["error game"]
    assert await a.say("start human white", "board") == ["error game"]  # only waiting
    assert await a.say("nonsense", "move e2e4x5") == ["error command"] * 2


async def test_human_game_turns_check_and_fools_mate(service: ChessService) -> None:
    a, b = Client(service), Client(service)
    assert await a.say("start human either") == []
    assert await b.say("start human either") == ["started black"]
    assert await a.say() == ["started white"]
    assert await b.say("move e7e5") == ["error turn"]
    assert await b.say("hint best") == ["error turn"]
    assert await a.say("move e2e5") == ["error move"]
    assert await a.say("move f2f3") == ["ok"]
    assert await b.say("move e7e5") == ["moved f2f3", "ok"]
    assert await a.say("move g2g4") == ["moved e7e5", "ok"]
    assert await b.say("move d8h4") == ["moved g2g4", "ok", "gameover checkmate black"]
    assert await a.say() == ["moved d8h4", "gameover checkmate black"]
    assert service.engine.forgotten  # type: ignore[attr-defined]
    assert (await a.say("board"))[0] == "startboard"  # the final board is kept
    assert await a.say("move a2a3") == ["error game"]
    assert await b.say("resign") == ["error game"]


async def test_start_mid_game_resigns_and_keeps_the_other_board(service: ChessService) -> None:
    a, b = Client(service), Client(service)
    await a.say("start human white")
    await b.say("start human black")
    await a.say("move e2e4")
    await a.say()
    await b.say()
    assert await a.say("start human white") == ["gameover resignation black"]
    assert await b.say() == ["gameover resignation black"]
    assert await a.say("board") == ["error game"]  # a is waiting again
    board = await b.say("board")
    assert board[0] == "startboard" and " |   |   |   |   | P |   |   |   | 4" in board


async def test_disconnect_resigns_and_frees_everything(service: ChessService) -> None:
    a, b, c = Client(service), Client(service), Client(service)
    await a.say("start human black")
    await b.say("start human white")
    await c.say("start human white")  # waits
    await service.disconnect(a.player)
    assert b.got[-1] == "gameover resignation white"
    await service.disconnect(c.player)
    assert not service.lobby.waiting
    await service.disconnect(b.player)
    assert service.players == {}


async def test_computer_games(service: ChessService) -> None:
    a = Client(service)
    assert await a.say("start computer either") == ["started white"]
    assert await a.say("move e2e4") == ["ok", "moved g8h6"]
    assert await a.say("hint all") == [
        "moves "
        + " ".join(
            m.uci()
            for m in chess.Board(
                "rnbqkb1r/pppppppp/7n/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"
            ).legal_moves
        )
    ]
    assert await a.say("hint best") == ["moves g1h3"]
    assert await a.say("start computer black") == [
        "gameover resignation black",
        "started black",
        "moved g1h3",
    ]
    assert await a.say("resign") == ["gameover resignation white"]


async def test_an_illegal_engine_move_is_an_engine_failure(service: ChessService) -> None:
    a = Client(service)
    engine = service.engine
    assert isinstance(engine, FakeEngine)
    engine.answer = "a1a1"
    with pytest.raises(EngineTerminated):
        await a.say("start computer black")
    assert engine.failed is not None


async def test_engine_failure_reaches_everyone(service: ChessService) -> None:
    a, b = Client(service), Client(service)
    service.engine_failed()
    assert a.got == b.got == ["error engine"]
    with pytest.raises(EngineTerminated):
        await a.say("board")


def _unused(_: Sequence[str]) -> None:
    pass


async def test_the_computer_checks_and_mates(service: ChessService) -> None:
    engine = service.engine
    assert isinstance(engine, FakeEngine)
    a = Client(service)
    engine.script = ["e7e5", "f8b4", "e7e5", "d8h4"]
    assert await a.say("start computer white") == ["started white"]
    assert await a.say("move d2d4") == ["ok", "moved e7e5"]
    assert await a.say("move f2f3") == ["ok", "moved f8b4", "check"]
    assert await a.say("move a2a3") == ["error move"]  # in check: must answer it
    assert await a.say("start computer white") == ["gameover resignation black", "started white"]
    assert await a.say("move f2f3") == ["ok", "moved e7e5"]
    assert await a.say("move g2g4") == ["ok", "moved d8h4", "gameover checkmate black"]
    assert await a.say("hint best") == ["error game"]


def _records(service: ChessService) -> list[GameRecord]:
    """The records of the games that end from now on (the service's event stream)."""
    records: list[GameRecord] = []
    service.events.listen(lambda e: records.append(e.record) if isinstance(e, GameEnded) else None)
    return records


async def test_games_are_matches_with_records(service: ChessService) -> None:
    records = _records(service)
    a, b = Client(service), Client(service)
    await a.say("start human white")
    await b.say("start human black")
    await a.say()
    for mover, move in ((a, "f2f3"), (b, "e7e5"), (a, "g2g4"), (b, "d8h4")):
        await mover.say(f"move {move}")
    assert await a.say() == ["moved d8h4", "gameover checkmate black"]
    (record,) = records
    assert record.game == "chess" and record.settings == {"rules": "uqchess"}
    assert [m.move for m in record.moves] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert [p.kind for p in record.players] == ["remote", "remote"]
    assert (record.termination, record.winners, record.detail) == (
        Termination.NORMAL,
        (1,),
        "checkmate",
    )
    assert record.final_state["fen"].startswith("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/")
    assert a.player.game is not None and a.player.game.match is None  # only the board kept


async def test_resigning_on_the_opponents_turn(service: ChessService) -> None:
    records = _records(service)
    a, b = Client(service), Client(service)
    await a.say("start human white")
    await b.say("start human black")
    assert await a.say("move e2e4", "resign") == [
        "started white",
        "ok",
        "gameover resignation black",
    ]
    assert await b.say() == ["moved e2e4", "gameover resignation black"]
    assert await b.say("move e7e5") == ["error game"]
    (record,) = records
    assert record.termination is Termination.RESIGNATION
    assert record.fault is not None and record.fault.seat == 0 and record.winners == (1,)


async def test_leaving_is_a_disconnect(service: ChessService) -> None:
    records = _records(service)
    a = Client(service)
    assert await a.say("start computer black") == ["started black", "moved g1h3"]
    await service.disconnect(a.player)
    assert a.got == []  # nothing is sent to a client that has left
    (record,) = records
    assert record.termination is Termination.DISCONNECT
    assert [p.kind for p in record.players] == ["engine", "remote"]
    assert [m.move for m in record.moves] == ["g1h3"]


async def test_an_engine_that_dies_mid_game(service: ChessService) -> None:
    engine = service.engine
    assert isinstance(engine, FakeEngine)
    a = Client(service)
    await a.say("start computer white")

    async def dies(game: Hashable, position: str) -> str | None:
        raise EngineTerminated("gone")

    engine.best_move = dies  # type: ignore[method-assign]
    with pytest.raises(EngineTerminated):
        await a.say("move e2e4")
    assert a.got == ["ok"]
    assert a.player.game is not None and a.player.game.over
