"""hub.core.io.stdin: a threaded fd stream that loses nothing on cancel, and LineInput over it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.testing

from hub.core.io.stdin import (
    LineInput,
    ThreadedFdReceiveStream,
    ensure_standard_fds,
    open_line_input,
)

TIMEOUT = 30.0
"""Only bounds a hang (a thread on a loaded machine may start late); never a timing check."""


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


async def receive_all(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while chunk := await stream.receive_some():
        data += chunk
    return data


async def test_a_cancelled_receive_loses_no_data(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    stream = ThreadedFdReceiveStream(read_fd)
    with trio.fail_after(TIMEOUT):
        with trio.move_on_after(0.05) as scope:
            await stream.receive_some()  # the reader thread is now blocked in read()
        assert scope.cancelled_caught
        os.write(write_fd, b"typed after the cancel\n")
        # The bytes go to the next receive (a thread abandoned by the cancel would eat them).
        assert await stream.receive_some() == b"typed after the cancel\n"
        # Cancelled again and again, mid-way through a stream of writes: still nothing lost.
        expected = b""
        received = b""
        for number in range(20):
            line = f"line {number}\n".encode()
            expected += line
            os.write(write_fd, line)
            with trio.move_on_after(0.001 * (number % 3)):
                received += await stream.receive_some(3)
        os.close(write_fd)
        received += await receive_all(stream)
    assert received == expected
    await stream.aclose()


async def test_max_bytes_keeps_the_rest_for_the_next_receive(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    stream = ThreadedFdReceiveStream(read_fd)
    os.write(write_fd, b"abcdefgh")
    with trio.fail_after(TIMEOUT):
        assert await stream.receive_some(3) == b"abc"
        assert await stream.receive_some(3) == b"def"
        assert await stream.receive_some(100) == b"gh"


async def test_eof_is_sticky_and_closing_is_final(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    stream = ThreadedFdReceiveStream(read_fd)
    os.write(write_fd, b"last")
    os.close(write_fd)
    with trio.fail_after(TIMEOUT):
        assert await stream.receive_some() == b"last"
        assert await stream.receive_some() == b""
        assert await stream.receive_some() == b""
    await stream.aclose()
    with pytest.raises(trio.ClosedResourceError):
        await stream.receive_some()
    os.fstat(read_fd)  # the fd is not ours to close


async def test_one_receiver_at_a_time(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    stream = ThreadedFdReceiveStream(read_fd)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stream.receive_some)
            await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(trio.BusyResourceError):
                await stream.receive_some()
            os.write(write_fd, b"x")


async def test_closing_wakes_a_waiting_receive(pipe: tuple[int, int]) -> None:
    read_fd, _ = pipe
    stream = ThreadedFdReceiveStream(read_fd)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:

            async def receive() -> None:
                with pytest.raises(trio.ClosedResourceError):
                    await stream.receive_some()

            nursery.start_soon(receive)
            await trio.testing.wait_all_tasks_blocked()
            await stream.aclose()


async def test_a_read_error_is_a_broken_stream() -> None:
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    try:
        stream = ThreadedFdReceiveStream(write_fd)  # reading a pipe's write end: EBADF
        with trio.fail_after(TIMEOUT):
            for _ in range(2):
                with pytest.raises(trio.BrokenResourceError):
                    await stream.receive_some()
    finally:
        os.close(write_fd)


async def test_a_regular_file_and_bounded_read_ahead(tmp_path: Path) -> None:
    chunk, buffer, chunks = 1000, 2, 50
    content = bytes(number % 251 for number in range(chunk * chunks))
    path = tmp_path / "commands"
    path.write_bytes(content)
    fd = os.open(path, os.O_RDONLY)
    try:
        stream = ThreadedFdReceiveStream(fd, chunk=chunk, buffer=buffer)
        with trio.fail_after(TIMEOUT):
            first = await stream.receive_some()
            assert first == content[:chunk]
            # The thread reads ahead until the channel is full plus the chunk it holds, then
            # waits: the file offset tells how far it got.
            bound = chunk + (buffer + 1) * chunk
            while os.lseek(fd, 0, os.SEEK_CUR) < bound:
                await trio.sleep(0.01)  # the reading thread tells nobody: the offset is polled
            await trio.sleep(0.1)  # the behaviour under test: it reads no further meanwhile
            assert os.lseek(fd, 0, os.SEEK_CUR) == bound
            assert first + await receive_all(stream) == content
    finally:
        os.close(fd)


async def lines_of(data: bytes, max_line: int = 8) -> list[str | None]:
    send, receive = trio.testing.memory_stream_one_way_pair()
    await send.send_all(data)
    await send.aclose()
    lines = LineInput(receive, max_line)
    result: list[str | None] = []
    while (line := await lines.receive()) is not None:
        result.append(line)
    result.append(await lines.receive())
    return result


async def test_line_input_framing_and_limits() -> None:
    assert await lines_of(b"a\r\nb\n\nlast") == ["a", "b", "", "last", None]
    assert await lines_of(b"") == [None]
    # Over-long lines: the first max_line bytes count, the rest of the line is dropped.
    assert await lines_of(b"123456789abc\nok\n") == ["12345678", "ok", None]
    assert await lines_of(b"12345678\n123456789\n") == ["12345678", "12345678", None]
    assert await lines_of(b"123456789abc") == ["12345678", None]
    assert await lines_of(b"caf\xc3\xa9 \xff\n") == ["caf\u00e9 \ufffd", None]


async def test_line_input_cancelled_mid_line_loses_nothing() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    lines = LineInput(receive, 64)
    with trio.fail_after(TIMEOUT):
        await send.send_all(b"hel")
        with trio.move_on_after(0.05) as scope:
            await lines.receive()
        assert scope.cancelled_caught
        await send.send_all(b"lo\nworld\n")
        assert await lines.receive() == "hello"
        assert await lines.receive() == "world"


async def test_open_line_input_reads_an_fd(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    with trio.fail_after(TIMEOUT):
        async with open_line_input(read_fd, max_line=4) as keyboard:
            with trio.move_on_after(0.05):
                await keyboard.receive()  # a person who ran out of time
            os.write(write_fd, b"1\n23456\n3")
            os.close(write_fd)
            assert await keyboard.receive() == "1"
            assert await keyboard.receive() == "2345"
            assert await keyboard.receive() == "3"
            assert await keyboard.receive() is None
            assert await keyboard.receive() is None
    os.fstat(read_fd)


def test_ensure_standard_fds_leaves_open_fds_alone() -> None:
    before = [os.fstat(fd).st_ino for fd in (0, 1, 2)]
    ensure_standard_fds()
    assert [os.fstat(fd).st_ino for fd in (0, 1, 2)] == before
