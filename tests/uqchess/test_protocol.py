"""The wire protocol, both directions: exact words, every malformed line is `error command`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.games.uqchess import protocol as p

VALID = {
    "start computer white": p.StartRequest("computer", "white"),
    "start human either": p.StartRequest("human", "either"),
    "start human black": p.StartRequest("human", "black"),
    "board": p.BoardRequest(),
    "hint best": p.Hint(all=False),
    "hint all": p.Hint(all=True),
    "move e2e4": p.MoveRequest("e2e4"),
    "move h7h8q": p.MoveRequest("h7h8q"),
    "move zz99": p.MoveRequest("zz99"),  # well-formed, not legal: the server says error move
    "resign": p.Resign(),
}
INVALID = [
    "",
    " board",
    "board ",
    "board  ",
    "start computer",
    "start computer  white",
    "start robot white",
    "start computer red",
    "start computer white extra",
    "hint",
    "hint some",
    "move",
    "move e2e",
    "move e2e4e5",
    "move e2-4",
    "move e2e4 ",
    "move e2\x00e4",
    "move \xe92e4",
    "BOARD",
    "resign now",
    "board\r",
    "\x00",
    "hello",
]


@pytest.mark.parametrize(("line", "command"), VALID.items())
def test_valid_commands_round_trip(line: str, command: p.ClientCommand) -> None:
    assert p.parse_command(line) == command
    assert p.format_command(command) == line


@pytest.mark.parametrize("line", INVALID)
def test_invalid_commands(line: str) -> None:
    assert p.parse_command(line) is None


@given(st.text())
def test_parse_command_never_raises(line: str) -> None:
    command = p.parse_command(line)
    if command is not None:
        assert p.format_command(command) == line


@given(st.text())
def test_parse_message_never_raises(line: str) -> None:
    assert p.parse_message(line) is not None


def test_server_messages() -> None:
    assert p.format_started("black") == "started black"
    assert p.format_error(p.ErrorReason.TURN) == "error turn"
    assert p.format_moves(["e2e4", "d2d4"]) == "moves e2e4 d2d4"
    assert p.format_moved("a7a8Q") == "moved a7a8Q"
    assert p.format_gameover(p.GameOverHow.STALEMATE) == "gameover stalemate"
    assert p.format_gameover(p.GameOverHow.CHECKMATE, "black") == "gameover checkmate black"
    assert p.format_board(["", "x", ""]) == ["startboard", "", "x", "", "endboard"]
    assert p.parse_message("started white") == p.Started("white")
    assert p.parse_message("ok") == p.Accepted()
    assert p.parse_message("moved e2e4") == p.MovedMessage("e2e4")
    assert p.parse_message("gameover resignation white") == p.GameOver("resignation", "white")
    assert p.parse_message("startboard") == p.BoardStart()
    assert p.parse_message("started purple") == p.Other("started purple")
