"""The web view over real loopback HTTP: pages, JSON, event streams, records, read-only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord
from hub.records import GameSummary, RecordStore
from hub.web import web_address
from hub.web.client import follow
from hub.web.index import ELSEWHERE, GameIndex, elsewhere_row, game_topic
from hub.web.records import RecordsReader
from hub.web.server import WebServer, serve_web, start_web
from tests.web.helpers import ChessGame, play_tictactoe, started, tictactoe

EVIL = "<img src=x onerror=alert(1)>"


@attrs.define
class Web:
    bus: EventBus
    server: WebServer
    client: httpx.AsyncClient

    async def get(self, path: str) -> httpx.Response:
        return await self.client.get(self.server.url(path))

    def follow(self, path: str) -> Any:
        return follow(self.server.host, self.server.port, path)


@pytest.fixture
async def web(nursery: trio.Nursery) -> AsyncIterator[Web]:
    bus = EventBus()
    server = await nursery.start(partial(serve_web, bus))
    async with httpx.AsyncClient(timeout=10) as client:
        yield Web(bus, server, client)


async def settle() -> None:
    """Until the index and the server have taken in what was published or sent: every task
    of this process is blocked (a request on loopback is in the kernel when it was sent,
    so trio's poll sees it: the server is not idle until it has handled it)."""
    await trio.testing.wait_all_tasks_blocked()


async def test_the_lobby_lists_running_and_finished_games_escaped(web: Web) -> None:
    with trio.fail_after(10):
        web.bus.publish(started("g1", "tictactoe", ".........", [EVIL, "o"]))
        result = await play_tictactoe(web.bus)
        await settle()
        page = await web.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page.text
        assert EVIL not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text
        assert f'href="/game/{result.record.game_id}"' in page.text
        games = (await web.get("/api/games")).json()
        assert [row["id"] for row in games["running"]] == ["g1"]
        assert [(row["id"], row["result"]) for row in games["recent"]] == [
            (result.record.game_id, "1-0")
        ]


async def test_a_game_is_followed_live_over_server_sent_events(web: Web) -> None:
    gates = [trio.open_memory_channel[int | None](1) for _ in range(2)]
    match = tictactoe(web.bus, gates=[gate[1] for gate in gates], game_id="live1")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(match.run)
            await settle()
            async with web.follow("/game/live1/events") as messages:
                first = await anext(messages)
                assert first["type"] == "snapshot" and first["game"]["status"] == "running"
                for ply, cell in enumerate([4, 0, 8, 2, 6, 1, 5, 3, 7], 1):
                    await gates[(ply - 1) % 2][0].send(cell)
                    message = await anext(messages)
                    if match.finished and message["type"] == "snapshot":
                        break
                    assert (message["type"], message["ply"], message["move"]) == (
                        "move",
                        ply,
                        str(cell),
                    )
                end = message if message["type"] == "snapshot" else await anext(messages)
                assert end["type"] == "snapshot" and end["game"]["status"] == "finished"
                assert end["game"]["result"] == match.result.record.result_text()  # type: ignore[union-attr]


async def test_a_finished_game_is_replayed_ply_by_ply(web: Web) -> None:
    with trio.fail_after(10):
        result = await play_tictactoe(web.bus)
        await settle()
        game_id = result.record.game_id
        page = await web.get(f"/game/{game_id}")
        assert page.status_code == 200 and 'id="slider"' in page.text
        game = (await web.get(f"/api/game/{game_id}")).json()
        assert [move["move"] for move in game["moves"]] == list("0123456")
        boards = []
        for ply in range(8):
            data = (await web.get(f"/api/game/{game_id}/ply/{ply}")).json()
            assert data["ply"] == ply
            boards.append(data["html"])
        assert "........." in boards[0] and "XOXOXOX.." in boards[7]
        assert (await web.get(f"/api/game/{game_id}/ply/8")).status_code == 404
        assert (await web.get("/api/game/nope/ply/0")).status_code == 404
        assert (await web.get("/game/nope")).status_code == 404


async def test_nothing_but_get(web: Web) -> None:
    with trio.fail_after(10):
        await play_tictactoe(web.bus, game_id="g1")
        for path in [
            "/",
            "/game/g1",
            "/events",
            "/api/games",
            "/api/game/g1",
            "/console",
            "/api/game/g1/ply/1",
        ]:
            for method in ["POST", "PUT", "DELETE", "PATCH"]:
                response = await web.client.request(method, web.server.url(path))
                assert response.status_code == 405, (method, path)
        assert (await web.client.head(web.server.url("/"))).status_code == 200


async def test_a_stalled_connection_costs_a_bounded_queue(web: Web) -> None:
    index = web.server.index
    game = ChessGame(web.bus, "c1", settings={"rules": "uqchess"})
    with trio.fail_after(20):
        game.start()
        stalled = await trio.open_tcp_stream(web.server.host, web.server.port)
        await stalled.send_all(b"GET /game/c1/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        await settle()
        assert index.viewers == 1
        (viewer,) = index._viewers[game_topic("c1")]
        moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 50  # 200 boards of ~15 kB, never read
        for uci in moves:
            game.move(uci)
            await trio.sleep(0)
            assert viewer.pending <= index.viewer_buffer
        await settle()
        assert viewer.resyncs >= 1
        async with web.follow("/game/c1/events") as messages:  # others are served as usual
            snapshot = await anext(messages)
            assert len(snapshot["game"]["moves"]) == 200
        await stalled.aclose()
        with trio.fail_after(5):
            while index.viewers:  # the server sees the stalled page go, then drops its viewer
                await trio.testing.wait_all_tasks_blocked()


async def test_many_followers_get_every_move(web: Web) -> None:
    gates = [trio.open_memory_channel[int | None](1) for _ in range(2)]
    match = tictactoe(web.bus, gates=[gate[1] for gate in gates], game_id="busy")
    got: list[list[int]] = []
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(match.run)
            await settle()
            ready = trio.Semaphore(0)

            async def reader() -> None:
                plies: list[int] = []
                got.append(plies)
                async with web.follow("/game/busy/events") as messages:
                    async for message in messages:
                        if message["type"] == "snapshot":
                            if message["game"]["status"] == "finished":
                                return
                            ready.release()
                        else:
                            plies.append(message["ply"])

            for _ in range(20):
                nursery.start_soon(reader)
            for _ in range(20):
                await ready.acquire()
            for ply in range(7):
                await gates[ply % 2][0].send(None)
    assert got == [[1, 2, 3, 4, 5, 6, 7]] * 20


@attrs.define
class CountingStore:
    """The real records store, counting that each look-up closes what it opened."""

    store: RecordStore
    closed: list[int]

    def get(self, game_id: str) -> GameRecord | None:
        return self.store.get(game_id)

    def games(self, *, limit: int | None = None) -> list[GameSummary]:
        return self.store.games(limit=limit)

    def close(self) -> None:
        self.closed.append(1)
        self.store.close()


async def test_games_from_the_records_store(nursery: trio.Nursery, tmp_path: Path) -> None:
    old = (await play_tictactoe(EventBus(), names=("old", EVIL))).record
    path = tmp_path / "games.db"
    with RecordStore.open(path) as store:
        store.add(old)
    opened: list[int] = []
    closed: list[int] = []

    def opener() -> CountingStore:
        opened.append(1)
        return CountingStore(RecordStore.open(path), closed)

    server = await nursery.start(partial(serve_web, EventBus(), records=RecordsReader(opener)))
    async with httpx.AsyncClient(timeout=10) as client:
        with trio.fail_after(10):
            lobby = (await client.get(server.url("/api/games"))).json()
            assert [row["id"] for row in lobby["recent"]] == [old.game_id]
            assert lobby["recent"][0]["players"][1]["name"] == EVIL
            page = await client.get(server.url(f"/game/{old.game_id[:8]}"))  # a unique prefix
            assert page.status_code == 200 and EVIL not in page.text
            ply = (await client.get(server.url(f"/api/game/{old.game_id}/ply/3"))).json()
            assert "XOX......" in ply["html"]
            assert (await client.get(server.url("/game/unknown"))).status_code == 404
            reader = RecordsReader.at(path)
            assert (await reader.get(old.game_id)) == old
    assert len(opened) == len(closed) == 4


async def test_start_web_prints_the_url_on_its_own_line(
    nursery: trio.Nursery, capfd: pytest.CaptureFixture[str]
) -> None:
    server = await start_web(nursery, EventBus(), ("127.0.0.1", 0))
    assert server is not None and server.port > 0
    assert capfd.readouterr() == ("", f"http://127.0.0.1:{server.port}/\n")
    taken = ("127.0.0.1", server.port)
    with pytest.raises(OSError):
        await start_web(nursery, EventBus(), taken)
    assert await start_web(nursery, EventBus(), taken, prog="prog") is None
    out, err = capfd.readouterr()
    assert out == "" and err.startswith(f"prog: can't serve the web view on port {server.port}: ")


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("0", ("127.0.0.1", 0)),
        ("8080", ("127.0.0.1", 8080)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("[::1]:9000", ("::1", 9000)),
        ("localhost:1", ("localhost", 1)),
    ],
)
def test_web_address(text: str, address: tuple[str, int]) -> None:
    assert web_address(text) == address


@pytest.mark.parametrize("text", ["", "x", "-1", "65536", ":80", "host:", "1.5"])
def test_bad_web_address(text: str) -> None:
    with pytest.raises(ValueError, match="is not"):
        web_address(text)


async def test_cancelling_the_server_ends_open_streams_at_once() -> None:
    bus = EventBus()
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            server = await nursery.start(partial(serve_web, bus))
            async with follow(server.host, server.port, "/events") as messages:
                assert (await anext(messages))["type"] == "lobby"
                nursery.cancel_scope.cancel()


async def test_the_console_api(web: Web) -> None:
    with trio.fail_after(10):
        score = {"white": 2, "black": 0}
        game = ChessGame(web.bus, "c1", settings={"rules": "console", "score": score})
        game.start()
        game.move("e2e4")
        await settle()
        console = (await web.get("/api/console")).json()
        assert console["score"] == {"white": "2", "black": "0"}
        assert console["game"]["moves"][0]["move"] == "e2e4"
        page = await web.get("/console")
        assert "Score: White <b>2</b>, Black <b>0</b>" in page.text
        assert json.dumps(console)  # plain JSON


def test_a_fresh_index_serves_an_empty_lobby() -> None:
    assert GameIndex().lobby() == {"running": [], "recent": []}


async def test_a_game_running_at_another_process_is_listed_and_its_page_says_so(
    web: Web,
) -> None:
    far = elsewhere_row("far", "tictactoe", [{"name": EVIL, "kind": "remote"}], 1.0)
    web.server.index.set_elsewhere([far])
    with trio.fail_after(10):
        page = await web.get("/")
        assert 'href="/game/far"' in page.text and ELSEWHERE in page.text
        assert EVIL not in page.text
        shown = await web.get("/game/far")
        assert shown.status_code == 200 and "being played at another process" in shown.text
        assert EVIL not in shown.text and "&lt;img src=x" in shown.text
        assert (await web.get("/game/near")).status_code == 404
        web.server.index.set_elsewhere([])
        assert (await web.get("/game/far")).status_code == 404  # (it ended: no record here)
