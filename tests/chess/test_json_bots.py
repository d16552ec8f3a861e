"""Chess for JSON bots (issue 17): the example bot plays whole games of chess in ``hub match
chess`` over pipes (``json:BOT``) and against ``hub serve chess`` over TCP, and the records
are shown and exported as PGN through the chess package."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import program

ROOT = Path(__file__).resolve().parents[2]
PY_BOT = str(ROOT / "players" / "json_bot.py")
SH_BOT = str(ROOT / "players" / "json_bot.sh")
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
        assert len(record["moves"]) > 8  # a whole game from the opening
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


def test_the_json_bots_play_hub_serve_chess_over_tcp(records_database: Path) -> None:
    server = subprocess.Popen([program("hub"), "serve", "chess"], stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        port = server.stderr.readline().strip()
        address = f"127.0.0.1:{port}"
        versus_ai = subprocess.run(
            [sys.executable, PY_BOT, "--connect", address, "--opponent", "ai:2", "--games", "2"],
            timeout=TIMEOUT,
            check=False,
        )
        assert versus_ai.returncode == 0
        pair = [
            subprocess.Popen([sys.executable, PY_BOT, "--connect", address, "--name", "first"]),
            subprocess.Popen([SH_BOT, "127.0.0.1", port]),
        ]
        assert [process.wait(timeout=TIMEOUT) for process in pair] == [0, 0]
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
    games = records()
    print("DEBUG", [(r["termination"], len(r["moves"])) for r in games])
    # the second game on one connection follows its hello after the end (no second welcome)
    assert [record["termination"] for record in games] == ["normal"] * 3
    assert all(len(record["moves"]) > 8 for record in games)  # type: ignore[arg-type]
    names = sorted(sorted(p["name"] for p in record["players"]) for record in games)  # type: ignore[union-attr]
    assert names == [["ai:2", "json_bot.py"], ["ai:2", "json_bot.py"], ["first", "json_bot.sh"]]


def test_one_connection_plays_two_games_with_one_welcome(records_database: Path) -> None:
    """docs/bots.md: the welcome comes once a connection; after ``end`` the bot's hello
    starts its next game (a second welcome would be answered by a second hello, read as the
    bot's first move)."""
    server = subprocess.Popen(
        [program("hub"), "serve", "chess", "--no-record"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().strip())
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            stream = sock.makefile("rw", encoding="utf-8", newline="\n")

            def send(value: dict[str, object]) -> None:
                stream.write(json.dumps(value) + "\n")
                stream.flush()

            kinds = []
            hello = {"type": "hello", "name": "strict", "opponent": "ai:2"}
            for _ in range(2):
                send(hello)
                while True:
                    message = json.loads(stream.readline())
                    kinds.append(message["type"])
                    if message["type"] == "turn":
                        send({"move": sorted(message["legal"])[0]})
                    elif message["type"] == "end":
                        assert message["termination"] == "normal", message
                        break
            assert kinds[0] == "welcome" and kinds.count("welcome") == 1
            assert kinds.count("start") == 2
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
