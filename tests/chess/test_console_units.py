"""The console's pure parts: the display, scores, setup checks, options, rule decisions."""

from __future__ import annotations

import random

import chess
import pytest

from hub.chess.game import ChessGame
from hub.chess.rules import Draws, initial, position_key
from hub.games.chess.console import (
    SEEDED_NODES,
    Console,
    ConsoleOptions,
    board_display,
    format_points,
    parse_options,
    parse_square,
    repetition_count,
    setup_fen,
    setup_problems,
)
from tests.chess.helpers import console_transcript

SPEC_SAMPLE = [
    "8 rnbqkbnr",
    "7 pppppppp",
    "6  _ _ _ _",
    "5 _ _ _ _ ",
    "4  _ _ _ _",
    "3 _ _ _ _ ",
    "2 PPPPPPPP",
    "1 RNBQKBNR",
    "",
    "  abcdefgh",
]


def test_display_matches_the_spec_sample() -> None:
    assert board_display(chess.Board()) == SPEC_SAMPLE


def test_display_colours_squares_a1_dark_h1_light() -> None:
    lines = board_display(chess.BaseBoard.empty())
    assert lines[7] == "1 _ _ _ _ "  # a1 dark, h1 light
    assert lines[0] == "8  _ _ _ _"  # a8 light, h8 dark
    assert all(len(line) == 10 for line in lines[:8])


@pytest.mark.parametrize(
    ("half", "text"), [(0, "0"), (1, "0.5"), (2, "1"), (3, "1.5"), (10, "5"), (21, "10.5")]
)
def test_points_are_whole_or_halves(half: int, text: str) -> None:
    assert format_points(half) == text


def test_setup_problems_name_each_failing_check() -> None:
    board = chess.BaseBoard.empty()
    assert setup_problems(board) == [
        "There must be exactly one white king.",
        "There must be exactly one black king.",
    ]
    board.set_piece_at(chess.E1, chess.Piece.from_symbol("K"))
    board.set_piece_at(chess.E8, chess.Piece.from_symbol("k"))
    assert setup_problems(board) == []
    board.set_piece_at(chess.A1, chess.Piece.from_symbol("p"))
    assert setup_problems(board) == ["No pawn may stand on rank 1 or 8."]
    board.remove_piece_at(chess.A1)
    board.set_piece_at(chess.E4, chess.Piece.from_symbol("r"))
    assert setup_problems(board) == ["The white king must not be in check."]
    board.set_piece_at(chess.E4, chess.Piece.from_symbol("R"))
    assert setup_problems(board) == ["The black king must not be in check."]


def test_setup_output_never_reads_like_play() -> None:
    """specs/chess-console.md lines 30-33: ``done`` "says which condition fails", and the
    board "is redisplayed after each `+`, and after each `-` that removed a piece" - so not
    after ``done``; line 60: ``White is in check.`` / ``Black is in check.`` are the game's
    status lines after a move, which setup's refusals must not reuse (issue 8, spec fix)."""
    script = b"setup\n+ K e1\n+ k e8\n+ r e4\ndone\n- e4\n+ R e5\ndone\n- e5\n= black\ndone\n"
    out = console_transcript(script).decode().splitlines()
    assert "White is in check." not in out and "Black is in check." not in out
    assert out.count("The white king must not be in check.") == 1
    assert out.count("The black king must not be in check.") == 1
    boards = out.count("  abcdefgh")
    assert boards == 1 + 4 + 2  # setup, four +, two -; none for the three done
    done = out.index("Setup complete.")
    assert out[done - 1] == "  abcdefgh"  # the board of "- e5", then done's one line
    assert out[done + 1 :] == ["Final Score:", "White: 0", "Black: 0"]


def test_setup_castling_rights_where_king_and_rook_are_unmoved() -> None:
    board = chess.BaseBoard("r3k3/8/8/8/8/8/8/4K2R")
    assert setup_fen(board, chess.BLACK) == "r3k3/8/8/8/8/8/8/4K2R b Kq - 0 1"
    assert setup_fen(chess.BaseBoard("4k3/8/8/8/8/8/8/R3K2R"), chess.WHITE).split()[2] == "KQ"
    assert setup_fen(chess.BaseBoard("4k3/8/8/8/8/8/8/R2K3R"), chess.WHITE).split()[2] == "-"


def test_squares_parse_in_either_case_and_nothing_else() -> None:
    assert parse_square("e4") == chess.E4
    assert parse_square("H8") == chess.H8
    for bad in ("e9", "i1", "e", "e44", "", "4e", "é4"):
        assert parse_square(bad) is None


def test_options() -> None:
    assert parse_options([]) == ConsoleOptions()
    assert parse_options(["--classic", "--seed", "3", "--movetime", "50", "--nodes", "9"]) == (
        ConsoleOptions(classic=True, seed=3, movetime_ms=50, nodes=9)
    )
    assert parse_options(["--gui", "--classic"]) == ConsoleOptions(classic=True, gui=True)
    for bad in (
        ["--seed"],
        ["--seed", "x"],
        ["--seed", "-1"],
        ["--movetime", "0"],
        ["--classic", "--classic"],
        ["--seed", "1", "--seed", "2"],
        ["--gui", "--gui"],
        ["extra"],
        ["--nodes", ""],
    ):
        assert parse_options(bad) is None, bad


