"""The console for a person (issue 12): ``board``, who moves first after ``=``, the computer
shown thinking, Unicode pieces and colour, and none of it where the spec's output is fixed
(output that is not a terminal, ``--classic``). Terminals are faked with `Terminal` values."""

from __future__ import annotations

import re

import chess
import pytest

from hub.chess.board_art import PLAIN, BoardStyle, board_lines, detect_style, styled_board
from hub.chess.search import ComputerPlayer
from hub.core.play.threads import StopFlag
from hub.games.chess.console import (
    HELP,
    INVALID,
    NO_GAME,
    SETUP_USAGE,
    ConsoleOptions,
    StatusLine,
    Terminal,
    board_display,
    open_console,
)
from tests.chess.helpers import console_transcript

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
COLOUR = BoardStyle(unicode=True, colour=True, palette=256)
FOOLS_MATE = ("game human human", "move f2 f3", "move e7 e5", "move g2 g4", "move Qh4")


def plain_text(line: str) -> str:
    """A styled line without its escape sequences."""
    return ESCAPE.sub("", line)


async def play(options: ConsoleOptions, terminal: Terminal | None, *lines: str) -> list[str]:
    """What the session prints for ``lines`` (the end of the input not included)."""
    out: list[str] = []
    async with open_console(options, terminal=terminal) as console:
        for line in lines:
            out += await console.handle(line)
        await console.finish()
    return out


# -- board ---------------------------------------------------------------------------------


async def test_board_redraws_the_game_and_says_whose_turn() -> None:
    out = await play(ConsoleOptions(), None, "board", "game human computer1", "move e2 e4")
    assert out[0] == NO_GAME
    out = await play(ConsoleOptions(), None, "game human computer1", "move e2 e4", "board")
    board = out[-11:-1]
    assert board == out[10:20]  # as after the move
    assert board[4] == "4  _ _P_ _"
    assert out[-1] == "Black (computer1) to move: type move to let it play."
    out = await play(ConsoleOptions(), None, "game human human", "move e2 e4", "board")
    assert out[-1] == "Black to move."


async def test_board_shows_check_and_the_end_of_the_last_game() -> None:
    out = await play(ConsoleOptions(), None, *FOOLS_MATE[:-1], "move d8 h4", "board")
    # The board after the mate and its status line, then the same again for board.
    assert out[-11:] == out[-22:-11]
    assert out[-2:] == ["  abcdefgh", "Checkmate! Black wins!"]
    out = await play(ConsoleOptions(), None, "game human human", "move f2 f3", "move e7 e5",
                     "move g2 g4", "board")  # fmt: skip
    assert out[-2:] == ["  abcdefgh", "Black to move."]
    out = await play(ConsoleOptions(), None, "game human human", "move e2 e4", "move f7 f6",
                     "move d1 h5", "board")  # fmt: skip
    assert out[-3:] == ["  abcdefgh", "Black is in check.", "Black to move."]


async def test_board_in_setup_mode_and_before_the_set_up_game() -> None:
    setup = ("setup", "+ K e1", "+ k e8", "= black")
    out = await play(ConsoleOptions(), None, *setup, "board", "done", "board")
    shown = board_display(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))
    assert out[-11:] == [*shown, "Black moves first."]
    assert out[-23:-12] == [*shown, "Black moves first."]
    assert out[-12] == "Setup complete."


async def test_board_is_an_error_with_classic() -> None:
    out = await play(ConsoleOptions(classic=True), None, "game human human", "board")
    assert out[-1] == INVALID
    out = await play(ConsoleOptions(classic=True), None, "setup", "board")
    assert out[-1] == SETUP_USAGE


def test_help_lists_board() -> None:
    assert any(line.startswith("  board ") for line in HELP)
    out = console_transcript(b"help\nboard\n").decode().splitlines()
    assert out[: len(HELP)] == HELP and out[len(HELP)] == NO_GAME


