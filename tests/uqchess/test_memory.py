"""Memory returns to baseline after clients leave: nothing per client or per game is kept.

The server runs in-process (`serve` over loopback, a pool of fake engines); after every
client has gone, its containers are empty and no per-client or per-game object survives
`gc.collect()`. ``--gate`` holds the fake engine's searches so that races are set up exactly.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from hub.chess.engine_client import EnginePool, _Job
from hub.core.io.listen import bound_port, open_listeners
from hub.core.io.outbox import Outbox
from hub.core.io.serve import ServerStats
from hub.core.play.match import Match
from hub.games.uqchess.seats import ClientSeat, ComputerSeat, Player, ServedGame
from hub.games.uqchess.service import ChessService
from hub.games.uqchess.sockets import serve
from tests.chesslib.helpers import fake_engine_argv
from tests.uqchess.helpers import TIMEOUT, Talker, connect

PER_CLIENT = (Player, ServedGame, Outbox, Match, ClientSeat, ComputerSeat)


@asynccontextmanager
async def in_process(
    *engine_args: str, engines: int = 1
) -> AsyncIterator[tuple[ChessService, EnginePool, ServerStats, int]]:
    listeners = await open_listeners(0)
    port = bound_port(listeners)
    pool = await EnginePool.start(fake_engine_argv(*engine_args), engines)
    stats = ServerStats()
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            service = await nursery.start(functools.partial(serve, listeners, pool, stats=stats))
            yield service, pool, stats, port
            nursery.cancel_scope.cancel()


async def until(talker: Talker, prefix: str) -> str:
    while True:
        (line,) = await talker.receive()
        if line.startswith(prefix):
            return line


async def wait_for(condition: object) -> None:
    """Until ``condition()`` holds (state, not time: the test's deadline bounds it)."""
    while not condition():  # type: ignore[operator]
        await trio.sleep(0.005)


async def assert_nothing_kept(service: ChessService, pool: EnginePool, stats: ServerStats) -> None:
    await wait_for(lambda: stats.active == 0)  # every connection's task has finished
    assert service.players == {}
    assert service.lobby.waiting == ()
    assert pool.home == {}
    assert pool.pending == 0
    assert not any(isinstance(engine.last_game, int) for engine in pool.engines)  # no game id
    gc.collect()
    survivors = [type(o).__name__ for o in gc.get_objects() if isinstance(o, PER_CLIENT)]
    assert survivors == []
    # Each engine's owner task may still hold the last job it answered; nothing more.
    assert sum(isinstance(o, _Job) for o in gc.get_objects()) <= len(pool.engines)


async def computer_game(port: int) -> None:
    async with connect(port) as c:
        await c.ask("start computer white", "started white")
        await c.ask("move e2e4", "ok")
        await until(c, "moved ")
        await c.send("hint all")
        await until(c, "moves ")
        await c.ask("resign", "gameover resignation black")
        await c.board()  # the finished game's board, kept only while the client stays


async def leave_mid_game(port: int) -> None:
    async with connect(port) as c:
        await c.ask("start computer black", "started black")
        await until(c, "moved ")
        await c.ask("start computer white", "gameover resignation white", "started white")
        await c.send("move d2d4")  # leaves with the computer's reply pending


async def human_pair(port: int, lock: trio.Lock) -> None:
    async with connect(port) as a, connect(port) as b:
        async with lock:  # pair these two with each other
            await a.ask("start human white")
            await b.ask("start human black", "started black")
            await a.expect("started white")
        await a.ask("move e2e4", "ok")
        await b.expect("moved e2e4")
        await b.send("hint all")
        await until(b, "moves ")
        await b.close()  # leaves mid-game: resigns
        await a.expect("gameover resignation white")


async def waiter(port: int, lock: trio.Lock) -> None:
    async with lock, connect(port) as c:
        await c.ask("start human either")  # waits in the lobby, then leaves


async def test_clients_leave_nothing_behind() -> None:
    async with in_process(engines=2) as (service, pool, stats, port):
        lock = trio.Lock()
        for _round in range(3):
            async with trio.open_nursery() as nursery:
                for _ in range(5):
                    nursery.start_soon(computer_game, port)
                    nursery.start_soon(leave_mid_game, port)
                    nursery.start_soon(human_pair, port, lock)
                    nursery.start_soon(waiter, port, lock)
            await assert_nothing_kept(service, pool, stats)


async def test_a_hint_that_outlives_its_game_leaves_nothing(tmp_path: Path) -> None:
    """The opponent leaves while a ``hint best`` waits behind another game's search: the
    game is forgotten before the engine takes the hint, and still nothing may be kept."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    fd = os.open(gate, os.O_RDWR)
    try:
        async with in_process("--gate", str(gate)) as (service, pool, stats, port):
            async with connect(port) as a, connect(port) as b, connect(port) as c:
                await a.ask("start human white")
                await b.ask("start human black", "started black")
                await a.expect("started white")
                await a.ask("move e2e4", "ok")
                await b.expect("moved e2e4")
                await c.ask("start computer black", "started black")  # a search, held
                await wait_for(lambda: pool.engines[0].busy)
                await b.send("hint best")
                await wait_for(lambda: pool.pending == 1)  # queued behind c's search
                await a.close()
                await b.expect("gameover resignation black")  # a left: b's game is over
                os.write(fd, b"xx")  # both searches may end now
                await until(c, "moved ")
                await until(b, "moves ")
            await assert_nothing_kept(service, pool, stats)
    finally:
        os.close(fd)


async def test_engine_affinity_is_one_game_per_engine(tmp_path: Path) -> None:
    """Games forgotten while their requests wait leave no affinity behind once served."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    fd = os.open(gate, os.O_RDWR)
    try:
        pool = await EnginePool.start(fake_engine_argv("--gate", str(gate)))
        with trio.fail_after(TIMEOUT):
            async with trio.open_nursery() as nursery:
                await nursery.start(pool.run)
                async with trio.open_nursery() as requests:
                    requests.start_soon(pool.best_move, 0, "position startpos")
                    await wait_for(lambda: pool.engines[0].busy)
                    for game in (1, 2, 3):
                        requests.start_soon(pool.best_move, game, "position startpos")
                        await wait_for(lambda game=game: pool.pending == game)
                        pool.forget(game)
                    os.write(fd, b"xxxx")
                assert pool.home == {3: 0}  # only the game the engine served last
                nursery.cancel_scope.cancel()
    finally:
        os.close(fd)
