"""End-to-end tests of the installed ``clubber`` (clubs.md): exit table and stderr reports.

Hub messages are fed on stdin; stdout, stderr and the exit status are compared byte for
byte. Expected reports come from the independent reference in `tests.clubs.helpers`.
"""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.clubs.helpers import SPEC_EXAMPLE, clubber, finish, lines_bytes, simulate_file, start
from tests.conftest import program

pytestmark = pytest.mark.e2e

USAGE = b"Usage: player number_of_players myid\n"
LOST = b"Unexpected loss of hub\n"
BAD = b"Bad message from hub\n"

SPEC = simulate_file(SPEC_EXAMPLE / "one-sorted-deck.decks", 2, 10).players[0]
"""Player A of the worked example: its messages, plays and reports."""
NEWROUND = SPEC.stdin[0]
"""``newround 2S,4S,...``: A's 26 cards."""


# -- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["2"], ["2", "A", "x"], ["2", "A", ""]], ids=repr)
def test_usage(args: list[str]) -> None:
    assert clubber(*args).triple() == (1, b"", USAGE)


@pytest.mark.parametrize("count", ["1", "5", "0", "3biscuit", "", "2 ", " 2", "+2", "-2", "two"])
def test_invalid_player_count(count: str) -> None:
    assert clubber(count, "A").triple() == (2, b"", b"Invalid player count\n")


@pytest.mark.parametrize(
    ("count", "label"),
    [("2", "C"), ("2", "a"), ("2", "AB"), ("2", ""), ("3", "D"), ("4", "E"), ("2", " A")],
)
def test_invalid_player_id(count: str, label: str) -> None:
    assert clubber(count, label).triple() == (3, b"", b"Invalid player ID\n")


def test_count_is_checked_before_the_id() -> None:
    assert clubber("5", "Z").triple() == (2, b"", b"Invalid player count\n")


@pytest.mark.parametrize(("count", "label"), [("2", "A"), ("2", "B"), ("3", "C"), ("4", "D")])
def test_valid_arguments_print_a_dash_first(count: str, label: str) -> None:
    """A valid start prints ``-`` without a newline; closed stdin is then a loss of hub."""
    assert clubber(count, label).triple() == (4, b"-", LOST)


# -- loss of the hub --------------------------------------------------------------------------


@pytest.mark.parametrize("messages", [1, 2, 7, 30, len(SPEC.log) - 1])
def test_stdin_closed_mid_game(messages: int) -> None:
    result = clubber("2", "A", input=lines_bytes(SPEC.stdin[:messages]))
    assert result.triple() == (4, SPEC.stdout(messages), SPEC.stderr(messages) + LOST)


@pytest.mark.parametrize("partial", ["newtrick", "played 3", "end", "x" * 100])
def test_final_line_without_newline_is_not_a_message(partial: str) -> None:
    """End of input is not a message: a last line without its newline is not echoed."""
    stdin = lines_bytes(SPEC.stdin[:6]) + partial.encode()
    result = clubber("2", "A", input=stdin)
    assert result.triple() == (4, SPEC.stdout(6), SPEC.stderr(6) + LOST)