# -- "=" in setup mode -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "terminal", "said"),
    [
        (ConsoleOptions(), Terminal(interactive=True), ["Black moves first."]),
        (ConsoleOptions(), Terminal(), []),  # not a terminal: the spec's silence
        (ConsoleOptions(), None, []),
        (ConsoleOptions(classic=True), Terminal(interactive=True), []),
    ],
)
async def test_who_moves_first_is_said_only_on_a_terminal(
    options: ConsoleOptions, terminal: Terminal | None, said: list[str]
) -> None:
    out = await play(options, terminal, "setup", "= black")
    assert out[10:] == said
    out = await play(options, terminal, "setup", "= white", "= red")
    assert out[10:] == [s.replace("Black", "White") for s in said] + [SETUP_USAGE]


# -- thinking --------------------------------------------------------------------------------


class FakeTerminal:
    """Collects what the status line writes; `think` notes what was on screen meanwhile."""

    def __init__(self, *, ansi: bool = True) -> None:
        self.writes: list[str] = []
        self.status = StatusLine(self.writes.append, ansi=ansi)
        self.seen_while_thinking: list[list[str]] = []

    def think(self, player: ComputerPlayer, board: chess.Board, stop: StopFlag) -> chess.Move:
        self.seen_while_thinking.append(list(self.writes))
        return sorted(board.legal_moves, key=lambda move: move.uci())[0]


async def test_the_computer_is_shown_thinking_then_erased() -> None:
    fake = FakeTerminal()
    out: list[str] = []
    async with open_console(
        ConsoleOptions(seed=1), think=fake.think, terminal=Terminal(status=fake.status)
    ) as console:
        out += await console.handle("game human computer4")
        out += await console.handle("move e2 e4")
        assert fake.writes == []
        out += await console.handle("move")
        assert fake.seen_while_thinking == [["Black (computer4) is thinking..."]]
        assert fake.writes == ["Black (computer4) is thinking...", "\r\x1b[K"]
        out += await console.handle("hint")
        assert fake.seen_while_thinking[-1][-1] == "Looking for a hint..."
        assert fake.writes[-1] == "\r\x1b[K"
    assert not any("thinking" in line for line in out)  # never in the transcript
    assert "Black plays a7 a5." in out


async def test_thinking_is_erased_with_spaces_on_a_dumb_terminal() -> None:
    fake = FakeTerminal(ansi=False)
    async with open_console(
        ConsoleOptions(), think=fake.think, terminal=Terminal(status=fake.status)
    ) as console:
        await console.handle("game computer2 human")
        await console.handle("move")
    text = "White (computer2) is thinking..."
    assert fake.writes == [text, "\r" + " " * len(text) + "\r"]


async def test_classic_never_shows_thinking() -> None:
    fake = FakeTerminal()
    async with open_console(
        ConsoleOptions(classic=True), think=fake.think, terminal=Terminal(status=fake.status)
    ) as console:
        await console.handle("game computer1 computer1")
        await console.handle("move")
    assert fake.seen_while_thinking == [[]] and fake.writes == []


# -- Unicode pieces and colour ---------------------------------------------------------------


async def test_a_styled_terminal_gets_unicode_pieces_and_colour() -> None:
    lines = ("game human human", "move e2 e4", "board")
    styled = await play(ConsoleOptions(), Terminal(style=COLOUR), *lines)
    plain = await play(ConsoleOptions(), Terminal(), *lines)
    assert len(styled) == len(plain)
    assert styled[0].startswith("8 \x1b[") and "\u265c" in styled[0]  # a black rook
    assert [plain_text(line) for line in styled[:8]] == [
        plain_text(line) for line in styled_board(chess.Board(), COLOUR)[:8]
    ]
    assert styled[-1] == plain[-1] == "Black to move."
    # The spec's display where the style is plain, and with --classic whatever the terminal.
    assert plain == await play(ConsoleOptions(), None, *lines)
    classic = await play(ConsoleOptions(classic=True), Terminal(style=COLOUR), *lines[:2])
    assert classic == await play(ConsoleOptions(classic=True), None, *lines[:2])
    assert not any("\x1b" in line for line in classic)


