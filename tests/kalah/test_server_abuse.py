"""``hub serve kalah`` against abusive clients, through `serve_lines` (memory listener,
virtual clock): silent, a byte a second, never reading, junk, over-long lines, half-closed
at every point of a game. After each, a well-behaved client still plays a whole game."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.io.serve import ServerStats, serve_lines
from hub.core.model.referee import Termination
from hub.games.kalah.options import HANDSHAKE_SECONDS, GameOptions
from hub.games.kalah.server import KalahServer
from hub.games.kalah.settings import KalahSettings
from tests.core.memory_listener import MemoryListener
from tests.kalah.helpers import ProtocolClient, new_server, scripted

EX1 = GameOptions(KalahSettings(4, 1, pie=True, time_ms=5000), first="client")
PAIRS = GameOptions(KalahSettings(4, 1, time_ms=1000), first="client", opponent="client")


@asynccontextmanager
async def serving(server: KalahServer) -> AsyncIterator[tuple[MemoryListener, ServerStats]]:
    listener = MemoryListener()
    stats = ServerStats()
    with trio.fail_after(10**6):  # a deadlock jumps here on the virtual clock and fails
        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: serve_lines(
                    server.handle,
                    [listener],
                    limits=server.limits,
                    max_line=server.max_line,
                    stats=stats,
                    task_status=task_status,
                )
            )
            yield listener, stats
            nursery.cancel_scope.cancel()


async def client(listener: MemoryListener) -> ProtocolClient:
    stream = await listener.connect()
    return ProtocolClient(LineStream(stream, stream, ignore_send_errors=True))


async def plays_worked_example_1(listener: MemoryListener) -> None:
    """A well-behaved client: the spec's first example against the scripted server."""
    good = await client(listener)
    await good.start("INFO 4 1 5000 F S")
    await good.send("4 3")
    await good.expect("OK", "P")
    await good.send("OK")
    await good.send("4 3")
    await good.expect("OK", "2", "LOSER")
    await good.expect_closed()


async def test_a_silent_client_is_dropped_at_the_handshake_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with serving(server) as (listener, _stats):
        silent = await client(listener)
        await silent.expect("WELCOME", "INFO 4 1 5000 F S")
        await silent.expect_closed()
        assert trio.current_time() == HANDSHAKE_SECONDS
        await plays_worked_example_1(listener)
    assert [record.termination for _n, record in server.records] == [Termination.NORMAL]


async def test_a_ready_sent_a_byte_a_second_meets_the_same_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with serving(server) as (listener, _stats):
        stream = await listener.connect()
        slow = ProtocolClient(LineStream(stream, stream, ignore_send_errors=True))
        await slow.expect("WELCOME", "INFO 4 1 5000 F S")
        for byte in b"READY"[:4] * 10:  # never a whole line
            await slow.send_raw(bytes([byte]))
            await trio.sleep(1)
        await slow.expect_closed()
        assert trio.current_time() == 40  # closed at 30 s; the drip stopped at 40
        await plays_worked_example_1(listener)


async def test_junk_binary_nul_and_over_long_moves_lose_and_the_server_goes_on(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with serving(server) as (listener, _stats):
        for junk in (b"\x00", b"\xff\xfe binary", b"4\x003", b"\r\r", b"x" * 100_000):
            abuser = await client(listener)
            await abuser.start("INFO 4 1 5000 F S")
            await abuser.send_raw(junk + b"\n")
            *_, last = [line async for line in lines_until_closed(abuser)]
            assert last == "LOSER"
        await plays_worked_example_1(listener)
    terminations = [record.termination for _n, record in server.records]
    assert terminations[-1] == Termination.NORMAL
    assert set(terminations[:-1]) <= {Termination.ILLEGAL_MOVE, Termination.MALFORMED}


async def lines_until_closed(talker: ProtocolClient) -> AsyncIterator[str]:
    while True:
        try:
            yield await talker.receive()
        except Exception:
            return


async def test_a_partner_that_never_reads_does_not_stall_the_other_client(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(PAIRS)
    async with serving(server) as (listener, _stats):
        reader = await client(listener)
        await reader.expect("WELCOME")
        deaf = await listener.connect_lockstep()  # the server's writes to it never complete
        await deaf.send_all(b"READY\n")
        await reader.ready("INFO 4 1 1000 F S")
        await reader.expect("BEGIN")
        await reader.send("4 3")
        # The deaf client never sees the move, so never acknowledges it: it loses on time.
        await reader.expect("OK", "TIME", "WINNER")
        await reader.expect_closed()
        assert trio.current_time() < 5
    (record,) = [record for _n, record in server.records]
    assert record.winners == (0,)
    assert record.termination == Termination.TIMEOUT


async def test_half_closed_at_every_point_of_a_game(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(EX1, scripted("P", "2"))
    async with serving(server) as (listener, stats):
        before = await client(listener)  # EOF before the handshake
        await before.lines._send.send_eof()  # type: ignore[union-attr]
        await before.expect("WELCOME", "INFO 4 1 5000 F S")
        await before.expect_closed()
        mid = await client(listener)  # EOF mid-game, after its first move
        await mid.start("INFO 4 1 5000 F S")
        await mid.send("4 3")
        await mid.expect("OK", "P")
        await mid.lines._send.send_eof()  # type: ignore[union-attr]
        assert [line async for line in lines_until_closed(mid)] == []  # it has gone: it lost
        after = await client(listener)  # EOF after the end: the OK the server ignores
        await after.start("INFO 4 1 5000 F S")
        await after.send("4 3")
        await after.expect("OK", "P")
        await after.send("OK")
        await after.send("4 3")
        await after.expect("OK", "2", "LOSER")
        await after.send("OK")
        await after.lines._send.send_eof()  # type: ignore[union-attr]
        await after.expect_closed()
        await plays_worked_example_1(listener)
        while stats.active:
            await trio.sleep(1)
    terminations = [record.termination for _n, record in server.records]
    assert terminations == [Termination.DISCONNECT, Termination.NORMAL, Termination.NORMAL]


async def test_a_client_that_leaves_the_lobby_half_closed_is_not_paired(
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = new_server(PAIRS)
    async with serving(server) as (listener, _stats):
        leaver = await client(listener)
        await leaver.expect("WELCOME")
        await leaver.lines._send.send_eof()  # type: ignore[union-attr]
        await leaver.expect_closed()
        first = await client(listener)
        await first.expect("WELCOME")
        await trio.sleep(1)  # first in the lobby
        second = await client(listener)
        await second.expect("WELCOME")
        await first.ready("INFO 4 1 1000 F S")
        await second.ready("INFO 4 1 1000 S S")
        await first.expect("BEGIN")
        await second.expect("BEGIN")
