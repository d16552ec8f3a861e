"""No crash, traceback or hang on any input: junk, binary bytes, huge lines, cut streams."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess

import pytest
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.core.commands.running import only_keyboard_interrupts
from hub.core.io.lines import LineStream
from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.events import MoveMade
from hub.games.chess.console import MAX_LINE, Console, ConsoleOptions, run
from tests.chess.helpers import TIMEOUT, console_transcript, run_program
from tests.conftest import program

FINAL = b"Final Score:\nWhite: 0\nBlack: 0\n"

WORDS = [
    "game", "move", "resign", "setup", "undo", "history", "hint", "help", "done", "+", "-",
    "=", "human", "computer1", "computer2", "computer3", "white", "black", "e2", "e4", "e7",
    "e8", "e1", "g1", "a7", "a8", "Q", "q", "n", "K", "k", "P", "Nf3", "O-O", "e8=Q", "x",
    "", "\x00", "\xff", "é",
]  # fmt: skip
"""Words that make valid, invalid and half-valid commands in every mode."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join), max_size=60))
def test_any_command_sequence_is_answered_without_an_exception(lines: list[str]) -> None:
    console = Console(ConsoleOptions(seed=0, nodes=200))
    for line in lines:
        out = console.handle(line)
        assert isinstance(out, list)
        assert all(isinstance(text, str) and "\n" not in text for text in out)
    final = console.finish()
    assert final[0] == "Final Score:"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghKQRBNPOo0-=x+#12345678@ ", max_size=9), max_size=20))
def test_any_move_text_is_a_move_or_a_message(texts: list[str]) -> None:
    console = Console(ConsoleOptions(seed=0))
    console.handle("game human human")
    for text in texts:
        out = console.handle(f"move {text}")
        assert out, text  # a board or a message, never silence or an exception
        if console.state is None or console.mode.value != "game":
            console.handle("game human human")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_binary_junk_is_answered_without_an_exception(data: bytes) -> None:
    out = console_transcript(data, ["--seed", "1", "--nodes", "200"])
    assert out.endswith(FINAL)


def test_junk_through_the_installed_program() -> None:
    junk = bytes(range(256)) + b"\n\x00\x00\n\xff\xfe move e2 e4\n" + os.urandom(2000)
    junk += b"\ngame human human\n\x1b[A\nmove e2 e4 \x00\n"
    result = run_program(["play", "chess"], junk)
    assert result.returncode == 0
    assert result.stderr == b""
    assert result.stdout.endswith(FINAL)
    assert b"Invalid command (type help for the commands).\n" in result.stdout


def test_a_line_too_long_is_refused_and_the_next_read() -> None:
    data = b"x" * (MAX_LINE * 5) + b"\ngame human human\n" + b"y" * (MAX_LINE + 1) + b"\n"
    result = run_program(["play", "chess"], data)
    lines = result.stdout.decode().splitlines()
    assert lines[0] == "Line too long."
    assert lines[1] == "8 rnbqkbnr"
    assert lines[11] == "Line too long."
    assert result.returncode == 0


def test_a_stream_cut_mid_game_and_mid_line() -> None:
    # The last line has no newline: it still counts (here: the mating move), then the score.
    data = b"game human human\nmove f2 f3\nmove e7 e5\nmove g2 g4\nmove d8 h4"
    result = run_program(["play", "chess"], data)
    assert result.stdout.endswith(b"Checkmate! Black wins!\nFinal Score:\nWhite: 0\nBlack: 1\n")
    cut = run_program(["play", "chess"], b"game human human\nmove e2 e4\nmove e7 e")
    usage = b"Usage: move from-square to-square [Q|R|B|N] (e.g. move e2 e4), or move Nf3\n"
    assert cut.stdout.endswith(usage + FINAL)
    assert (cut.returncode, cut.stderr) == (0, b"")


def test_a_reader_that_goes_away_causes_no_traceback() -> None:
    process = subprocess.Popen(
        [program("hub"), "play", "chess"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # nobody reads the boards
    _, err = process.communicate(b"game human human\n" + b"move e2 e4\nundo\n" * 2000, TIMEOUT)
    assert process.returncode == 0
    assert err == b""


def test_usage_errors() -> None:
    result = run_program(["play", "chess", "--bogus"], b"")
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr == (
        b"Usage: hub play chess [--classic] [--gui] [--seed N] [--movetime MS] [--nodes N]"
        b" [--db PATH] [--no-record]\n"
    )


def test_empty_input_prints_the_final_score() -> None:
    result = run_program(["play", "chess"], b"")
    assert (result.stdout, result.stderr, result.returncode) == (FINAL, b"", 0)


def test_ctrl_c_during_a_search_exits_130_without_a_traceback() -> None:
    # Deterministic: the signal is sent once the search has begun (the console says so on a
    # terminal's stderr: a pty here; the engine answers `go` with `info` lines at once), and
    # stdin stays open until the program has exited, so that the signal never races the end
    # of the input (which once let the program run on to exit 0: see tests/test_signals.py).
    for args, data, ready, final in (
        (
            ["play", "chess", "--movetime", "5000"],
            b"game computer4 human\nmove\n",
            b"is thinking...",
            b"Final Score:\nWhite: 0\nBlack: 0\n",
        ),
        (["engine"], b"go infinite\n", b"info", b""),
    ):
        controller, terminal = pty.openpty()
        process = subprocess.Popen(
            [program("hub"), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=terminal,
        )
        os.close(terminal)
        try:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(data)
            process.stdin.flush()
            shown = b""
            source = controller if args[0] == "play" else process.stdout.fileno()
            while ready not in shown:
                readable, _, _ = select.select([source], [], [], TIMEOUT)
                assert readable, f"{args}: no {ready!r} within {TIMEOUT} s"
                chunk = os.read(source, 4096)
                assert chunk, f"{args}: ended before {ready!r}"
                shown += chunk
            process.send_signal(signal.SIGINT)
            status = process.wait(TIMEOUT)
            err = _drain(controller)
            out = process.stdout.read()
            assert status == 130, (args, err.decode(errors="replace")[-4000:], out[-500:])
        finally:
            process.kill()
            process.wait()
            process.stdin.close()
            process.stdout.close()
            os.close(controller)
        assert b"Traceback" not in err, args
        assert out.endswith(final), args


def _drain(fd: int) -> bytes:
    """What a pty holds (its other end is closed: reading ends with EIO or b"")."""
    data = b""
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return data


async def test_an_interrupt_raised_in_a_games_task_still_prints_the_final_score() -> None:
    """trio raises a Ctrl-C in whichever task runs at that instant: in the command loop, or
    in a game's task (here: a listener of the game's events raises it as the first move is
    published). Either way the program ends with the final score, as at the end of input."""

    def interrupt(event: object) -> None:
        if isinstance(event, MoveMade):
            raise KeyboardInterrupt

    bus = EventBus()
    bus.listen(interrupt)
    ours, theirs = trio.testing.memory_stream_pair()
    read, write = os.pipe()
    out = Output(write)
    await ours.send_all(b"game human human\nmove e2 e4\n")  # and the input stays open
    with pytest.raises(BaseException) as raised:
        await run(ConsoleOptions(), LineStream(theirs, None), out, bus=bus)
    assert only_keyboard_interrupts(raised.value)
    out.flush()
    os.close(write)
    with os.fdopen(read, "rb") as printed:
        assert printed.read().endswith(FINAL)