async def test_setup_boards_are_styled_too() -> None:
    out = await play(ConsoleOptions(), Terminal(style=BoardStyle(unicode=True)), "setup",
                     "+ K e1")  # fmt: skip
    assert out[-10:] == styled_board(
        chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"), BoardStyle(unicode=True)
    )
    assert out[-3] == "1  \u00b7     \u00b7     \u2654     \u00b7"  # a1 dark, K on e1


def test_styled_board_layout_and_highlights() -> None:
    board = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4"):
        board.push_san(san)
    lines = styled_board(board, COLOUR, lastmove=board.peek(), check=chess.E1)
    text = [plain_text(line) for line in lines]
    assert text[8:] == ["", "   a  b  c  d  e  f  g  h"]
    for rank_line, rank in zip(text[:8], range(8, 0, -1), strict=True):
        assert rank_line.startswith(f"{rank} ") and len(rank_line) == 2 + 24
    glyphs = "".join(text[7][3::3])  # rank 1's pieces
    assert glyphs == "\u2656\u2658\u2657\u2655\u2654\u2657\u2658\u2656"
    assert "48;5;203" in lines[7].split("\u2654")[0].rsplit("\x1b", 1)[1]  # king in check
    assert lines[3].count("48;5;229") + lines[0].count("48;5;185") == 1  # h4 (light)
    letters = styled_board(chess.Board(), BoardStyle(colour=True))
    assert plain_text(letters[0]) == "8  r  n  b  q  k  b  n  r "


def test_plain_boards_keep_the_spec_and_stockfish_art() -> None:
    from hub.chess.board_art import styled_d_line

    board = chess.Board()
    for line in board_lines(board):
        assert styled_d_line(line, PLAIN) == line
    assert styled_d_line("moved e2e4", COLOUR) == "moved e2e4"


# -- choosing the style ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("isatty", "env", "style"),
    [
        (False, {"TERM": "xterm-256color"}, PLAIN),
        (False, {"TERM": "xterm", "HUB_BOARD": "unicode,colour"}, PLAIN),  # never off a tty
        (True, {"TERM": "xterm-256color"}, COLOUR),
        (True, {"TERM": "xterm"}, BoardStyle(True, True, 16)),
        (True, {"TERM": "xterm", "COLORTERM": "truecolor"}, COLOUR),
        (True, {"TERM": "xterm", "NO_COLOR": "1"}, BoardStyle(unicode=True)),
        (True, {"TERM": "xterm", "NO_COLOR": ""}, BoardStyle(True, True, 16)),  # empty: unset
        (True, {"TERM": "dumb"}, PLAIN),
        (True, {}, PLAIN),
        (True, {"TERM": "dumb", "HUB_BOARD": "unicode"}, BoardStyle(unicode=True)),
        (True, {"TERM": "xterm", "HUB_BOARD": "plain"}, PLAIN),
        (True, {"TERM": "xterm", "HUB_BOARD": "Colour", "NO_COLOR": "1"}, BoardStyle(colour=True)),
        (True, {"TERM": "xterm", "HUB_BOARD": "unicode+color"}, BoardStyle(True, True, 16)),
        (True, {"TERM": "xterm", "HUB_BOARD": "auto", "NO_COLOR": "1"}, BoardStyle(True)),
        (True, {"TERM": "xterm", "HUB_BOARD": "sparkly"}, BoardStyle(True, True, 16)),
    ],
)
def test_style_from_the_terminal_and_environment(
    isatty: bool, env: dict[str, str], style: BoardStyle
) -> None:
    assert detect_style(isatty, env) == style


def test_terminal_detect_looks_at_stdout_and_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.isatty", lambda fd: fd == 2)
    terminal = Terminal.detect({"TERM": "xterm-256color"})
    assert not terminal.interactive and terminal.style == PLAIN
    assert terminal.status is not None
    monkeypatch.setattr("os.isatty", lambda fd: fd == 1)
    terminal = Terminal.detect({"TERM": "xterm-256color"})
    assert terminal.interactive and terminal.style == COLOUR and terminal.status is None
