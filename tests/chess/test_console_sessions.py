"""Scripted ``hub play chess`` sessions compared byte for byte with their transcripts.

Each ``sessions/NAME.in`` is what a user types; ``sessions/NAME.out`` is exactly what the
program must print (every transcript was checked by hand against the spec: board layout,
status lines, messages, scores). All run in-process through `Console`; a few also run through
the installed ``hub play chess`` to show that the program prints the same bytes.
"""

from __future__ import annotations

import pytest

from tests.chess.helpers import (
    SESSION_ARGS,
    SESSIONS,
    console_transcript,
    run_program,
    session_names,
)


def lines(*rows: str) -> str:
    return "".join(row + "\n" for row in rows)


START = lines(
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
)

FOOLS_MATE = lines(
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
    "8 rnbqkbnr",
    "7 pppppppp",
    "6  _ _ _ _",
    "5 _ _ _ _ ",
    "4  _ _ _ _",
    "3 _ _ _P_ ",
    "2 PPPPP_PP",
    "1 RNBQKBNR",
    "",
    "  abcdefgh",
    "8 rnbqkbnr",
    "7 pppp_ppp",
    "6  _ _ _ _",
    "5 _ _ p _ ",
    "4  _ _ _ _",
    "3 _ _ _P_ ",
    "2 PPPPP_PP",
    "1 RNBQKBNR",
    "",
    "  abcdefgh",
    "8 rnbqkbnr",
    "7 pppp_ppp",
    "6  _ _ _ _",
    "5 _ _ p _ ",
    "4  _ _ _P_",
    "3 _ _ _P_ ",
    "2 PPPPP_ P",
    "1 RNBQKBNR",
    "",
    "  abcdefgh",
    "8 rnb_kbnr",
    "7 pppp_ppp",
    "6  _ _ _ _",
    "5 _ _ p _ ",
    "4  _ _ _Pq",
    "3 _ _ _P_ ",
    "2 PPPPP_ P",
    "1 RNBQKBNR",
    "",
    "  abcdefgh",
    "Checkmate! Black wins!",
    "Final Score:",
    "White: 0",
    "Black: 1",
)

LOYD_FINAL = lines(
    "8  _ _ bnr",
    "7 _ _ p pq",
    "6  _ _Qpkr",
    "5 _ _ _ _p",
    "4  _ _ _ P",
    "3 _ _ P _ ",
    "2 PPPP PP_",
    "1 RNB KBNR",
    "",
    "  abcdefgh",
    "Stalemate!",
)


def test_fools_mate_written_out() -> None:
    commands = b"game human human\nmove f2 f3\nmove e7 e5\nmove g2 g4\nmove d8 h4\n"
    assert console_transcript(commands).decode() == FOOLS_MATE


def test_loyds_stalemate_is_a_draw_and_scores_halves() -> None:
    out = console_transcript((SESSIONS / "loyd_stalemate_and_score.in").read_bytes()).decode()
    assert LOYD_FINAL + "No game in progress.\n" in out  # the stalemate ended the game
    assert out.endswith("Checkmate! Black wins!\nFinal Score:\nWhite: 0.5\nBlack: 1.5\n")


def setup_board(rank8: str, rank1: str) -> str:
    """A set-up board with pieces on ranks 8 and 1 only (the others empty)."""
    middle = ["7 _ _ _ _ ", "6  _ _ _ _", "5 _ _ _ _ ", "4  _ _ _ _", "3 _ _ _ _ ", "2  _ _ _ _"]
    return lines(f"8 {rank8}", *middle, f"1 {rank1}", "", "  abcdefgh")


SETUP_SESSION = (
    b"setup\n+ K e1\ndone\n- d4\n+ k d8\n- d8\n+ k e8\n= black\ndone\ngame human human\n"
)
SETUP_TRANSCRIPT = (
    setup_board(" _ _ _ _", "_ _ _ _ ")  # setup: the empty board
    + setup_board(" _ _ _ _", "_ _ K _ ")  # + K e1
    + "There must be exactly one black king.\n"  # done refused: no board
    # - d4: an empty square, nothing at all
    + setup_board(" _ k _ _", "_ _ K _ ")  # + k d8
    + setup_board(" _ _ _ _", "_ _ K _ ")  # - d8 removed a piece: the board
    + setup_board(" _ _k_ _", "_ _ K _ ")  # + k e8
    # = black: nothing (not at a terminal)
    + "Setup complete.\n"  # done: no board
    + setup_board(" _ _k_ _", "_ _ K _ ")  # game: its start, once
    + "Final Score:\nWhite: 0\nBlack: 0\n"
)


@pytest.mark.e2e
def test_a_setup_session_byte_for_byte() -> None:
    """specs/chess-console.md, setup mode: "The board is redisplayed after each `+`, and
    after each `-` that removed a piece (`-` on an empty square takes no action)": no board
    after ``done`` (refused or complete) nor ``=``; ``game`` then shows the set-up position
    once (issue 20, item 3). In-process and through the installed program."""
    assert console_transcript(SETUP_SESSION).decode() == SETUP_TRANSCRIPT
    result = run_program(["play", "chess"], SETUP_SESSION)
    assert (result.stdout.decode(), result.stderr, result.returncode) == (SETUP_TRANSCRIPT, b"", 0)


@pytest.mark.parametrize("name", session_names())
def test_session_matches_transcript(name: str) -> None:
    data = (SESSIONS / f"{name}.in").read_bytes()
    expected = (SESSIONS / f"{name}.out").read_bytes()
    assert console_transcript(data, SESSION_ARGS.get(name, [])) == expected


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["fools_mate", "setup", "computer_moves", "errors"])
def test_installed_program_prints_the_transcript(name: str) -> None:
    data = (SESSIONS / f"{name}.in").read_bytes()
    expected = (SESSIONS / f"{name}.out").read_bytes()
    result = run_program(["play", "chess", *SESSION_ARGS.get(name, [])], data)
    assert (result.stdout, result.stderr, result.returncode) == (expected, b"", 0)


def test_every_session_has_a_transcript() -> None:
    names = session_names()
    assert len(names) >= 12
    for name in names:
        assert (SESSIONS / f"{name}.out").exists(), name
