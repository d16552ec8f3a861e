"""LineStream over memory streams: framing, limits, EOF and failed writes."""

from __future__ import annotations

import os

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.core.io.lines import LineStream, LineTooLong, PeerClosed, TransportFailed, iter_lines


def pair(max_line: int = 64, **kwargs: bool) -> tuple[LineStream, trio.testing.MemorySendStream]:
    send, receive = trio.testing.memory_stream_one_way_pair()
    return LineStream(receive, None, max_line=max_line, **kwargs), send


async def test_lines_split_across_chunks() -> None:
    lines, send = pair()
    await send.send_all(b"hel")
    async with trio.open_nursery() as nursery:
        results: list[str] = []

        async def read() -> None:
            results.append(await lines.receive_line())
            results.append(await lines.receive_line())

        nursery.start_soon(read)
        await trio.testing.wait_all_tasks_blocked()
        await send.send_all(b"lo\nwor")
        await send.send_all(b"ld\n")
    assert results == ["hello", "world"]


async def test_eof_with_and_without_partial_line() -> None:
    lines, send = pair()
    await send.send_all(b"a\nhalf")
    await send.aclose()
    assert await lines.receive_line() == "a"
    with pytest.raises(PeerClosed) as caught:
        await lines.receive_line()
    assert caught.value.partial == b"half"
    with pytest.raises(PeerClosed) as again:
        await lines.receive_line()
    assert again.value.partial == b""


async def test_too_long_with_and_without_newline() -> None:
    lines, send = pair(max_line=5)
    await send.send_all(b"12345\n123456\nok\n")
    assert await lines.receive_line() == "12345"
    with pytest.raises(LineTooLong):
        await lines.receive_line()
    assert await lines.receive_line() == "ok"  # the long line was dropped whole
    await send.send_all(b"x" * 100)
    with pytest.raises(LineTooLong):
        await lines.receive_line()
    await send.send_all(b"yyy\nnext\n")
    await lines.skip_line()
    assert await lines.receive_line() == "next"


async def test_per_call_limit_and_latin1() -> None:
    lines, send = pair(max_line=100)
    await send.send_all(b"abcd\n\xff\x00\n")
    with pytest.raises(LineTooLong):
        await lines.receive_line(max_line=3)
    assert await lines.receive_line() == "\xff\x00"


async def test_receive_exactly_then_lines() -> None:
    lines, send = pair()
    await send.send_all(b"-2D\n")
    assert await lines.receive_exactly(1) == b"-"
    assert await lines.receive_line() == "2D"
    await send.aclose()
    with pytest.raises(PeerClosed):
        await lines.receive_exactly(1)


async def test_queue_and_flush_batch_into_one_write(autojump_clock: trio.testing.MockClock) -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    lines = LineStream(None, send)
    lines.queue_line("one")
    lines.queue_line("two")
    with trio.move_on_after(0.01) as nothing_yet:
        await receive.receive_some(100)
    assert nothing_yet.cancelled_caught  # queued lines wait for flush
    await lines.flush()
    assert await receive.receive_some(100) == b"one\ntwo\n"


async def test_failed_writes_raise_or_are_ignored() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    await receive.aclose()
    strict = LineStream(None, send)
    with pytest.raises(TransportFailed):
        await strict.send_line("x")
    lenient = LineStream(None, send, ignore_send_errors=True)
    await lenient.send_line("x")
    await lenient.send_line("y")
    assert lenient.send_failed


async def test_broken_receive_is_a_transport_failure() -> None:
    _send, receive = trio.testing.memory_stream_one_way_pair()
    lines = LineStream(receive, None)
    await receive.aclose()
    with pytest.raises(TransportFailed):
        await lines.receive_line()


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.binary(max_size=20).filter(lambda b: b"\n" not in b), max_size=10),
    st.integers(min_value=1, max_value=7),
)
def test_any_chunking_gives_the_same_lines(lines_in: list[bytes], chunk: int) -> None:
    data = b"".join(line + b"\n" for line in lines_in)

    async def main() -> list[str]:
        send, receive = trio.testing.memory_stream_one_way_pair()
        stream = LineStream(receive, None, max_line=64, chunk=chunk)
        await send.send_all(data)
        await send.aclose()
        got = []
        for _ in lines_in:
            got.append(await stream.receive_line())
        with pytest.raises(PeerClosed):
            await stream.receive_line()
        return got

    assert trio.run(main) == [line.decode("latin-1") for line in lines_in]


