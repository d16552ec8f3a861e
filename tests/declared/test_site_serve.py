"""``hub serve`` alone as a user runs it (issue 27 items 1 and 5): one process, one TCP port,
every installed game. Two JSON bots play two different games against ``ai:1`` through the
one port; a third stalls in its game, and SIGTERM lets the others' games stand, adjourns the
stalled one after ``--drain`` and keeps it in the records, exit status 143."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hub.declared.site import ADJOURNED
from hub.records import RecordStore
from tests.conftest import program

pytestmark = [pytest.mark.system, pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "players" / "json_bot.py"
TIMEOUT = 120


def test_bots_of_two_games_play_through_one_port_and_a_stalled_game_is_adjourned_and_kept(
    tmp_path: Path,
) -> None:
    database = tmp_path / "games.db"
    added = subprocess.run(
        [program("hub"), "bots", "add", "--db", str(database), "kalah-bot"],
        capture_output=True,
        text=True,
        check=True,
    )
    token = added.stdout.strip()
    server = subprocess.Popen(
        [program("hub"), "serve", "--db", str(database), "--drain", "1", "--tc", "none"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().strip())

        def bot(game: str, *more: str) -> subprocess.Popen[str]:
            address = f"127.0.0.1:{port}"
            options = ["--game", game, "--opponent", "ai:1", "--name", f"{game}-bot", *more]
            return subprocess.Popen(
                [sys.executable, str(BOT), "--connect", address, *options, "--seed", "1"],
                stderr=subprocess.PIPE,
                text=True,
            )

        impostor = bot("kalah", "--token", "not-" + token)  # a registered name: refused
        _, err = impostor.communicate(timeout=TIMEOUT)
        assert impostor.returncode != 0 and "token" in err, err
        bots = {game: bot(game) for game in ("connect4",)}
        bots["kalah"] = bot("kalah", f"--token={token}")  # the registered bot, on every game
        for game, running in bots.items():
            _, err = running.communicate(timeout=TIMEOUT)
            assert running.returncode == 0, (game, err)
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            stream = sock.makefile("rw", encoding="utf-8", newline="\n")
            welcome = json.loads(stream.readline())
            assert welcome["type"] == "welcome"
            assert {"connect4", "kalah", "chess", "clubs"} <= set(welcome["games"])
            hello = {"type": "hello", "name": "staller", "game": "connect4", "opponent": "random"}
            stream.write(json.dumps(hello) + "\n")
            stream.flush()
            while json.loads(stream.readline())["type"] != "turn":
                pass  # its turn: it never moves
            server.send_signal(signal.SIGTERM)
            while (end := json.loads(stream.readline()))["type"] != "end":
                pass
            assert (end["termination"], end["detail"]) == ("aborted", ADJOURNED)
        assert server.wait(timeout=30) == 143
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    with RecordStore.open(database) as store:
        games = {summary.game: summary for summary in store.games()}
        assert set(games) == {"connect4", "kalah"}
        adjourned = [summary for summary in store.games() if summary.termination == "aborted"]
        assert [(s.game, s.detail) for s in adjourned] == [("connect4", ADJOURNED)]
        assert len(store.games(game="kalah")) == 1
        assert "bot:kalah-bot" in games["kalah"].identities
        assert len(store.games(game="connect4")) == 2
