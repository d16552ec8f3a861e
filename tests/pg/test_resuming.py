"""An adjourned game resumed by one process of a hub on PostgreSQL (hub/records/resuming.py,
docs/running.md): the first process to seat a returning player holds the game; a player who
comes back to another process is relayed to the holder; a holder whose heartbeat has gone
stale (it died) counts for nothing. End to end: a game of two registered bots adjourned by
one ``hub serve``, its bots back at two other processes: it is played on once (one
``game_started`` in both logs) and recorded once, finished."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from hub.declared.adjourned import ADJOURNED, ADJOURNED_AT
from hub.records import RecordStore
from hub.records.database import location
from hub.records.live import STALE
from hub.records.resuming import SharedHolds, hold, release, release_all
from hub.records.waiting import SharedQueue
from tests.conftest import program
from tests.pg.servers import DEADLINE, PY_BOT

pytestmark = pytest.mark.system

GAME_ID = "ab" * 16


def age(url: str, process: str, seconds: float) -> None:
    """``process`` last heard from ``seconds`` earlier."""
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "UPDATE hub_processes SET seen = seen - %s WHERE process = %s", (seconds, process)
        )


@pytest.fixture
async def queues(pg_url: str) -> AsyncIterator[tuple[SharedQueue, SharedQueue]]:
    warnings: list[str] = []
    where = location(pg_url)
    pair = [await SharedQueue.open(where, f"127.0.0.1:{n}", warnings.append) for n in (1, 2)]
    try:
        yield pair[0], pair[1]
    finally:
        for queue in pair:
            await queue.aclose()
    assert warnings == []


async def test_one_process_holds_a_game_until_it_lets_go_or_goes_stale(
    pg_url: str, queues: tuple[SharedQueue, SharedQueue]
) -> None:
    import trio

    one, two = queues
    async with trio.open_nursery() as nursery:
        first, second = SharedHolds(one, nursery), SharedHolds(two, nursery)
        assert await first.hold(GAME_ID) is None  # held here
        assert await first.hold(GAME_ID) is None  # (again: still ours)
        assert await second.hold(GAME_ID) == "127.0.0.1:1"  # the holder's address
        assert await second.hold("cd" * 16) is None  # another game: free
        first.release(GAME_ID)
        await trio.testing.wait_all_tasks_blocked()
    async with trio.open_nursery() as nursery:
        first, second = SharedHolds(one, nursery), SharedHolds(two, nursery)
        assert await second.hold(GAME_ID) is None  # let go: the other takes it
        assert await first.hold(GAME_ID) == "127.0.0.1:2"
        # its holder dies: silent for STALE s, its hold counts for nothing
        age(pg_url, two.board.process, STALE + 1)
        assert await first.hold(GAME_ID) is None
        assert await second.hold(GAME_ID) == "127.0.0.1:1"  # (and it lost the game)
        await second.aclose()  # (a process going away lets its games go: none held)
        assert await second.hold(GAME_ID) == "127.0.0.1:1"
        await first.aclose()
        assert await second.hold(GAME_ID) is None

    # the statements themselves: release only one's own, release_all only one's own
    held = await one.on_board(lambda board: hold(board, "ef" * 16))
    assert held is not None and held.process == one.board.process
    await two.on_board(lambda board: release(board, "ef" * 16))  # (not two's: no-op)
    await two.on_board(release_all)
    held = await two.on_board(lambda board: hold(board, "ef" * 16))
    assert held is not None and held.process == one.board.process


def _add_bot(url: str, name: str) -> str:
    added = subprocess.run(
        [program("hub"), "bots", "add", "--db", url, name],
        capture_output=True,
        text=True,
        check=True,
        timeout=DEADLINE,
    )
    return added.stdout.strip()


def _serve(url: str) -> tuple[subprocess.Popen[str], int]:
    """``hub serve`` (every game) on ``url``, logging its events; its TCP port."""
    process = subprocess.Popen(
        [program("hub"), "serve", "--db", url, "--drain", "0", "--tc", "300+2", "-v"],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    return process, int(process.stderr.readline().strip())


def _stop(process: subprocess.Popen[str]) -> str:
    """SIGTERM (a drain of 0 s); the rest of its stderr."""
    process.send_signal(signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 143, err
    return err


def _finish(bot: subprocess.Popen[str]) -> str:
    """The bot's stderr once it has ended (killed after `DEADLINE` s)."""
    try:
        return bot.communicate(timeout=DEADLINE)[1]
    except subprocess.TimeoutExpired:
        bot.kill()
        return bot.communicate()[1] + "(killed: it did not end)"


