"""The UQChess server against abusive clients: `handle_connection` on `serve_lines` over a
memory listener, a fake engine, the virtual clock. Silent and byte-a-second clients are
dropped after the idle timeout unless in a game; a client that never reads is dropped once
its output passes the cap while its opponent goes on; junk, NUL, CR and over-long lines
are ``error command``; half-closed sockets at every point. After each, a well-behaved
client is still served."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing

from hub.core.io.limits import ServerLimits
from hub.core.io.lines import LineStream, PeerClosed
from hub.core.io.serve import Connection, ServerStats, serve_lines
from hub.games.uqchess.service import ChessService
from hub.games.uqchess.sockets import MAX_LINE, handle_connection
from tests.core.memory_listener import MemoryListener
from tests.uqchess.test_service import FakeEngine

IDLE = 60.0


@asynccontextmanager
async def serving(
    limits: ServerLimits | None = None,
) -> AsyncIterator[tuple[MemoryListener, ServerStats, ChessService]]:
    listener = MemoryListener()
    stats = ServerStats()
    with trio.fail_after(10**6):  # a deadlock jumps here on the virtual clock and fails
        async with trio.open_nursery() as nursery:
            service = ChessService(FakeEngine(), nursery)

            async def handler(connection: Connection) -> None:
                await handle_connection(service, connection)

            await nursery.start(
                lambda task_status: serve_lines(
                    handler,
                    [listener],
                    limits=limits or ServerLimits(idle_timeout=IDLE),
                    max_line=MAX_LINE,
                    stats=stats,
                    task_status=task_status,
                )
            )
            yield listener, stats, service
            nursery.cancel_scope.cancel()


class Talker:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.lines = LineStream(stream, stream, max_line=1 << 20)

    async def ask(self, line: str, *expected: str) -> None:
        await self.lines.send_line(line)
        for want in expected:
            assert await self.lines.receive_line() == want

    async def closed(self) -> bool:
        try:
            while True:
                await self.lines.receive_line()
        except PeerClosed:
            return True


async def talker(listener: MemoryListener) -> Talker:
    return Talker(await listener.connect())


async def still_served(listener: MemoryListener) -> None:
    """A well-behaved client plays a move against the computer."""
    good = await talker(listener)
    await good.ask("start computer white", "started white")
    await good.ask("move e2e4", "ok", "moved g8h6")  # the fake engine's first legal move
    await good.stream.aclose()


async def test_silent_and_byte_a_second_clients_are_dropped_after_the_idle_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with serving() as (listener, stats, _service):
        silent = await talker(listener)
        drip = await talker(listener)

        async def dripping() -> None:
            for byte in b"board" * 20:  # never a newline
                try:
                    await drip.stream.send_all(bytes([byte]))
                except trio.BrokenResourceError:
                    return  # dropped
                await trio.sleep(1)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(dripping)
            assert await silent.closed()
            assert trio.current_time() == IDLE
            assert await drip.closed()
            assert trio.current_time() == IDLE  # the same: bytes are not lines
        assert stats.dropped_idle == 2
        await still_served(listener)


async def test_a_client_in_a_game_or_waiting_is_not_idle(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with serving() as (listener, stats, _service):
        player = await talker(listener)
        await player.ask("start computer white", "started white")
        waiter = await talker(listener)
        await waiter.ask("start human black")  # waits for an opponent
        await trio.sleep(10 * IDLE)
        assert stats.dropped_idle == 0
        await player.ask("move e2e4", "ok", "moved g8h6")  # still there, thinking is allowed
        await player.ask("resign", "gameover resignation black")  # the game is over now
        assert await player.closed()  # dropped a timeout after its last line
        assert stats.dropped_idle == 1
        opponent = await talker(listener)
        await opponent.ask("start human white", "started white")
        assert await waiter.lines.receive_line() == "started black"


async def test_a_client_that_never_reads_is_dropped_and_its_opponent_goes_on(
    autojump_clock: trio.testing.MockClock,
) -> None:
    limits = ServerLimits(idle_timeout=IDLE, max_output=4096)
    async with serving(limits) as (listener, stats, _service):
        reader = await talker(listener)
        await reader.ask("start human white")
        deaf = await listener.connect_lockstep()  # what the server writes to it waits
        await deaf.send_all(b"start human black\n")
        assert await reader.lines.receive_line() == "started white"
        for _ in range(10):  # ~8 KB of boards it never reads
            try:
                await deaf.send_all(b"board\n")
            except trio.BrokenResourceError:
                break  # dropped already
        with trio.fail_after(5):
            while not stats.dropped_output:
                await trio.sleep(0.1)
        # Its leaving resigns the game; the reader hears it at once.
        assert await reader.lines.receive_line() == "gameover resignation white"
        await still_served(listener)


async def test_junk_nul_cr_binary_and_over_long_lines_are_error_command(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with serving() as (listener, _stats, _service):
        abuser = await talker(listener)
        for junk in (b"\x00", b"board\x00", b"\xff\xfe\xfd", b"board\r", b"\x1b[2J", b"   "):
            await abuser.stream.send_all(junk + b"\n")
            assert await abuser.lines.receive_line() == "error command"
        await abuser.stream.send_all(b"m" * (MAX_LINE * 50) + b"\n")
        assert await abuser.lines.receive_line() == "error command"
        await abuser.ask("board", "error game")  # the same connection still answers
        await still_served(listener)


async def test_half_closed_at_every_point_of_a_game(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with serving() as (listener, stats, service):
        early = await talker(listener)  # before saying anything
        await early.stream.send_eof()  # type: ignore[attr-defined]
        assert await early.closed()
        lobby = await talker(listener)  # waiting for an opponent
        await lobby.ask("start human white")
        await lobby.stream.send_eof()  # type: ignore[attr-defined]
        assert await lobby.closed()
        white = await talker(listener)  # mid-game against a human
        await white.ask("start human white")
        black = await talker(listener)
        await black.ask("start human black", "started black")
        assert await white.lines.receive_line() == "started white"
        await white.ask("move e2e4", "ok")
        await white.stream.send_eof()  # type: ignore[attr-defined]
        assert await white.closed()
        assert await black.lines.receive_line() == "moved e2e4"
        assert await black.lines.receive_line() == "gameover resignation black"
        await black.ask("board", "startboard")  # the last game's board is kept for it
        after = await talker(listener)  # after its game ended
        await after.ask("start computer white", "started white")
        await after.ask("resign", "gameover resignation black")
        await after.stream.send_eof()  # type: ignore[attr-defined]
        assert await after.closed()
        await black.stream.aclose()
        await still_served(listener)
        while stats.active:
            await trio.sleep(1)
        assert service.players == {}
        assert service.lobby.waiting == ()
