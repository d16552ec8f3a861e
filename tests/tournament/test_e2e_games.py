"""``hub match`` as a user runs it, on the real games: Kalah AI levels, chess levels and
chess against Stockfish through UCI, clubs between clubber and a C player built here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import need_stockfish, program

pytestmark = pytest.mark.e2e

C_PLAYER = Path(__file__).resolve().parents[1] / "clubs" / "data" / "players" / "first_legal.c"


def match(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [program("hub"), "match", *args, "--json", "--no-record"],
        capture_output=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def check_table(result: dict[str, Any], players: list[str], games: int) -> None:
    assert result["scored"] == games and not result["aborted"]
    rows = {row["player"]: row for row in result["standings"]}
    assert sorted(rows) == sorted(set(players))
    for row in rows.values():
        assert row["wins"] + row["draws"] + row["losses"] == row["games"] == games
        assert row["points"] == row["wins"] + row["draws"] / 2
    assert sum(row["points"] for row in rows.values()) == games
    # the default openings make every game a different one
    assert (result["distinct_games"], result["compared_games"]) == (games, games)
    assert result["warnings"] == []


def test_kalah_match_between_ai_levels() -> None:
    result = match("kalah", "ai:1", "ai:3", "--games", "4", "--holes", "4", "--seeds", "3")
    check_table(result, ["ai:1", "ai:3"], 4)
    assert result["elo"]["player"] == "ai:1"


def test_kalah_ai_levels_on_fixed_openings_repeat_their_games_and_are_warned_about() -> None:
    # the AI is deterministic: from the same layout, the same two games over and over
    result = match("kalah", "ai:1", "ai:3", "--games", "6", "--holes", "4", "--seeds", "3",
                   "--openings", "fixed")  # fmt: skip
    assert (result["distinct_games"], result["compared_games"]) == (2, 6)
    assert len(result["warnings"]) == 1
    assert "4 of 6 games repeated an earlier game" in result["warnings"][0]


def test_chess_match_between_levels() -> None:
    result = match("chess", "ai:1", "ai:2", "--games", "4", "--tc", "5+0.1", "--max-plies", "60")
    check_table(result, ["ai:1", "ai:2"], 4)
    assert result["pairs"]["unpaired"] == 0
    assert sum(v for k, v in result["pairs"].items() if k != "unpaired") == 2


def test_chess_match_against_stockfish_over_uci() -> None:
    stockfish = need_stockfish()
    engine = f"uci:{stockfish}?Skill Level=0&Threads=1"
    # a clock of 1+0.05: each side thinks ~0.07 s a move (at 5+0.1, ~0.2 s: 14 s, not 4.5)
    result = match("chess", "ai:1", engine, "--games", "2", "--tc", "1+0.05", "--max-plies", "60")
    check_table(result, ["ai:1", engine], 2)


def test_clubs_match_between_clubber_and_a_c_player(tmp_path: Path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH to build the C player")
    binary = tmp_path / "first_legal"
    subprocess.run(
        [compiler, "-std=c99", "-O", "-o", str(binary), str(C_PLAYER)], check=True, timeout=60
    )
    result = match("clubs", "clubber", str(binary), "--games", "2", "--winscore", "10")
    check_table(result, ["clubber", str(binary)], 2)
