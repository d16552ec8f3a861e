"""Chess for JSON bots (issue 17): the example bot plays whole games of chess in ``hub match
chess`` over pipes (``json:BOT``), and the records are shown and exported as PGN through the
chess package."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")
TIMEOUT = 120


def hub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args], capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def records() -> list[dict[str, object]]:
    exported = hub("games", "export", "--game", "chess")
    assert exported.returncode == 0, exported.stderr
    return [json.loads(line) for line in exported.stdout.splitlines()]


def test_the_json_bot_plays_hub_match_chess_over_pipes(records_database: Path) -> None:
    done = hub("match", "chess", f"json:{PY_BOT} --seed 5", "ai:2", "--games", "2")
    assert done.returncode == 0, done.stderr
    assert "2 of 2 games scored" in done.stdout
    games = records()
    assert len(games) == 2
    for record in games:
        assert record["termination"] == "normal" and record["fault"] is None
        # A whole game from the opening to its end by the rules, both sides moving (how long
        # it lasts is the AI's and the bot's chance: ai:2 once mated the bot in 8 plies).
        assert {move["seat"] for move in record["moves"]} == {0, 1}  # type: ignore[index,union-attr]
        names = [player["name"] for player in record["players"]]  # type: ignore[index,union-attr]
        assert sorted(names) == ["ai:2", "json_bot.py"]
        bot = next(p for p in record["players"] if p["name"] == "json_bot.py")  # type: ignore[union-attr]
        assert bot["kind"] == "program" and bot["spec"].startswith("json:")  # type: ignore[index]
    shown = hub("games", "show", str(games[0]["game_id"]))
    assert shown.returncode == 0, shown.stderr
    assert "  White: json_bot.py (program, json:" in shown.stdout
    assert "\n1. White json_bot.py: " in shown.stdout
    assert "      a b c d e f g h\n" in shown.stdout
    pgn = hub("games", "export", "--format", "pgn")
    assert pgn.returncode == 0, pgn.stderr
    assert pgn.stdout.count('[Event "hub match"]') == 2
    assert '[White "json_bot.py"]' in pgn.stdout and '[Black "json_bot.py"]' in pgn.stdout
    refused = hub("games", "export", "--format", "pgn", "--game", "connect4")
    assert refused.returncode == 2
    assert "PGN is for chess games; use --format jsonl for connect4" in refused.stderr


def test_a_json_spec_that_names_no_program_is_a_usage_error(records_database: Path) -> None:
    done = hub("match", "chess", "json:./no-such-bot", "ai:1")
    assert done.returncode == 2
    assert "json:./no-such-bot" in done.stderr and "not a program" in done.stderr
    empty = hub("match", "chess", "json:", "ai:1")
    assert empty.returncode == 2 and "no program after json:" in empty.stderr
