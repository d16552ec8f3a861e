"""The example game of docs/architecture.md plays through the core over memory streams,
TCP and pipes, and its rules pass the referee conformance suite."""

from __future__ import annotations

import random
import sys

import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.io.listen import bound_port, open_listeners
from hub.core.io.process import ChildProcess, stop_all
from hub.core.io.serve import Connection, serve_lines
from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded
from hub.core.model.referee import Termination
from hub.testing import check_game
from tests.examples.tictactoe import PLAYER, Board, TicTacToe, play


def test_rules_pass_the_conformance_suite() -> None:
    def make(rng: random.Random) -> tuple[TicTacToe, Board]:
        return TicTacToe(), Board()

    check_game(make)


async def first_free(lines: LineStream) -> list[str]:
    """A client that takes the first free cell; returns every line it heard."""
    heard = []
    while True:
        line = await lines.receive_line()
        heard.append(line)
        if line.startswith("go "):
            await lines.send_line(str(line[3:].index(".")))
        if line.startswith("result"):
            return heard


async def test_over_memory_streams() -> None:
    hub_ends, client_ends = [], []
    for _ in range(2):
        a, b = trio.testing.memory_stream_pair()
        hub_ends.append(LineStream(a, a))
        client_ends.append(LineStream(b, b))
    heard: list[list[str]] = [[], []]
    async with trio.open_nursery() as nursery:
        for index in range(2):

            async def client(index: int = index) -> None:
                heard[index] = await first_free(client_ends[index])

            nursery.start_soon(client)
        result = await play(hub_ends, ["x", "o"])
    assert result.outcome.winners == {0}  # X takes 0, 2, 4, 6: the diagonal
    assert result.record.final_state == "XOXOXOX.."
    assert heard[0][:2] == ["you X", "go ........."]
    assert heard[1][-1] == "result loss"


async def test_a_garbage_move_loses_as_malformed() -> None:
    a, b = trio.testing.memory_stream_pair()
    c, d = trio.testing.memory_stream_pair()
    bad = LineStream(b, b)
    async with trio.open_nursery() as nursery:

        async def garbage() -> None:
            await bad.receive_line()
            await bad.send_line("centre please")

        nursery.start_soon(garbage)
        nursery.start_soon(first_free, LineStream(d, d))
        result = await play([LineStream(a, a), LineStream(c, c)], ["bad", "good"])
    assert result.fault is not None
    assert (result.fault.seat, result.termination) == (0, Termination.MALFORMED)


async def test_over_tcp() -> None:
    bus = EventBus()
    ended: list[GameEnded] = []
    bus.listen(lambda event: ended.append(event) if isinstance(event, GameEnded) else None)
    waiting: list[Connection] = []
    pair_ready = trio.Event()
    game_done = trio.Event()

    async def handler(connection: Connection) -> None:
        waiting.append(connection)
        if len(waiting) == 2:
            pair_ready.set()
        await game_done.wait()

    with trio.fail_after(10):
        listeners = await open_listeners(0)
        port = bound_port(listeners)
        async with trio.open_nursery() as nursery:
            await nursery.start(serve_lines, handler, listeners)
            for _ in range(2):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                nursery.start_soon(first_free, LineStream(stream, stream))
            await pair_ready.wait()
            await play([c.lines for c in waiting], ["one", "two"], events=bus)
            game_done.set()
            nursery.cancel_scope.cancel()
    assert ended[0].record.winners == (0,)
    assert ended[0].record.game == "tictactoe"


async def test_over_pipes() -> None:
    children = [await ChildProcess.spawn([sys.executable, "-c", PLAYER]) for _ in range(2)]
    try:
        with trio.fail_after(20):
            result = await play([child.lines for child in children], ["p1", "p2"])
    finally:
        for child in children:
            await child.close_stdin()
        statuses = await stop_all(children, grace=5)
    assert result.outcome.winners == {0}
    assert [len(result.moves), result.record.moves[-1].move] == [7, "6"]
    assert all(status.clean for status in statuses)
