"""Names that last (issue 27 item 2): a JSON bot plays as a registered name only with its
token, a guest only where the operator allows guests; a person picks a name once on the
lobby page and no one else can start a game under it; the leaderboard and a player's page
list a bot and a person after their games (item 3). Over memory streams and httpx's ASGI
transport, and one loopback test of ``hub serve`` with ``hub bots add``."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.io.serve import Connection
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import GameStarted
from hub.declared.browser import SeatDesk
from hub.declared.serve import GameServer
from hub.games.connect4 import ConnectFour
from hub.records.identities import IdentityStore, NameBook
from hub.records.leaderboard import LeaderboardReader
from hub.records.recording import recording
from hub.web.app import create_app
from hub.web.index import GameIndex
from hub.web.limits import ClientLimits
from hub.web.ratings import Ratings
from tests.conftest import program

SITE = "http://127.0.0.1:8000"


def server(path: Path | None, *, guests: bool = True, nursery: Any = None) -> GameServer:
    return GameServer(
        ConnectFour(),
        TimeControl(),
        EventBus(),
        nursery=nursery,
        desk=SeatDesk(),
        names=None if path is None else NameBook.at(path),
        guests=guests,
    )


def register(path: Path, name: str, kind: str = "bot") -> str:
    with IdentityStore.open(path) as names:
        return names.add(name, kind)


async def converse(
    lobby: GameServer, hello: dict[str, Any], *, play: bool = False
) -> tuple[list[dict[str, Any]], list[GameStarted]]:
    """A bot's conversation: the welcome, ``hello``, then every line until the server closes
    (``play``: moving first legal moves to the game's end, then leaving); the replies after
    the welcome and the games that started. Returns only once the server's handler has
    returned: the connection is closed."""
    ours, theirs = trio.testing.memory_stream_pair()
    connection = Connection(0, ours, LineStream(ours, ours, max_line=4096), None)  # type: ignore[arg-type]
    client = LineStream(theirs, theirs, max_line=1 << 20)
    replies: list[dict[str, Any]] = []
    started: list[GameStarted] = []
    stop = lobby.events.listen(
        lambda event: started.append(event) if isinstance(event, GameStarted) else None
    )
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:

            async def serve() -> None:
                await lobby.handle(connection)
                await ours.aclose()

            nursery.start_soon(serve)
            assert json.loads(await client.receive_line())["type"] == "welcome"
            await client.send_line(json.dumps(hello))
            while True:
                try:
                    message = json.loads(await client.receive_line())
                except Exception:  # EOF: the server closed
                    break
                replies.append(message)
                if message["type"] == "turn":
                    await client.send_line(json.dumps({"move": message["legal"][0]}))
                elif message["type"] == "end" or not play:
                    await theirs.aclose()
                    break
    stop()
    return replies, started


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


async def test_a_registered_name_with_its_token_plays_as_that_identity(db: Path) -> None:
    token = register(db, "Robo")
    hello = {"type": "hello", "name": "robo", "opponent": "random", "token": token}
    replies, started = await converse(server(db, guests=False), hello)
    assert replies[0]["type"] == "start" and replies[0]["players"][0] == "Robo"
    assert started[0].players[0].identity == "bot:Robo"


@pytest.mark.parametrize(
    ("token", "words"),
    [
        (None, '"robo" is a registered name: send its token ("token") to play as it'),
        ("not-its-token", 'wrong token for "robo"'),
        ("person", 'wrong token for "robo"'),  # another name's token
    ],
)
async def test_a_registered_name_without_its_token_is_refused_and_closed(
    db: Path, token: str | None, words: str
) -> None:
    register(db, "robo")
    alice = register(db, "alice", "person")
    hello: dict[str, Any] = {"type": "hello", "name": "robo", "opponent": "random"}
    if token is not None:
        hello["token"] = alice if token == "person" else token
    replies, started = await converse(server(db), hello)
    assert replies == [{"type": "error", "error": words}] and not started


async def test_a_guest_plays_unrated_where_guests_are_allowed(db: Path) -> None:
    register(db, "robo")
    hello = {"type": "hello", "name": "visitor", "opponent": "random"}
    replies, started = await converse(server(db), hello)
    assert replies[0]["type"] == "start"
    assert started[0].players[0].identity == "remote:visitor"
    nameless = {"type": "hello", "opponent": "random"}
    replies, started = await converse(server(db), nameless)
    assert replies[0]["players"][0] == "anonymous"


@pytest.mark.parametrize("path", ["db", None])
async def test_a_guest_is_refused_where_guests_are_not(db: Path, path: str | None) -> None:
    for hello in (
        {"type": "hello", "name": "visitor", "opponent": "random"},
        {"type": "hello", "opponent": "any"},
    ):
        replies, started = await converse(server(db if path else None, guests=False), hello)
        assert len(replies) == 1 and replies[0]["type"] == "error" and not started
        assert "admits no guests" in replies[0]["error"]


async def test_a_token_with_a_name_that_is_not_registered_is_refused(db: Path) -> None:
    hello = {"type": "hello", "name": "visitor", "opponent": "random", "token": "x" * 43}
    replies, _ = await converse(server(db), hello)
    assert replies[0]["type"] == "error"
    assert "not a registered name" in replies[0]["error"]
    assert "send no token to play as a guest" in replies[0]["error"]


def client(app: Any, address: str = "10.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url=SITE)


def site(db: Path, nursery: trio.Nursery, *, guests: bool = True) -> tuple[GameServer, Any]:
    lobby = server(db, guests=guests, nursery=nursery)
    app = create_app(
        GameIndex(),
        desk=lobby.desk,
        host=lobby,
        limits=ClientLimits(clock=lambda: 0.0),
        ratings=Ratings(LeaderboardReader(db), ("connect4",)),
    )
    return lobby, app


async def test_a_person_keeps_a_name_no_other_browser_can_play_under(
    db: Path, nursery: trio.Nursery
) -> None:
    register(db, "robo")
    lobby, app = site(db, nursery, guests=False)
    async with client(app) as first, client(app, "10.0.0.2") as second:
        taken = await first.post("/name", json={"name": "alice"})
        assert taken.status_code == 200 and taken.json()["name"] == "alice"
        token = taken.json()["token"]
        for name in ("Alice", "robo", "browser"):  # taken (any case, any kind) or kept
            again = await second.post("/name", json={"name": name})
            assert again.status_code == 409 and again.json()["error"]
        for body in (
            {"opponent": "random", "name": "alice"},
            {"opponent": "random", "name": "alice", "token": "guessed"},
            {"opponent": "random", "name": "robo", "token": token},
            {"opponent": "random"},  # a guest, and this server admits none
        ):
            refused = await second.post("/new", json=body)
            assert refused.status_code == 403 and refused.json()["error"], body
        mine = await first.post(
            "/new", json={"opponent": "random", "name": "alice", "token": token}
        )
        assert mine.status_code == 200
        seat = lobby.desk.find(mine.json()["play"].rsplit("/", 1)[1])  # type: ignore[union-attr]
        assert seat is not None and seat.player.identity == "person:alice"


async def test_the_leaderboard_lists_a_bot_and_a_person_after_their_games(
    db: Path, nursery: trio.Nursery
) -> None:
    robo = register(db, "robo")
    lobby, app = site(db, nursery)
    async with recording(lobby.events, db, prog="test"), client(app) as http:
        hello = {"type": "hello", "name": "robo", "opponent": "random", "token": robo}
        replies, _ = await converse(lobby, hello, play=True)
        assert replies[-1]["type"] == "end"
        await converse(lobby, {"type": "hello", "name": "visitor", "opponent": "ai:1"}, play=True)
        token = (await http.post("/name", json={"name": "alice"})).json()["token"]
        play = await http.post("/new", json={"opponent": "ai:1", "name": "alice", "token": token})
        seat = lobby.desk.find(play.json()["play"].rsplit("/", 1)[1])  # type: ignore[union-attr]
        assert seat is not None
        with trio.fail_after(30):
            while seat.resign() is not None:  # (once the game has started)
                await seat.wait_changed(seat.version)
            while not seat.over:
                await seat.wait_changed(seat.version)
    await lobby.refresh_ratings(LeaderboardReader(db))  # what the pairing reads
    assert {"bot:robo", "person:alice", "connect4/random", "connect4/ai:1"} == set(lobby.ratings)
    async with client(app) as http:
        board = (await http.get("/api/ratings/connect4")).json()
        listed = {player["identity"]: player for player in board["players"]}
        assert set(listed) == set(lobby.ratings)
        assert all(listed[who]["rating"] == rating for who, rating in lobby.ratings.items())
        assert board["rated_games"] == 2 and board["guest_games"] == 1  # the visitor's
        assert listed["person:alice"]["losses"] == 1
        page = (await http.get("/ratings")).text
        assert 'href="/player/robo"' in page and 'href="/player/alice"' in page
        assert "visitor" not in page and "1 with a guest (recorded, not rated)" in page
        alice = await http.get("/player/alice")
        assert alice.status_code == 200 and "alice (a person)" in alice.text
        assert 'href="/game/' in alice.text and "connect4</b>: " in alice.text
        assert (await http.get("/player/visitor")).status_code == 404
        assert (await http.get("/ratings/kalah")).status_code == 404


async def test_the_next_to_arrive_meets_the_waiting_player_of_the_nearest_rating(
    nursery: trio.Nursery,
) -> None:
    """Ratings fed by the server: two far apart wait (1000 Elo), a newcomer near one of
    them (50 Elo) plays that one at once; the other keeps waiting."""
    lobby = server(None, nursery=nursery)
    lobby.ratings = {"remote:low": 0.0, "remote:high": 1000.0, "remote:near": 950.0}
    started: list[GameStarted] = []
    seated = trio.Event()

    def on(event: object) -> None:
        if isinstance(event, GameStarted):
            started.append(event)
            seated.set()

    lobby.events.listen(on)

    async def bot(name: str, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        ours, theirs = trio.testing.memory_stream_pair()
        connection = Connection(0, ours, LineStream(ours, ours, max_line=4096), None)  # type: ignore[arg-type]
        client = LineStream(theirs, theirs, max_line=1 << 20)
        nursery.start_soon(lobby.handle, connection)
        await client.receive_line()
        await client.send_line(json.dumps({"type": "hello", "name": name, "opponent": "any"}))
        task_status.started()
        while True:
            message = json.loads(await client.receive_line())
            if message["type"] == "turn":
                await client.send_line(json.dumps({"move": message["legal"][0]}))

    await nursery.start(bot, "low")
    await nursery.start(bot, "high")
    with trio.fail_after(5):
        while len(lobby.queue) < 2:
            await trio.testing.wait_all_tasks_blocked()
    assert not started  # 1000 apart: neither accepts the other yet
    await nursery.start(bot, "near")
    with trio.fail_after(5):
        await seated.wait()
    assert [player.name for player in started[0].players] == ["high", "near"]
    assert [entry.item.player.name for entry in lobby.queue.waiting] == ["low"]
    nursery.cancel_scope.cancel()


@pytest.mark.system
def test_hub_serve_takes_the_token_of_hub_bots_add_and_refuses_the_rest(tmp_path: Path) -> None:
    """One loopback test, as a user runs it: ``hub bots add``, ``hub serve --no-guests``."""
    db = str(tmp_path / "games.db")
    added = subprocess.run(
        [program("hub"), "bots", "add", "robo", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = added.stdout.strip()
    serving = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--db", db, "--no-guests", "--tc", "none"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert serving.stderr is not None
        port = int(serving.stderr.readline().strip())

        def first_reply(hello: dict[str, Any]) -> tuple[dict[str, Any], str]:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
                stream = sock.makefile("rw", encoding="utf-8", newline="\n")
                assert json.loads(stream.readline())["type"] == "welcome"
                stream.write(json.dumps(hello) + "\n")
                stream.flush()
                reply = json.loads(stream.readline())
                rest = stream.readline() if reply["type"] == "error" else ""
                return reply, rest

        base = {"type": "hello", "name": "robo", "opponent": "random"}
        reply, _ = first_reply({**base, "token": token})
        assert reply["type"] == "start" and reply["players"][0] == "robo"
        for hello in (base, {**base, "token": token[::-1]}, {**base, "name": "guest1"}):
            reply, rest = first_reply(hello)
            assert reply["type"] == "error" and rest == "", (hello, reply)
    finally:
        serving.send_signal(signal.SIGINT)
        assert serving.wait(timeout=30) == 130


async def test_a_friends_seat_takes_a_checked_name_only_before_its_page_comes(
    db: Path, nursery: trio.Nursery
) -> None:
    register(db, "robo")
    lobby, app = site(db, nursery)
    lobby.arrival = 60.0  # (people are waited for: the game starts once both pages came)
    async with client(app) as host, client(app, "10.0.0.2") as friend:
        alice = (await host.post("/name", json={"name": "alice"})).json()["token"]
        bob = (await friend.post("/name", json={"name": "bob"})).json()["token"]
        started = (
            await host.post("/new", json={"opponent": "person", "name": "alice", "token": alice})
        ).json()
        mine, theirs = started["play"], started["share"]
        page = await friend.get(theirs)
        assert 'data-nameable="1"' in page.text
        assert 'data-nameable="1"' not in (await host.get(mine)).text  # (alice's own seat)
        for body, status in (
            ({"name": "bob", "token": "guessed"}, 403),  # a wrong token
            ({"name": "robo", "token": bob}, 403),  # another's name
            ({"name": "alice", "token": alice}, 409),  # the host's own name: stays friend
            ({"name": "bob"}, 400),
        ):
            refused = await friend.post(f"{theirs}/name", json=body)
            assert refused.status_code == status and refused.json()["error"], body
        assert (
            await host.post(f"{mine}/name", json={"name": "bob", "token": bob})
        ).status_code == 409
        taken = await friend.post(f"{theirs}/name", json={"name": "bob", "token": bob})
        assert taken.status_code == 200
        seat = lobby.desk.find(theirs.rsplit("/", 1)[1])  # type: ignore[union-attr]
        assert seat is not None and seat.player.identity == "person:bob"
        with seat.attend():  # its page has come: too late to change who plays it
            late = await friend.post(f"{theirs}/name", json={"name": "bob", "token": bob})
        assert late.status_code == 409 and "too late" in late.json()["error"]
