"""`serve_lines` against abusive clients: silent, a byte a second, never reading, storms.

Each test proves that the abuser is dropped (or refused) at the limit and that a
well-behaved client is still served afterwards. Time is trio's virtual clock (exact
deadlines); the per-address cap uses real loopback sockets from several 127.0.0.x sources.
"""

from __future__ import annotations

import argparse
import logging
import math

import pytest
import trio
import trio.testing

from hub.core.io.limits import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_PER_ADDRESS,
    ServerLimits,
    add_limit_options,
    limits_from_args,
    limits_from_values,
)
from hub.core.io.listen import bound_port, open_listeners
from hub.core.io.serve import Connection, Handler, ServerStats, serve_lines
from hub.core.io.serverlog import add_log_options, configure_logging, log_games, log_level_from_args
from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, GameRecord, GameStarted
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from tests.core.memory_listener import MemoryListener


async def echo(connection: Connection) -> None:
    """Answers each line with it in capitals; ``flood`` with 10,000 lines of 100 bytes."""
    while True:
        line = await connection.lines.receive_line()
        if line == "flood":
            for _ in range(10_000):
                connection.lines.queue_line("x" * 99)
            await connection.lines.flush()
        else:
            await connection.lines.send_line(line.upper() if line.isascii() else line)


async def read_line(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = await stream.receive_some(1)
        if not chunk:
            break
        data += chunk
    return data


async def closed(stream: trio.abc.ReceiveStream) -> bool:
    """True once the server has closed ``stream`` (anything it still sends is skipped)."""
    try:
        while await stream.receive_some(65536):
            pass
    except trio.BrokenResourceError:
        pass
    return True


async def still_served(listener: MemoryListener) -> None:
    client = await listener.connect()
    await client.send_all(b"still\n")
    assert await read_line(client) == b"STILL\n"
    await client.aclose()


async def serve(
    nursery: trio.Nursery, limits: ServerLimits | None = None, handler: Handler = echo
) -> tuple[MemoryListener, ServerStats]:
    """`serve_lines` of ``handler`` on a new memory listener, started in ``nursery``: the
    listener to connect to and the server's stats."""
    listener = MemoryListener()
    stats = ServerStats()
    await nursery.start(
        lambda task_status: serve_lines(
            handler, [listener], limits=limits, stats=stats, task_status=task_status
        )
    )
    return listener, stats


async def test_a_silent_client_is_dropped_after_the_idle_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, stats = await serve(nursery, ServerLimits(idle_timeout=10))
        silent = await listener.connect()
        talker = await listener.connect()
        await trio.sleep(9)
        await talker.send_all(b"hi\n")  # a complete line restarts its own timer only
        assert await read_line(talker) == b"HI\n"
        assert await closed(silent)
        assert trio.current_time() == 10
        assert stats.dropped_idle == 1
        await talker.send_all(b"again\n")
        assert await read_line(talker) == b"AGAIN\n"
        await still_served(listener)
        nursery.cancel_scope.cancel()


async def test_a_line_a_byte_a_second_does_not_keep_the_connection(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, stats = await serve(nursery, ServerLimits(idle_timeout=30))
        slow = await listener.connect()

        async def drip() -> None:
            for _ in range(1000):  # never a newline
                try:
                    await slow.send_all(b"a")
                except trio.BrokenResourceError:
                    return
                await trio.sleep(1)

        nursery.start_soon(drip)
        assert await closed(slow)
        assert trio.current_time() == 30  # bytes are not lines: the clock was never reset
        assert stats.dropped_idle == 1
        await still_served(listener)
        nursery.cancel_scope.cancel()


async def test_a_busy_client_is_not_idle(autojump_clock: trio.testing.MockClock) -> None:
    playing = True
    ended = trio.Event()

    async def in_a_game(connection: Connection) -> None:
        connection.busy = lambda: playing
        try:
            await echo(connection)
        finally:
            ended.set()

    async with trio.open_nursery() as nursery:
        listener, _ = await serve(nursery, ServerLimits(idle_timeout=10), handler=in_a_game)
        client = await listener.connect()
        await trio.sleep(95)  # thinking in a game with no clock: never dropped
        await client.send_all(b"move\n")
        assert await read_line(client) == b"MOVE\n"
        playing = False  # the game ends: the timer counts from the last line, looked at
        await ended.wait()  # at the next check (105 s), which finds it idle
        assert trio.current_time() == 105
        nursery.cancel_scope.cancel()


async def test_a_client_that_never_reads_is_dropped_once_its_output_passes_the_cap(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, stats = await serve(nursery, ServerLimits(max_output=100_000))
        deaf = await listener.connect_lockstep()  # the server's writes wait for its reads
        await deaf.send_all(b"flood\n")  # a million bytes asked for, none read
        with trio.fail_after(1):
            await still_served(listener)  # the flood's writer never blocked the server
        with trio.fail_after(60):
            while stats.active:
                await trio.sleep(1)
        assert stats.dropped_output == 1
        with pytest.raises((trio.BrokenResourceError, trio.ClosedResourceError)):
            for _ in range(10):
                await deaf.send_all(b"hello?\n")
        nursery.cancel_scope.cancel()


async def test_output_under_the_cap_reaches_a_slow_reader_in_full(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, _ = await serve(nursery, ServerLimits(max_output=2_000_000))
        slow = await listener.connect_lockstep()
        await slow.send_all(b"flood\n")
        received = 0
        while received < 1_000_000:
            received += len(await slow.receive_some(4096))
            await trio.sleep(0.001)  # the behaviour under test: a client that reads slowly
        assert received == 1_000_000
        nursery.cancel_scope.cancel()


async def test_junk_binary_nul_cr_and_over_long_lines_end_only_their_connection(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, _ = await serve(nursery, ServerLimits(max_line=64))
        client = await listener.connect()
        for junk in (b"\x00\x01\xff\xfe", b"a\rb\r", b"\x1b[2J", "é".encode()):
            await client.send_all(junk + b"\n")  # passed on as Latin-1 text
            expected = junk.upper() if junk.isascii() else junk
            assert await read_line(client) == expected + b"\n"
        await client.send_all(b"y" * 10_000)  # over the line limit, no newline
        assert await closed(client)
        await still_served(listener)
        nursery.cancel_scope.cancel()


async def test_a_half_closed_client_ends_its_handler(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        listener, stats = await serve(nursery)
        client = await listener.connect()
        await client.send_all(b"last words\n")
        await client.send_stream.aclose()  # EOF from the client; it still reads
        assert await read_line(client) == b"LAST WORDS\n"  # drained before the close
        assert await closed(client)
        assert stats.active == 0
        await still_served(listener)
        nursery.cancel_scope.cancel()


async def test_a_storm_from_one_address_meets_the_per_address_cap() -> None:
    """Real loopback sockets bound to 127.0.0.2 and 127.0.0.3 (all of 127/8 is loopback)."""
    with trio.fail_after(10):
        listeners = await open_listeners(0, host="127.0.0.1")
        port = bound_port(listeners)
        stats = ServerStats()
        limits = ServerLimits(max_connections=20, max_per_address=3)

        async def connect_from(source: str) -> trio.SocketStream:
            sock = trio.socket.socket()
            await sock.bind((source, 0))
            await sock.connect(("127.0.0.1", port))
            return trio.SocketStream(sock)

        async with trio.open_nursery() as nursery:
            await nursery.start(
                lambda task_status: serve_lines(
                    echo,
                    listeners,
                    limits=limits,
                    refuse_line="busy",
                    stats=stats,
                    task_status=task_status,
                )
            )
            storm = [await connect_from("127.0.0.2") for _ in range(8)]
            answers = []
            for stream in storm:
                await stream.send_all(b"hi\n")
                answers.append(await read_line(stream))
            assert answers.count(b"HI\n") == 3
            assert answers.count(b"busy\n") == 5
            assert stats.refused_address == 5
            other = await connect_from("127.0.0.3")
            await other.send_all(b"other\n")
            assert await read_line(other) == b"OTHER\n"
            assert stats.per_address == {"127.0.0.2": 3, "127.0.0.3": 1}
            for stream in [*storm, other]:
                await stream.aclose()
            while stats.active:  # each handler sees its client gone
                await trio.testing.wait_all_tasks_blocked()
            assert stats.per_address == {}  # nothing kept per address once they are gone
            again = await connect_from("127.0.0.2")
            await again.send_all(b"back\n")
            assert await read_line(again) == b"BACK\n"
            await again.aclose()
            nursery.cancel_scope.cancel()


def test_limit_options_defaults_and_validation() -> None:
    parser = argparse.ArgumentParser()
    add_limit_options(parser)
    add_log_options(parser)
    args = parser.parse_args([])
    assert limits_from_args(args) == ServerLimits()
    assert ServerLimits().max_connections == DEFAULT_MAX_CONNECTIONS >= 2048
    assert ServerLimits().max_per_address == DEFAULT_MAX_PER_ADDRESS >= 32
    assert ServerLimits().idle_timeout == DEFAULT_IDLE_TIMEOUT
    assert log_level_from_args(args) == "warning"
    args = parser.parse_args(
        [
            "--max-connections",
            "5",
            "--max-per-address",
            "0",
            "--max-line",
            "100",
            "--idle-timeout",
            "0",
            "--max-output",
            "4096",
            "-v",
        ]
    )
    assert limits_from_args(args) == ServerLimits(5, None, 100, None, 4096)
    assert log_level_from_args(args) == "info"
    assert log_level_from_args(parser.parse_args(["-v", "--log-level", "debug"])) == "debug"
    assert limits_from_values({"--idle-timeout": "2.5"}).idle_timeout == 2.5
    for option, bad in (
        ("--max-connections", "0"),
        ("--max-line", "10"),
        ("--idle-timeout", "nan"),
        ("--idle-timeout", "-1"),
        ("--max-output", "x"),
    ):
        with pytest.raises(ValueError):
            limits_from_values({option: bad})
        with pytest.raises(SystemExit):
            parser.parse_args([option, bad])


def record(players: tuple[str, str], winners: tuple[int, ...]) -> GameRecord:
    return GameRecord(
        game_id="0123456789abcdef",
        game="kalah",
        settings={},
        players=[PlayerInfo(name) for name in players],
        time_controls=["5 s/move", "5 s/move"],
        initial_state=None,
        moves=[],
        final_state=None,
        scores=(5, 3),
        winners=winners,
        termination=Termination.NORMAL,
        fault=None,
        started_at=0.0,
        ended_at=1.0,
        thinking=(0.0, 0.0),
    )


def test_no_game_log_listener_below_info() -> None:
    """At the default level (warning) nothing would be logged, so nothing listens: a game
    on that bus makes no event for it."""
    bus = EventBus()
    configure_logging("kalah", "warning")
    try:
        stop = log_games(bus)
        assert bus.subscribers == 0
        stop()
        configure_logging("kalah", "info")
        stop = log_games(bus)
        assert bus.subscribers == 1
        stop()
    finally:
        configure_logging("hub", "warning")


def test_logging_one_line_per_game_and_nothing_below_the_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bus = EventBus()
    configure_logging("kalah", "info")
    stop = log_games(bus)
    try:
        bus.publish(
            GameStarted(
                "0123456789abcdef",
                "kalah",
                {},
                [PlayerInfo("127.0.0.1:5000"), PlayerInfo("AI")],
                [],
                None,
                0,
                0.0,
            )
        )
        bus.publish(GameEnded("0123456789abcdef", record(("127.0.0.1:5000", "AI"), (0,)), 1.0))
        logging.getLogger("hub.serve").debug("not shown at info")
        configure_logging("kalah", "warning")
        bus.publish(GameEnded("0123456789abcdef", record(("a", "b"), (0, 1)), 1.0))
        configure_logging("uqchess", None)  # a spec-fixed program: nothing at all
        logging.getLogger("hub.serve").error("not shown either")
    finally:
        stop()
        configure_logging("hub", "warning")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].endswith(" kalah: game 01234567 started: 127.0.0.1:5000 vs AI")
    assert lines[1].endswith(
        " kalah: game 01234567 ended: 127.0.0.1:5000 vs AI: 127.0.0.1:5000 won 5-3, 0 moves"
    )
    date, time, _ = lines[0].split(" ", 2)
    assert len(date) == 10 and len(time) == 8 and not math.isnan(float(time.replace(":", "")))
