"""An adjourned game played on (issue 27 item 5), as a user runs it: ``hub serve`` on a
database, a registered JSON bot against ``ai:1``; SIGTERM with ``--drain 0`` adjourns the
game after a few moves; ``hub serve`` again on the same database, the bot's hello says
``"resume": GAME_ID`` and it plays the game to its end. The store then holds one game under
that id, finished, whose first moves are the adjourned ones, and another registered bot
could not take the seat."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hub.declared.adjourned import ADJOURNED, ADJOURNED_AT
from hub.records import RecordStore
from tests.conftest import program

pytestmark = [pytest.mark.system, pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "players" / "json_bot.py"
TIMEOUT = 120


def _add_bot(database: Path, name: str) -> str:
    added = subprocess.run(
        [program("hub"), "bots", "add", "--db", str(database), name],
        capture_output=True,
        text=True,
        check=True,
    )
    return added.stdout.strip()


def _serve(database: Path) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [program("hub"), "serve", "--db", str(database), "--drain", "0", "--tc", "300+2"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    return server, int(server.stderr.readline().strip())


def _stop(server: subprocess.Popen[str]) -> int:
    server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_a_bot_resumes_its_adjourned_game_after_a_restart_and_finishes_it(
    tmp_path: Path,
) -> None:
    database = tmp_path / "games.db"
    token = _add_bot(database, "resumer")
    other = _add_bot(database, "other")
    server, port = _serve(database)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            stream = sock.makefile("rw", encoding="utf-8", newline="\n")

            def send(value: dict[str, Any]) -> None:
                stream.write(json.dumps(value) + "\n")
                stream.flush()

            assert json.loads(stream.readline())["type"] == "welcome"
            hello = {"type": "hello", "name": "resumer", "token": token, "game": "connect4"}
            send({**hello, "opponent": "ai:1"})
            turns, started = 0, ""
            while True:
                message = json.loads(stream.readline())
                if message["type"] == "start":
                    started = message["game_id"]  # (what it resumes)
                if message["type"] != "turn":
                    continue
                if turns == 3:  # its fourth turn: the server stops while it thinks
                    break
                turns += 1
                send({"move": message["legal"][0]})
            assert _stop(server) == 143
            while (end := json.loads(stream.readline()))["type"] != "end":
                pass
            assert (end["termination"], end["detail"]) == ("aborted", ADJOURNED)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    with RecordStore.open(database) as store:
        (summary,) = store.games()
        adjourned = store.get(summary.game_id)
    assert adjourned is not None and adjourned.detail == ADJOURNED
    assert len(adjourned.moves) >= 6  # three of its moves, three of ai:1's
    game_id = adjourned.game_id
    assert started == game_id

    server, port = _serve(database)
    try:

        def bot(name: str, token: str) -> subprocess.Popen[str]:
            return subprocess.Popen(
                [
                    *(sys.executable, str(BOT), "--connect", f"127.0.0.1:{port}"),
                    *("--game", "connect4", "--name", name, f"--token={token}"),
                    *("--resume", game_id, "--seed", "1"),
                ],
                stderr=subprocess.PIPE,
                text=True,
            )

        impostor = bot("other", other)  # a registered bot, not the seat's: refused
        _, err = impostor.communicate(timeout=TIMEOUT)
        assert impostor.returncode == 1 and "other has no seat" in err, err
        resumer = bot("resumer", token)
        _, err = resumer.communicate(timeout=TIMEOUT)
        assert resumer.returncode == 0, err
        again = bot("resumer", token)  # the game is over: nothing to resume
        _, err = again.communicate(timeout=TIMEOUT)
        assert again.returncode == 1 and "played on already" in err, err
        assert _stop(server) == 143
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    with RecordStore.open(database) as store:
        (summary,) = store.games()  # one game: the adjourned record replaced
        record = store.get(game_id)
    assert record is not None and summary.game_id == game_id
    assert record.termination.value != "aborted", record.detail
    assert record.moves[: len(adjourned.moves)] == adjourned.moves
    assert len(record.moves) > len(adjourned.moves)
    assert record.settings[ADJOURNED_AT] == [len(adjourned.moves)]
    assert record.started_at == adjourned.started_at
    assert [player.identity for player in record.players] == [
        player.identity for player in adjourned.players
    ]
