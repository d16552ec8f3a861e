"""The UQChess server on sockets: `serve` (on `hub.core.io.serve.serve_lines`) and one client's
connection (`handle_connection`). Each connection's `Outbox` (`hub.core.io.outbox`) is one
writer task per client, so that several tasks (the client's own, its opponent's) can send
to it without interleaving; bounded (``--max-output``), and a client that stops reading
until the bound is reached is disconnected instead of stalling its opponent. A client that
is neither in a game nor waiting for one is dropped after ``--idle-timeout`` of silence."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import trio

from hub.chess.engine_client import EnginePool, EngineTerminated
from hub.core.io.limits import FD_RESERVE, ServerLimits, fit_open_files
from hub.core.io.lines import LineError, LineStream, LineTooLong, iter_lines
from hub.core.io.serve import Connection, ServerStats
from hub.core.io.serve import serve_lines as _serve_lines
from hub.core.model.bus import EventBus
from hub.games.uqchess.options import EXIT_ENGINE_DIED, MAX_ENGINES
from hub.games.uqchess.seats import Player
from hub.games.uqchess.service import ChessService

MAX_LINE = 1024
"""Longest client line accepted; a longer one is answered with ``error command``."""
DRAIN_TIMEOUT = 2.0


async def _read_commands(service: ChessService, player: Player, lines: LineStream) -> None:
    """Answer each line in turn until EOF (a broken transport raises `TransportFailed`)."""
    async for line in iter_lines(lines):
        # An over-long line is not a command: error command.
        await service.handle(player, "\n" if isinstance(line, LineTooLong) else line)


async def handle_connection(service: ChessService, connection: Connection) -> None:
    """One client: its commands in order, its replies through the connection's outbox (so
    that its opponent's moves reach it whatever it is doing); busy for the idle timeout
    while it plays or waits for an opponent."""
    outbox = connection.outbox
    player = service.connect(outbox.send, connection.number, outbox.drained, connection.peer)
    connection.busy = functools.partial(service.busy, player)
    try:
        try:
            await _read_commands(service, player, connection.lines)
        except LineError:
            pass  # EOF or a broken connection: the client has gone
        except EngineTerminated:
            await trio.sleep_forever()  # the server reports it to everyone and exits
        finally:
            with trio.CancelScope(shield=True):
                await service.disconnect(player)  # resigns at once
                if not service.failed:
                    with trio.move_on_after(DRAIN_TIMEOUT):
                        await outbox.drained()
    finally:
        with trio.CancelScope(shield=True):
            await service.disconnect(player)


def server_limits(limits: ServerLimits) -> ServerLimits:
    """``limits`` with as many connections as the open-file limit allows beside the engines
    (raised to the hard limit first)."""
    return fit_open_files(limits, reserve=FD_RESERVE + MAX_ENGINES * 3)


async def serve(
    listeners: Sequence[trio.SocketListener],
    pool: EnginePool,
    *,
    stats: ServerStats | None = None,
    events: EventBus | None = None,
    limits: ServerLimits | None = None,
    task_status: trio.TaskStatus[ChessService] = trio.TASK_STATUS_IGNORED,
) -> int:
    """Serve until cancelled (returns 0) or until an engine dies (returns 7), within
    ``limits`` (default: `ServerLimits`' defaults, lines of at most `MAX_LINE` bytes).

    ``pool`` must be started (`EnginePool.start`) but not running: this runs it.
    """
    async with trio.open_nursery() as nursery:
        service = ChessService(pool, nursery, events=events)

        async def run_engines(task_status: trio.TaskStatus[None]) -> None:
            try:
                await pool.run(task_status=task_status)
            except EngineTerminated:
                service.engine_failed()
                with trio.move_on_after(DRAIN_TIMEOUT):
                    await _drain_everyone(service)
                nursery.cancel_scope.cancel()

        async def handler(connection: Connection) -> None:
            await handle_connection(service, connection)

        await nursery.start(run_engines)
        await nursery.start(
            functools.partial(
                _serve_lines,
                handler,
                listeners,
                limits=server_limits(limits if limits is not None else ServerLimits()),
                max_line=MAX_LINE,
                stats=stats,
            )
        )
        task_status.started(service)
    return EXIT_ENGINE_DIED if service.failed else 0


async def _drain_everyone(service: ChessService) -> None:
    async with trio.open_nursery() as nursery:
        for player in list(service.players.values()):
            if player.drained is not None:
                nursery.start_soon(player.drained)
