"""Shared test helpers: a server over memory streams, a scripted protocol client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import attrs
import trio
import trio.testing

from hub.core.io.lines import LineStream, PeerClosed
from hub.core.io.output import Output
from hub.core.play.threads import ThreadSeat
from hub.games.kalah.options import GameOptions
from hub.games.kalah.players import ai_seat, scripted_seat
from hub.games.kalah.protocol import parse_move
from hub.games.kalah.rules import KalahState, Move
from hub.games.kalah.seats import KalahSeat
from hub.games.kalah.server import GameSetup, KalahServer

DEADLOCK_SECONDS = 10**9


class RecordingOutput(Output):
    """An `Output` that keeps its lines instead of writing them."""

    def __init__(self) -> None:
        super().__init__(-1)
        self.lines: list[str] = []

    def flush(self) -> None:
        self.lines.extend("\n".join(self._pending).split("\n") if self._pending else [])
        self._pending.clear()


class Keys:
    """A `hub.core.io.stdin.LineInput` stand-in fed from a list (None once it is empty)."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    async def receive(self) -> str | None:
        await trio.sleep(0)
        return self.lines.pop(0) if self.lines else None


def quick_ai() -> ThreadSeat[KalahState, Move]:
    """An inline AI with a tiny node budget: instant in virtual time, deterministic."""
    return ai_seat(threaded=False, max_nodes=300)


def scripted(*moves: str, delays: list[float] | None = None) -> Callable[[GameSetup], KalahSeat]:
    def make(setup: GameSetup) -> KalahSeat:
        return scripted_seat(
            [parse_move(move, setup.state.holes) for move in moves],
            then=quick_ai(),
            delays=list(delays or []),
        )

    return make


@attrs.define(eq=False)
class ProtocolClient:
    """The client end of a conversation, with exact expectations."""

    lines: LineStream
    log: list[str] = attrs.Factory(list)

    async def send(self, line: str) -> None:
        await self.lines.send_line(line)

    async def send_raw(self, data: bytes) -> None:
        self.lines.queue_raw(data)
        await self.lines.flush()

    async def receive(self) -> str:
        line = await self.lines.receive_line()
        self.log.append(line)
        return line

    async def expect(self, *expected: str) -> None:
        for line in expected:
            got = await self.receive()
            assert got == line, f"expected {line!r}, got {got!r} after {self.log[:-1]}"

    async def expect_closed(self) -> None:
        try:
            line = await self.lines.receive_line()
        except PeerClosed:
            return
        raise AssertionError(f"expected the end of the stream, got {line!r}")

    async def start(self, info: str) -> None:
        """The handshake (``WELCOME``, ``info``, ``READY``) and then ``BEGIN``."""
        await self.expect("WELCOME")
        await self.ready(info)
        await self.expect("BEGIN")

    async def ready(self, info: str) -> None:
        await self.expect(info)
        await self.send("READY")


def new_server(
    options: GameOptions, make_player: Callable[[GameSetup], KalahSeat] | None = None
) -> KalahServer:
    return KalahServer(
        options, out=RecordingOutput(), make_player=make_player or (lambda _s: quick_ai())
    )


@asynccontextmanager
async def connect(server: KalahServer, peer: str = "test") -> AsyncIterator[ProtocolClient]:
    """A client connected to ``server`` over a memory stream pair (closed at the end)."""
    server_end, client_end = trio.testing.memory_stream_pair()
    server_lines = LineStream(server_end, server_end, max_line=server.max_line)

    async def serve_one() -> None:
        try:
            await server.serve_stream(server_lines, peer)
        finally:
            await trio.aclose_forcefully(server_end)

    # On the autojump clock a deadlocked test jumps straight to this deadline and fails.
    with trio.fail_after(DEADLOCK_SECONDS):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_one)
            yield ProtocolClient(LineStream(client_end, client_end, ignore_send_errors=True))
            await trio.aclose_forcefully(client_end)
