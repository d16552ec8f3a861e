"""The operator's round-robin among the bots present, end to end (issue 27 item 3): ``hub
serve --admin-token``, an unauthenticated start refused, then a round-robin of one game a
pair that three JSON bots (players/json_bot.py over TCP) enter; all three games are played
and recorded with the match's id, and the standings API and page show the table."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from hub.records import RecordStore
from tests.conftest import program

pytestmark = [pytest.mark.system, pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "players" / "json_bot.py"
TIMEOUT = 120
TOKEN = "operator-secret-1"


def call(url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    """A GET (or a POST of ``body``): the status and the JSON answer."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
        text: str = answer.read().decode()
        return text


def start(database: Path, kind: str) -> tuple[subprocess.Popen[str], int, str]:
    """``hub serve --games connect4`` (``site``) or ``hub serve connect4`` (``game``) with
    the operator's token: the process, its TCP port and connect4's web root (no slash)."""
    games = ["--games", "connect4"] if kind == "site" else ["connect4"]
    server = subprocess.Popen(
        [program("hub"), "serve", *games, "--db", str(database), "--tc", "none",
         "--web", "0", "--admin-token", TOKEN],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert server.stderr is not None
    port = int(server.stderr.readline().strip())
    web = server.stderr.readline().strip().rstrip("/")
    return server, port, web + ("/connect4" if kind == "site" else "")


def stop(server: subprocess.Popen[str]) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        assert server.stderr is not None
        server.stderr.close()


@pytest.mark.parametrize("kind", ["site", "game"])
def test_three_bots_play_a_round_robin_the_operator_started_and_a_stranger_cannot_start_one(
    tmp_path: Path, kind: str
) -> None:
    """The same on ``hub serve`` (the game's root ``/connect4/``) and ``hub serve connect4``
    (``/``); the standings are there again when the server is started again."""
    database = tmp_path / "games.db"
    server, port, root = start(database, kind)
    prefix = "/connect4" if kind == "site" else ""  # (the game's pages' path)
    bots: list[subprocess.Popen[str]] = []
    try:
        admin = f"{root}/admin/round-robin"

        assert call(admin, {"games": 1, "players": 3})[0] == 401  # no token
        status, answer = call(admin, {"games": 1, "players": 3}, token="guess")
        assert status == 401 and "token" in answer["error"]
        assert 'id="standings-link"' not in page(f"{root}/")

        status, started = call(admin, {"games": 1, "players": 3}, token=TOKEN)
        assert status == 200, started
        assert started["state"] == "gathering" and started["players"] == []
        assert call(admin, {"games": 1}, token=TOKEN)[0] == 409  # one at a time
        assert 'id="standings-link"' in page(f"{root}/")

        for n in range(3):  # each plays its two games (a hello after the first)
            options = ["--game", "connect4", "--name", f"b{n}", "--games", "2", "--seed", str(n)]
            bots.append(
                subprocess.Popen(
                    [sys.executable, str(BOT), "--connect", f"127.0.0.1:{port}", *options],
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        for bot in bots:
            _, err = bot.communicate(timeout=TIMEOUT)
            assert bot.returncode == 0, err

        # The bots have their last `end`; the round-robin is over once every game's match
        # is written in the records (its own task): read its state until it says so.
        report, standings = over(root)
        assert report["match_id"] == started["match_id"]
        assert report["state"] == "over" and report["games"] == 3 and report["scored"] == 3
        rows = {row["player"]: row for row in report["standings"]}
        assert set(rows) == {"b0", "b1", "b2"}
        assert all(row["games"] == 2 for row in rows.values())
        assert sum(row["points"] for row in rows.values()) == 3
        assert report["format"]["name"] == "round-robin"
        assert 'id="crosstable"' in standings["html"]
        assert f'href="{prefix}/game/{started["match_id"]}-0000' in standings["html"]
        assert "b0" in standings["text"]
        assert 'id="standings-table"' in page(f"{root}/match")
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
        stop(server)

    with RecordStore.open(database) as store:
        games = store.games(game="connect4")
        assert len(games) == 3
        match = started["match_id"]
        assert sorted(summary.game_id for summary in games) == [
            f"{match}-{index:05d}" for index in range(3)
        ]
        assert {(summary.match_id, summary.index) for summary in games} == {
            (match, index) for index in range(3)
        }

    # started again: the last round-robin's standings, read from the records
    server, port, root = start(database, kind)
    try:
        again, _ = over(root)
        assert again["match_id"] == match and again["state"] == "over"
        assert again["games"] == 3 and again["scored"] == 3
        assert again["standings"] == report["standings"]
        assert 'id="standings-link"' in page(f"{root}/")
    finally:
        stop(server)


def over(root: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The round-robin's report once it says it is over (and the whole answer)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        status, standings = call(f"{root}/api/match")
        assert status == 200
        report: dict[str, Any] = standings.get("report") or {}
        if report.get("state") == "over" or time.monotonic() > deadline:
            return report, standings
        time.sleep(0.05)