def test_a_seed_counts_level_4_in_nodes_unless_a_movetime_is_given() -> None:
    assert ConsoleOptions(seed=1).limits.nodes == SEEDED_NODES
    assert ConsoleOptions(seed=1).limits.movetime is None
    assert ConsoleOptions(seed=1, movetime_ms=200).limits.movetime == 0.2
    assert ConsoleOptions().limits.movetime == 1.0
    assert ConsoleOptions(nodes=500).limits.nodes == 500


def test_insufficient_material_75_moves_and_fivefold_repetition_do_not_end_a_game() -> None:
    console = Console()
    for line in ("setup", "+ K e1", "+ k e8", "done", "game human human"):
        console.handle(line)
    shuffle = ["move e1 d1", "move e8 d8", "move d1 e1", "move d8 e8"]
    out: list[str] = []
    for _ in range(40):  # 160 plies without capture or pawn move, 40 repetitions
        for command in shuffle:
            out = console.handle(command)
            assert out[:10] != ["No game in progress."]
            assert not any(line.startswith(("Stalemate", "Checkmate")) for line in out)
    assert (
        out[-1] == "Threefold repetition: this position has occurred 41 times (the game goes on)."
    )
    assert console.state is not None and console.state.board.is_seventyfive_moves()
    assert console.finish() == ["Final Score:", "White: 0", "Black: 0"]


def test_repetition_count() -> None:
    assert repetition_count(chess.STARTING_FEN, []) == 1
    knights = ("g1f3", "g8f6", "f3g1", "f6g8")
    assert repetition_count(chess.STARTING_FEN, knights * 2) == 3
    assert repetition_count(chess.STARTING_FEN, knights * 2 + ("g1f3",)) == 3
    # After 1. e4 the en passant square is not part of the position (no capture possible),
    # so the position after 1. e4 occurs again three plies later.
    assert repetition_count(chess.STARTING_FEN, ("e2e4", "g8f6", "g1f3", "f6g8", "f3g1")) == 2


def test_repetition_count_from_the_stack_agrees_with_replaying_the_game() -> None:
    """Random games of knights and kings (long stretches without a capture or pawn move,
    some past the 150 plies a state's board keeps) and ordinary ones, from the start and
    from a set-up position with a halfmove clock: counted from the board's stack, or by
    replaying when the stack is too short, the count is the replay's at every ply."""
    rng = random.Random(3)
    starts = [
        chess.STARTING_FEN,
        "4k3/8/8/8/8/8/8/4K3 w - - 40 60",
        "n3k3/8/8/8/8/8/8/N3K3 w - - 0 1",
    ]
    for start in starts * 4:
        state = initial(start)
        referee = ChessGame(draws=Draws.NONE)
        replay = chess.Board(start)  # the replay, one move at a time: every key of the game
        keys = [position_key(replay)]
        assert repetition_count(state.start_fen, state.moves) == 1
        for _ in range(220):
            if referee.to_move(state) is None:
                break
            moves = list(state.board.legal_moves)
            quiet = [m for m in moves if not state.board.is_irreversible(m)]
            move = rng.choice(quiet if quiet and rng.random() < 0.95 else moves)
            state = referee.apply(state, move.uci())
            replay.push(move)
            keys.append(position_key(replay))
            expected = keys.count(keys[-1])  # what replaying the game from its start counts
            assert repetition_count(state.start_fen, state.moves, state.board) == expected
        assert repetition_count(state.start_fen, state.moves) == expected


def test_a_setup_position_that_is_stalemate_ends_at_once_as_a_draw() -> None:
    script = b"setup\n+ K a1\n+ k c2\n+ q b3\n= white\ndone\ngame human human\nmove a1 b1\n"
    out = console_transcript(script).decode()
    assert "  abcdefgh\nStalemate!\nNo game in progress.\n" in out
    assert out.endswith("Final Score:\nWhite: 0.5\nBlack: 0.5\n")


def test_end_of_input_in_setup_mode_prints_the_final_score() -> None:
    out = console_transcript(b"game human human\nmove e2 e4\nresign\nsetup\n+ K e1\n").decode()
    assert out.endswith("  abcdefgh\nFinal Score:\nWhite: 1\nBlack: 0\n")


def test_a_running_game_is_not_scored() -> None:
    out = console_transcript(b"game human human\nmove e2 e4\n").decode()
    assert out.endswith("Final Score:\nWhite: 0\nBlack: 0\n")


def test_undo_against_a_computer_takes_back_to_the_humans_turn() -> None:
    console = Console(ConsoleOptions(seed=1))
    console.handle("game computer1 human")
    console.handle("move")  # white (computer)
    console.handle("move e7 e5")  # black (human)
    console.handle("move")  # white (computer)
    assert console.state is not None and len(console.state.moves) == 3
    console.handle("undo")
    assert console.state is not None and len(console.state.moves) == 1
    console.handle("undo")  # back to the start, where the computer is to move
    assert console.state is not None and len(console.state.moves) == 0


def test_undo_between_computers_takes_back_one_move() -> None:
    console = Console(ConsoleOptions(seed=1))
    console.handle("game computer1 computer2")
    console.handle("move")
    console.handle("move")
    console.handle("undo")
    assert console.state is not None and len(console.state.moves) == 1