class Client:
    """A bot over TCP played by the test, one line at a time."""

    def __init__(self, port: int, hello: dict[str, Any]) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        self.stream = self.sock.makefile("rw", encoding="utf-8", newline="\n")
        assert self.receive()["type"] == "welcome"
        self.send(hello)

    def send(self, value: dict[str, Any]) -> None:
        self.stream.write(json.dumps(value) + "\n")
        self.stream.flush()

    def receive(self) -> dict[str, Any]:
        line = self.stream.readline()
        assert line, "the server closed the connection"
        message: dict[str, Any] = json.loads(line)
        return message

    def until(self, kind: str) -> dict[str, Any]:
        while (message := self.receive())["type"] != kind:
            pass
        return message

    def close(self) -> None:
        self.stream.close()
        self.sock.close()


def test_a_game_adjourned_at_one_process_is_resumed_once_by_two_others(pg_url: str) -> None:
    tokens = {name: _add_bot(pg_url, name) for name in ("alice", "bob")}
    first, port = _serve(pg_url)
    clients: list[Client] = []
    try:
        for name, token in tokens.items():
            hello = {"type": "hello", "name": name, "token": token, "game": "connect4"}
            clients.append(Client(port, hello))
        starts = [client.until("start") for client in clients]
        game_id = starts[0]["game_id"]
        assert starts[1]["game_id"] == game_id
        order = sorted(clients, key=lambda client: starts[clients.index(client)]["seat"])
        for _ in range(2):  # two moves each; then the server stops while the first thinks
            for client in order:
                client.send({"move": client.until("turn")["legal"][0]})
        order[0].until("turn")
        _stop(first)
        for client in clients:
            end = client.until("end")
            assert (end["termination"], end["detail"]) == ("aborted", ADJOURNED)
    finally:
        for client in clients:
            client.close()
        if first.poll() is None:
            first.kill()
            first.communicate()
    with RecordStore.open(pg_url) as store:
        adjourned = store.get(game_id)
    assert adjourned is not None and adjourned.detail == ADJOURNED
    assert len(adjourned.moves) == 4

    # both bots come back, each to another process (one of them started anew)
    (two, two_port), (three, three_port) = _serve(pg_url), _serve(pg_url)
    logs: list[str] = []
    try:
        bots = [
            subprocess.Popen(
                [
                    *(sys.executable, PY_BOT, "--connect", f"127.0.0.1:{at}"),
                    *("--game", "connect4", "--name", name, f"--token={token}"),
                    *("--resume", game_id, "--seed", "1"),
                ],
                stderr=subprocess.PIPE,
                text=True,
            )
            for (name, token), at in zip(tokens.items(), (two_port, three_port), strict=True)
        ]
        said = [_finish(each) for each in bots]
        logs = [_stop(two), _stop(three)]
        assert [each.returncode for each in bots] == [0, 0], (said, logs)
    finally:
        for server in (two, three):
            if server.poll() is None:
                server.kill()
                server.communicate()
    started = [
        line
        for log in logs
        for line in log.splitlines()
        if re.search(rf"event=game_started .*id={game_id[:8]}", line)
    ]
    assert len(started) == 1, logs  # played on once, at one process
    with RecordStore.open(pg_url) as store:
        games = [summary.game_id for summary in store.games()]
        record = store.get(game_id)
    assert games == [game_id]  # recorded once: the adjourned record replaced
    assert record is not None and record.termination.value != "aborted", record.detail
    assert record.moves[:4] == adjourned.moves and len(record.moves) > 4
    assert record.settings[ADJOURNED_AT] == [4]
    with psycopg.connect(pg_url) as db:  # (both processes let their games go)
        assert db.execute("SELECT count(*) FROM hub_resuming").fetchone() == (0,)
