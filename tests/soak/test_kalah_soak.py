"""Soak (issue 11): connect/play/disconnect cycles against ``hub serve kalah`` leave the
server's resident memory where it was after a warm-up.

A cycle is one client: the handshake, then random legal moves (seeded by the cycle's
number), either to the end of the game (one cycle in three) or for three of its turns,
after which it disconnects mid-game; 8 cycles run at once. The server keeps the records of
its last `RECORDS_KEPT` (100) games (docs/kalah.md), so both runs warm up past filling
that deque and replacing it (the short run with 400 cycles, the long one with 2,000: the
allocator is still settling early on, RSS growing by half as much with each doubling of
cycles, see docs/reliability.md) and then allow 5%, plus the records a run adds while the
deque is still filling (at most 20 KiB each, docs/kalah.md's bound)."""

from __future__ import annotations

import random
import time

import pytest
import trio

from hub.core.io.lines import LineStream
from hub.games.kalah.protocol import format_move, parse_info, parse_move
from hub.games.kalah.rules import legal_moves, new_game, play
from hub.games.kalah.server import RECORDS_KEPT
from tests.conftest import program
from tests.soak.helpers import Sources, report, run_cycles, server, settled_rss, size, sockets

pytestmark = pytest.mark.soak

AT_ONCE = 8
RECORD_KIB = 20


async def one_cycle(sources: Sources, port: int, number: int) -> None:
    rng = random.Random(number)
    turns = None if number % 3 == 0 else 3
    stream = await sources.connect(port)
    async with stream:
        lines = LineStream(stream, stream)
        assert await lines.receive_line() == "WELCOME"
        info = parse_info(await lines.receive_line())
        await lines.send_line("READY")
        assert await lines.receive_line() == "BEGIN"
        state = new_game(info.holes, info.seeds)
        me = 0 if info.first else 1
        while not state.over:
            if state.mover == me:
                if turns is not None:
                    if turns == 0:
                        return  # gone mid-game
                    turns -= 1
                move = rng.choice(legal_moves(state))
                await lines.send_line(format_move(move))
                assert await lines.receive_line() == "OK"
                state = play(state, move)
            else:
                state = play(state, parse_move(await lines.receive_line(), info.holes))
                if not state.over:
                    await lines.send_line("OK")
        assert await lines.receive_line() in ("WINNER", "LOSER", "TIE")


async def cycles(port: int, count: int, first: int) -> None:
    sources = Sources()

    async def one(number: int) -> None:
        await one_cycle(sources, port, number)

    await run_cycles(one, count, first, AT_ONCE)


def test_kalah_cycles_return_memory_to_baseline() -> None:
    warm_up, count = size(4 * RECORDS_KEPT, 2000), size(200, 10_000)
    argv = [program("hub"), "serve", "kalah", "--no-record", "--level", "1", "--seed", "1"]
    with server(argv) as (process, port):
        idle = sockets(process.pid)
        trio.run(cycles, port, warm_up, 0)
        baseline = settled_rss(process.pid, idle)
        began = time.monotonic()
        trio.run(cycles, port, count, warm_up)
        seconds = time.monotonic() - began
        after = settled_rss(process.pid, idle)
    records_added = max(0, min(RECORDS_KEPT, warm_up + count) - warm_up)
    allowed = baseline * 1.05 + records_added * RECORD_KIB
    report(
        f"kalah: {count} cycles in {seconds:.0f} s ({count / seconds:.0f}/s), VmRSS "
        f"{baseline} KiB after {warm_up} of warm-up, {after} KiB after"
        f" ({100 * (after - baseline) / baseline:+.1f}%; allowed {allowed:.0f} KiB)"
    )
    assert after <= allowed, (baseline, after, allowed)