# -- iter_lines ----------------------------------------------------------------------------


async def collect(stream: LineStream, **kwargs: bool) -> list[str | int]:
    """The items of `iter_lines`, an over-long line shown as its limit."""
    return [
        item.max_line if isinstance(item, LineTooLong) else item
        async for item in iter_lines(stream, **kwargs)
    ]


async def test_iter_lines_skips_an_over_long_line_whole_and_reports_it_once() -> None:
    lines, send = pair(max_line=5, chunk=4)
    await send.send_all(b"ok\n" + b"x" * 40 + b"\n123456\nlast\nhalf")
    await send.aclose()
    # 40 x's overflow before their newline arrives (skipped), 123456 is dropped whole.
    assert await collect(lines) == ["ok", 5, 5, "last"]


async def test_iter_lines_final_partial_line() -> None:
    lines, send = pair()
    await send.send_all(b"a\nhalf")
    await send.aclose()
    assert await collect(lines, final_partial=True) == ["a", "half"]
    lines, send = pair()
    await send.send_all(b"a\n")
    await send.aclose()
    assert await collect(lines, final_partial=True) == ["a"]


async def test_iter_lines_an_over_long_line_cut_by_the_end_is_not_reported() -> None:
    lines, send = pair(max_line=5, chunk=4)
    await send.send_all(b"ok\n" + b"y" * 40)
    await send.aclose()
    assert await collect(lines, final_partial=True) == ["ok"]


async def test_iter_lines_waits_for_the_rest_of_an_over_long_line() -> None:
    lines, send = pair(max_line=5)
    got: list[str | LineTooLong] = []
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            async for item in iter_lines(lines):
                got.append(item)

        nursery.start_soon(read)
        await send.send_all(b"z" * 10)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # reported only once the whole line is gone
        await send.send_all(b"zz\nnext\n")
        await trio.testing.wait_all_tasks_blocked()
        assert [type(item) for item in got] == [LineTooLong, str] and got[1] == "next"
        await send.aclose()
    assert len(got) == 2


async def test_iter_lines_ends_once_and_lets_transport_failures_through() -> None:
    lines, send = pair()
    await send.aclose()
    iterator = iter_lines(lines)
    assert [item async for item in iterator] == []
    with pytest.raises(StopAsyncIteration):
        await iterator.__anext__()
    _send, receive = trio.testing.memory_stream_one_way_pair()
    await receive.aclose()
    with pytest.raises(TransportFailed):
        await collect(LineStream(receive, None))


async def test_flush_eagerly_writes_to_a_pipe_at_once_and_leaves_the_rest_to_flush() -> None:
    """An engine's ``go`` (hub.chess.engine_client): written to the pipe without a trip
    through the scheduler; what the pipe has no room for is written once the reader reads,
    and a pipe whose reader has gone is a failed send, as with `LineStream.flush`."""
    read_end, write_end = os.pipe()
    reader = trio.lowlevel.FdStream(read_end)
    lines = LineStream(reader, trio.lowlevel.FdStream(write_end), max_line=1 << 20)
    lines.queue_line("position startpos")
    lines.queue_line("go wtime 1000 btime 1000")
    await lines.flush_eagerly()
    assert await lines.receive_line() == "position startpos"
    assert await lines.receive_line() == "go wtime 1000 btime 1000"

    big = "x" * 100_000  # more than a pipe holds
    lines.queue_line(big)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lines.flush_eagerly)
        assert await lines.receive_line() == big
    await reader.aclose()
    failing = LineStream(None, lines._send, ignore_send_errors=True)
    failing.queue_line("quit")
    await failing.flush_eagerly()
    assert failing.send_failed
    strict = LineStream(None, lines._send)
    strict.queue_line("quit")
    with pytest.raises(TransportFailed):
        await strict.flush_eagerly()
    await lines.aclose()
