"""Connect Four through the installed commands: every verb the declaration gives it, both
example bots over pipes and TCP, and a broken plug-in listed loudly by ``hub games``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")
SH_BOT = str(ROOT / "players" / "json_bot.sh")


def hub(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("hub"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_a_person_plays_the_ai_at_the_terminal_and_the_game_is_recorded() -> None:
    done = hub("play", "connect4", "human", "ai:4", stdin="8\nfour\n4\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("connect4: Red: you, Yellow: ai:4\n. . . . . . .\n")
    assert (
        "8 is not allowed: column 8 is full or not on the board\nlegal moves: 1 2 3 4 5 6 7\n"
        in done.stdout
    )
    assert "'four' is not a move of connect4\nlegal moves: 1 2 3 4 5 6 7\n" in done.stdout
    assert "Red (you) plays 4\n" in done.stdout
    assert "Yellow (ai:4) plays " in done.stdout
    assert done.stdout.endswith("Yellow (ai:4) wins (Red (you): resignation; end of input)\n")
    exported = hub("games", "export", "--game", "connect4")
    (record,) = [json.loads(line) for line in exported.stdout.splitlines()]
    assert record["termination"] == "resignation"
    shown = hub("games", "show", record["game_id"])
    assert shown.returncode == 0, shown.stderr
    assert "    . . . R . . .\n    1 2 3 4 5 6 7\n" in shown.stdout


def test_both_example_bots_play_whole_games_over_pipes() -> None:
    done = hub("play", "connect4", PY_BOT, SH_BOT, "--seed", "2", "--no-record")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("connect4: Red: json_bot.py, Yellow: json_bot.sh\n")
    last = done.stdout.rstrip().splitlines()[-1]
    assert last in (
        "Red (json_bot.py) wins",
        "Yellow (json_bot.sh) wins",
        "a draw (the grid is full)",
    )


def test_both_example_bots_play_over_tcp_each_other_and_the_ai(records_database: Path) -> None:
    server = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--tc", "30+0"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        port = server.stderr.readline().strip()
        address = f"127.0.0.1:{port}"
        versus_ai = subprocess.run(
            [sys.executable, PY_BOT, "--connect", address, "--opponent", "ai:2", "--name", "solo"],
            timeout=60,
            check=False,
        )
        assert versus_ai.returncode == 0
        pair = [
            subprocess.Popen([sys.executable, PY_BOT, "--connect", address, "--name", "first"]),
            subprocess.Popen([SH_BOT, "127.0.0.1", port]),
        ]
        assert [process.wait(timeout=60) for process in pair] == [0, 0]
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
    exported = hub("games", "export", "--game", "connect4")
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    # who took the first seat depends on which bot connected first: compare the pairs as sets
    names = sorted(sorted(player["name"] for player in record["players"]) for record in records)
    assert names == [["ai:2", "solo"], ["first", "json_bot.sh"]]


def test_hub_match_between_two_ai_levels() -> None:
    done = hub("match", "connect4", "ai:2", "ai:5", "--games", "4", "--tc", "none", "--no-record")
    assert done.returncode == 0, done.stderr
    assert "ai:5" in done.stdout


def test_a_plugin_that_fails_to_load_is_listed_with_its_error(tmp_path: Path) -> None:
    info = tmp_path / "broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[hub.games]\nbroken = brokengame:Game\n")
    (tmp_path / "brokengame.py").write_text("import nosuchmodule\n")
    listed = hub("games", env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert listed.returncode == 0
    assert listed.stdout.splitlines()[-1] == (
        "broken     failed to load (brokengame:Game): "
        "ModuleNotFoundError: No module named 'nosuchmodule'"
    )
    assert "connect4   Connect Four" in listed.stdout


def test_hub_match_web_shows_the_standings_and_stays_up_until_ctrl_c(
    records_database: Path,
) -> None:
    process = subprocess.Popen(
        [
            program("hub"),
            "match",
            "connect4",
            "ai:1",
            "ai:2",
            "--games",
            "2",
            "--seed",
            "3",  # the same two games every run (unseeded, some results left no rating list)
            "--tc",
            "none",
            "--web",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        while "stays up" not in (line := process.stderr.readline()):
            assert line, "hub match ended without keeping its web view up"
        url = line.split(" at ", 1)[1].split()[0]
        heading = "Ratings from every recorded game (hub games ratings)"
        give_up = time.monotonic() + 30  # a bound, not a measure: the rating list reads the
        while True:  # database the match has just written, which may still be busy
            with urllib.request.urlopen(url, timeout=10) as reply:
                page = reply.read().decode()
            if heading in page or time.monotonic() > give_up:
                break
        assert '<table id="standings-table"' in page and "Distinct games: 2 of 2" in page
        # the rating list of every recorded game of the game (hub games ratings)
        assert heading in page
        assert "connect4: 2 game(s), 2 player(s)" in page and "connect4/ai:2" in page
        with urllib.request.urlopen(url.replace("/match", "/api/match"), timeout=10) as reply:
            report = json.load(reply)
        assert report["report"]["players"] == ["ai:1", "ai:2"]
        assert report["report"]["distinct_games"] == 2
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
    assert process.stdout is not None and "Distinct games: 2 of 2" in process.stdout.read()


def test_a_tcp_seat_of_hub_play_waits_for_a_client_speaking_the_bot_protocol() -> None:
    process = subprocess.Popen(
        [program("hub"), "play", "connect4", "tcp", "ai:1", "--port", "0", "--no-record"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None and process.stdout is not None
        line = process.stderr.readline()
        assert "Red waits for a client on port " in line, line
        port = line.rsplit(" ", 1)[1].strip()
        bot = subprocess.run(
            [sys.executable, PY_BOT, "--connect", f"127.0.0.1:{port}", "--name", "remote"],
            timeout=60,
            check=False,
        )
        assert bot.returncode == 0
        assert process.wait(timeout=60) == 0
        out = process.stdout.read()
    finally:
        process.kill()
        process.wait()
    assert out.startswith("connect4: Red: remote, Yellow: ai:1\n")
    assert "Red (remote) plays " in out
