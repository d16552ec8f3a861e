"""``hub serve clubs`` end to end (issue 17): the generic lobby pairs two example JSON bots
(players/json_bot.py) in order of arrival and they play a whole game; ``hub games show``
draws that game in clubs' own words (rounds from 1, players A and B, every hand once the
game is over), from the game's package."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import program

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BOT = str(ROOT / "players" / "json_bot.py")
HAND = r"(?:[2-9TJQKA][SCDH] ){25}[2-9TJQKA][SCDH]"


def hub(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_two_json_bots_play_clubs_through_the_lobby(records_database: Path) -> None:
    server = subprocess.Popen(
        [program("hub"), "serve", "clubs", "--tc", "30+0", "--winscore", "10"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        port = server.stderr.readline().strip()
        address = f"127.0.0.1:{port}"
        bots = [
            subprocess.Popen(
                [sys.executable, BOT, "--connect", address, "--name", name, "--seed", "1"]
            )
            for name in ("first", "second")
        ]
        assert [bot.wait(timeout=60) for bot in bots] == [0, 0]
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
    exported = hub("games", "export", "--game", "clubs")
    (record,) = [json.loads(line) for line in exported.stdout.splitlines()]
    assert sorted(player["name"] for player in record["players"]) == ["first", "second"]
    assert record["termination"] == "normal" and record["settings"]["winscore"] == 10
    assert max(record["scores"]) >= 10 and record["final_state"]["finished"] is True
    shown = hub("games", "show", record["game_id"])
    assert shown.returncode == 0, shown.stderr
    a, b = (player["name"] for player in record["players"])
    width = max(len(a), len(b))
    assert f"  player A: {a} (remote, tcp), time 30+0\n" in shown.stdout
    assert "start:\n    Round 1, first to 10\n" in shown.stdout
    assert re.search(rf"\n     L>A {a:<{width}}    0  {HAND}\n", shown.stdout)
    assert re.search(rf"\n       B {b:<{width}}    0  {HAND}\n", shown.stdout)
    assert re.search(rf"\n1\. player A {a}: [2-9TJQKA][SCDH] \(", shown.stdout)