@pytest.mark.parametrize("ending", [b"end\n", b""])
def test_failed_writes_are_ignored(ending: bytes) -> None:
    """With its stdout closed by the hub, clubber neither dies of SIGPIPE nor stops: the next
    read decides (``end``: status 0; end of input: status 4)."""
    stdin = lines_bytes(SPEC.stdin[:-1]) + ending
    begun = time.monotonic()
    proc = start([program("clubber"), "2", "A"], stdin=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()
    result = finish(proc, begun, stdin)
    if ending:
        assert (result.status, result.stderr) == (0, SPEC.stderr())
    else:
        assert (result.status, result.stderr) == (4, SPEC.stderr(len(SPEC.log) - 1) + LOST)


def test_end_at_once() -> None:
    assert clubber("2", "A", input=b"end\n").triple() == (0, b"-", b"From hub:end\n")


def test_whole_worked_example() -> None:
    """The whole game: the spec's stdout, and a report after every message but ``end``."""
    result = clubber("2", "A", input=(SPEC_EXAMPLE / "player-A-stdin.txt").read_bytes())
    expected_out = (SPEC_EXAMPLE / "player-A-stdout.txt").read_bytes()
    assert result.triple() == (0, expected_out, SPEC.stderr())
    assert result.stderr.endswith(b"Scores: 12,1\nFrom hub:end\n")


def test_report_format_after_the_first_message() -> None:
    """The report block of clubs.md, written out by hand (an empty list keeps its space)."""
    result = clubber("2", "A", input=lines_bytes([NEWROUND]))
    assert result.stderr == (
        b"From hub:newround 2S,4S,6S,8S\n"
        b"Hand: 2S,4S,6S,8S,TS,QS,AS,3C,5C,7C,9C,JC,KC,2D,4D,6D,8D,TD,QD,AD,3H,5H,7H,9H,JH,KH\n"
        b"Played (S): \nPlayed (C): \nPlayed (D): \nPlayed (H): \nScores: 0,0\n" + LOST
    )


# -- bad messages ----------------------------------------------------------------------------

# (number of good messages of the worked example first, then the bad line)
BAD_MESSAGES = {
    "unknown word": (0, "hello"),
    "empty line": (0, ""),
    "newtrick before newround": (0, "newtrick"),
    "yourturn before newround": (0, "yourturn"),
    "played before newround": (0, "played 2D"),
    "trickover before newround": (0, "trickover"),
    "scores before newround": (0, "scores 0,0"),
    "upper case": (0, "NEWROUND" + NEWROUND[8:]),
    "newround of 25 cards": (0, NEWROUND[:-3]),
    "newround of 27 cards": (0, NEWROUND + ",AH"),
    "newround of 13 cards": (0, "newround " + ",".join(c + "H" for c in "23456789TJQKA")),
    "newround with a bad card": (0, NEWROUND.replace("TS", "10S")),
    "newround with a trailing comma": (0, NEWROUND + ","),
    "newround with a space after a comma": (0, NEWROUND.replace(",4S", ", 4S")),
    "newround with two spaces": (0, NEWROUND.replace(" ", "  ")),
    "newround without cards": (0, "newround "),
    "newround bare": (0, "newround"),
    "newround twice": (1, NEWROUND),
    "leading space": (1, " newtrick"),
    "trailing space": (1, "newtrick "),
    "carriage return": (1, "newtrick\r"),
    "yourturn to lead": (1, "yourturn"),
    "scores mid-round": (1, "scores 0,0"),
    "newtrick twice": (2, "newtrick"),
    "played of another card after playing": (2, "played 3D"),
    "played with two spaces": (2, "played  2D"),
    "played with a trailing space": (2, "played 2D "),
    "played 10H": (2, "played 10H"),
    "played two cards": (2, "played 2D,3D"),
    "played bare": (2, "played"),
    "trickover early": (3, "trickover"),
    "a third card in a 2-player trick": (4, "played 4D"),
    "newtrick before trickover": (4, "newtrick"),
    "newtrick for the follower": (6, "newtrick"),
    "trickover before the echo of its card": (7, "trickover"),
    "scores of 3 players": (len(SPEC.log) - 2, "scores 12,1,0"),
    "scores of 1 player": (len(SPEC.log) - 2, "scores 12"),
    "scores 3biscuit": (len(SPEC.log) - 2, "scores 3biscuit,1"),
    "scores with a space": (len(SPEC.log) - 2, "scores 12, 1"),
    "scores with a trailing comma": (len(SPEC.log) - 2, "scores 12,1,"),
    "negative score": (len(SPEC.log) - 2, "scores -12,1"),
    "scores bare": (len(SPEC.log) - 2, "scores"),
    "end with a space": (len(SPEC.log) - 1, "end "),
    "END": (len(SPEC.log) - 1, "END"),
    "newtrick after the last trick": (len(SPEC.log) - 2, "newtrick"),
    "a 600-character line": (1, "newtrick" + "x" * 592),
    "a 600-character newround": (0, (NEWROUND + ",") * 6 + "AH"),
}


@pytest.mark.parametrize(("good", "bad"), BAD_MESSAGES.values(), ids=BAD_MESSAGES.keys())
def test_bad_message(good: int, bad: str) -> None:
    """The bad line is echoed (20 characters), then only ``Bad message from hub``: exit 5."""
    stdin = lines_bytes([*SPEC.stdin[:good], bad, *SPEC.stdin[good:]])
    result = clubber("2", "A", input=stdin)
    echo = b"From hub:" + bad[:20].encode() + b"\n"
    assert result.triple() == (5, SPEC.stdout(good), SPEC.stderr(good) + echo + BAD)


@pytest.mark.parametrize(
    "line",
    [
        b"\xff\xfe\x00\x01",
        b"newtrick\x00",
        b"\x1b[2Jnewround",
        b"played 2D\xa0",
        bytes(range(1, 10)),
    ],
    ids=repr,
)
def test_binary_bytes(line: bytes) -> None:
    stdin = lines_bytes(SPEC.stdin[:1]) + line + b"\n" + lines_bytes(SPEC.stdin[1:])
    result = clubber("2", "A", input=stdin)
    echo = b"From hub:" + line[:20] + b"\n"
    assert result.triple() == (5, SPEC.stdout(1), SPEC.stderr(1) + echo + BAD)


def test_huge_input_without_newline() -> None:
    """Megabytes with no newline: a bad message, read with bounded memory, promptly."""
    stdin = lines_bytes(SPEC.stdin[:1]) + b"y" * 4_000_000
    result = clubber("2", "A", input=stdin)
    assert result.triple() == (
        5,
        SPEC.stdout(1),
        SPEC.stderr(1) + b"From hub:" + b"y" * 20 + b"\n" + BAD,
    )
