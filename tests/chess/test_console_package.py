"""The console as a package (issue 17): pure command parsing, and the chess rules it uses in
the chess library through python-chess's public API."""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from hub.chess import rules, setup
from hub.games.chess import console
from hub.games.chess.console.commands import (
    INVALID,
    INVALID_HELP,
    SETUP_USAGE,
    ConsoleCommand,
    Done,
    FirstToMove,
    Place,
    Refusal,
    Remove,
    ShowSetup,
    parse_command,
    parse_move,
    parse_setup,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_rules_are_the_chess_librarys() -> None:
    assert console.setup_problems is setup.setup_problems
    assert console.setup_fen is setup.setup_fen
    assert console.repetition_count is rules.repetition_count


def test_no_private_python_chess_api_in_the_console_and_its_rules() -> None:
    sources = [*sorted((ROOT / "hub/games/chess/console").glob("*.py"))]
    sources += [ROOT / "hub/chess/setup.py", ROOT / "hub/chess/rules.py"]
    for path in sources:
        assert "_transposition_key" not in path.read_text(), path


def test_a_line_is_a_command_or_the_specs_message() -> None:
    assert parse_command("   ", classic=False) is None
    assert parse_command("game human  computer4", classic=True) == ConsoleCommand(
        "game", ("human", "computer4")
    )
    assert parse_command("move", classic=True) == ConsoleCommand("move")
    assert parse_command("resign", classic=True) == ConsoleCommand("resign")
    assert parse_command("resign now", classic=False) == Refusal(INVALID_HELP)
    assert parse_command("undo", classic=False) == ConsoleCommand("undo")
    assert parse_command("undo", classic=True) == Refusal(INVALID)
    assert parse_command("help me", classic=False) == Refusal(INVALID_HELP)


def test_a_setup_line_is_a_setup_command_or_the_usage() -> None:
    assert parse_setup("", classic=False) is None
    assert parse_setup("+ K e1", classic=False) == Place(chess.Piece.from_symbol("K"), chess.E1)
    assert parse_setup("- E8", classic=False) == Remove(chess.E8)
    assert parse_setup("= black", classic=False) == FirstToMove(chess.BLACK)
    assert parse_setup("board", classic=False) == ShowSetup()
    assert parse_setup("done", classic=True) == Done()
    for line in ("board", "+ X e1", "+ K e9", "- e", "= red", "done now", "game human human"):
        assert parse_setup(line, classic=True) == Refusal(SETUP_USAGE)


def test_a_move_is_parsed_against_the_board() -> None:
    board = chess.Board()
    assert parse_move(["e2", "e4"], board, classic=True) == chess.Move.from_uci("e2e4")
    assert parse_move(["Nf3"], board, classic=False) == chess.Move.from_uci("g1f3")
    assert parse_move(["Nf3"], board, classic=True) == console.MOVE_USAGE
    assert parse_move(["e2", "e5"], board, classic=False) == console.ILLEGAL


@pytest.mark.parametrize("seed", range(12))
def test_repetitions_agree_with_python_chess(seed: int) -> None:
    """`repetition_count` (on public attributes) against python-chess's own
    `Board.is_repetition`, over seeded random games with many repetitions and en passant."""
    rng = random.Random(seed)
    board = chess.Board()
    moves: list[str] = []
    for _ in range(160):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        if len(board.move_stack) >= 2 and rng.random() < 0.7:  # go back: repeat positions
            back = board.move_stack[-2]
            back = chess.Move(back.to_square, back.from_square)
            move = back if back in legal else move
        board.push(move)
        moves.append(move.uci())
        count = rules.repetition_count(chess.STARTING_FEN, moves)
        assert count == rules.repetition_count(chess.STARTING_FEN, moves, board)
        for times in (1, 2, 3, 4):
            assert (count >= times) == board.is_repetition(times), (moves, times)
