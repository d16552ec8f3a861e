"""Memory returns to baseline after clients leave: only the last `RECORDS_KEPT` game records
stay; no seat, player, search or lobby slot of a finished connection survives `gc.collect()`."""

from __future__ import annotations

import gc

import pytest
import trio
import trio.testing

from hub.core.io.lobby import Waiting
from hub.core.model.events import GameRecord
from hub.core.play.fed import ScriptedSeat
from hub.core.play.seats import LineSeat
from hub.core.play.threads import ThreadSeat
from hub.games.kalah import server as kalah_server
from hub.games.kalah.ai import KalahSearch
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import KalahAi
from hub.games.kalah.server import KalahServer
from hub.games.kalah.settings import KalahSettings
from tests.kalah.helpers import connect, new_server

PER_CONNECTION = (LineSeat, ThreadSeat, KalahAi, ScriptedSeat, KalahSearch, Waiting)


def count(kinds: type | tuple[type, ...]) -> int:
    gc.collect()
    return sum(isinstance(o, kinds) for o in gc.get_objects())


@pytest.fixture
def few_records(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(kalah_server, "RECORDS_KEPT", 5)
    return 5


async def test_clients_vs_ai_leave_only_bounded_records(
    autojump_clock: trio.testing.MockClock, few_records: int
) -> None:
    options = GameOptions(KalahSettings(6, 4, time_ms=1000), first="client")
    server = new_server(options)
    for _round in range(3):
        async with trio.open_nursery() as nursery:
            for index in range(8):
                nursery.start_soon(leave_after, server, index % 3)
        assert count(PER_CONNECTION) == 0
        assert len(server.records) == min(few_records, server.games_played)
        assert count(GameRecord) == len(server.records)
    assert server.games_played == 3 * 8 - 3 * 3  # the clients that never said READY: no game


async def leave_after(server: KalahServer, moves: int) -> None:
    """``moves`` = 0: leave at the handshake (no game); otherwise move, then disconnect."""
    async with connect(server) as client:
        await client.expect("WELCOME", "INFO 6 4 1000 F S")
        if moves == 0:
            return
        await client.send("READY")
        await client.expect("BEGIN")
        for _ in range(moves):
            await client.send("1")  # hole 1 of 6x4: never the last seed in the store
            await client.expect("OK")
            await client.receive()  # the AI's turn
            await client.send("OK")
            await client.send("6")  # may be empty or illegal later: either way, fine
            break


async def test_pairs_leave_nothing_but_records(
    autojump_clock: trio.testing.MockClock, few_records: int
) -> None:
    options = GameOptions(KalahSettings(4, 1, time_ms=1000), first="client", opponent="client")
    server = new_server(options)
    for _round in range(3):
        async with connect(server, "ghost") as ghost:  # waits alone, then leaves
            await ghost.expect("WELCOME")
            await trio.sleep(1)
        async with connect(server, "A") as a:
            await a.expect("WELCOME")
            await trio.sleep(1)
            async with connect(server, "B") as b:
                await a.ready("INFO 4 1 1000 F S")
                await b.start("INFO 4 1 1000 S S")
                await a.expect("BEGIN")
                await a.send("4 3")
                await a.expect("OK")
                await b.expect("4 3")
            await a.expect("WINNER")  # B left
        assert server.lobby.waiting == ()
        assert count(PER_CONNECTION) == 0
    assert server.games_played == 3
    assert count(GameRecord) == len(server.records) == 3


async def test_the_games_limit_counts_past_the_records_kept(
    autojump_clock: trio.testing.MockClock, few_records: int
) -> None:
    server = new_server(GameOptions(KalahSettings(6, 4, time_ms=1000), first="client"))
    server.games_limit = few_records + 2
    for _ in range(few_records + 2):
        assert not server.all_done.is_set()
        await leave_after(server, 1)
    assert len(server.records) == few_records
    assert server.all_done.is_set()  # it once compared len(records), capped at RECORDS_KEPT
