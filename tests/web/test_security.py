"""The web view is closed and robust (issue 25's security pass): each client gets its share
of new games and of event streams (429 with words, 503 when the whole server is full, never
a 500), the site answers only to its allowed host names and origins, and ``/new`` never
looks a program up. In process (httpx over ASGI, a fixed clock for the limits, trio's
virtual clock for the games) except where the socket's address is the point."""

from __future__ import annotations

import sys
from collections import Counter
from functools import partial
from typing import Any

import httpx
import pytest
import trio
import trio.testing

from hub.core.commands.usage import UsageError
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.declared import browser
from hub.declared.browser import SeatDesk
from hub.declared.seats import SeatSpecError
from hub.declared.serve import ARRIVAL, GameServer, parser_for
from hub.games.connect4 import ConnectFour
from hub.web.app import create_app
from hub.web.index import GameIndex
from hub.web.limits import (
    NEW_GAMES_BURST,
    AllowedHosts,
    ClientLimits,
    ServerFull,
    TooMany,
    default_hosts,
    host_name,
)
from hub.web.server import WebServer, serve_web

SITE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}


def site(
    nursery: trio.Nursery,
    limits: ClientLimits | None = None,
    hosts: AllowedHosts | None = None,
) -> tuple[GameServer, Any]:
    """``hub serve connect4 --web``'s site, in memory; the limits' clock stands still."""
    lobby = GameServer(
        ConnectFour(),
        TimeControl(),
        EventBus(),
        nursery=nursery,
        desk=SeatDesk(),
        arrival=ARRIVAL,
    )
    app = create_app(
        GameIndex(),
        desk=lobby.desk,
        host=lobby,
        hosts=hosts,
        limits=limits or ClientLimits(clock=lambda: 0.0),
    )
    return lobby, app


def client(app: Any, address: str = "10.0.0.1", base: str = SITE) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url=base)


async def new(http: httpx.AsyncClient, opponent: Any, **headers: str) -> httpx.Response:
    return await http.post("/new", json={"opponent": opponent}, headers=headers)


async def test_two_thousand_new_games_from_one_client_get_429s_and_another_still_plays(
    nursery: trio.Nursery,
) -> None:
    lobby, app = site(nursery)
    statuses: Counter[int] = Counter()
    async with client(app, "10.0.0.1") as flood:
        for _ in range(2000):
            reply = await new(flood, "person")
            statuses[reply.status_code] += 1
            if reply.status_code == 429:
                refused = reply
    assert statuses == {200: NEW_GAMES_BURST, 429: 2000 - NEW_GAMES_BURST}
    assert "too many new games from your address" in refused.json()["error"]
    assert int(refused.headers["retry-after"]) >= 1
    assert len(lobby.desk.seats) == 2 * NEW_GAMES_BURST  # the refused ones made nothing
    async with client(app, "10.0.0.2") as other:
        reply = await new(other, "ai:1")
        assert reply.status_code == 200 and reply.json()["play"].startswith("/play/")


async def test_the_new_game_budget_comes_back_with_time() -> None:
    now = [0.0]
    limits = ClientLimits(new_burst=2, new_every=6.0, clock=lambda: now[0])
    limits.take_new_game("a"), limits.take_new_game("a")
    with pytest.raises(TooMany) as refused:
        limits.take_new_game("a")
    assert refused.value.retry_after == 6.0
    limits.take_new_game("b")  # another client's budget is its own
    now[0] += 5.9
    with pytest.raises(TooMany):
        limits.take_new_game("a")
    now[0] += 0.2
    limits.take_new_game("a")
    tracked = ClientLimits(tracked=3, clock=lambda: now[0])
    for number in range(10):
        tracked.take_new_game(str(number))
    assert len(tracked._buckets) == 3  # bounded


async def test_a_full_desk_answers_503_not_500_and_the_server_recovers(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery, monkeypatch: Any
) -> None:
    monkeypatch.setattr(browser, "MAX_SEATS", 6)
    _, app = site(nursery, ClientLimits(new_burst=10_000, clock=lambda: 0.0))
    async with client(app) as http:
        for _ in range(3):
            assert (await new(http, "friend")).status_code == 200
        for opponent in ("ai:1", "random", "any", "person"):
            full = await new(http, opponent)
            assert full.status_code == 503, opponent
            assert full.json() == {
                "error": "the server is full (6 browser seats are playing): try later"
            }
        await trio.sleep(ARRIVAL + 1)  # nobody opened those pages: the games are called off
        assert (await new(http, "ai:1")).status_code == 200


@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        (b"{", JSON, 400),
        (b"[]", JSON, 400),
        (b'{"opponent": 3}', JSON, 400),
        (b'{"opponent": "ai:99"}', JSON, 400),
        (b'{"opponent": "ai:999999999999"}', JSON, 400),
        (b'{"opponent": "random:1"}', JSON, 400),
        (b'{"opponent": ""}', JSON, 400),
        (b'{"opponent": "\\u0000"}', JSON, 400),
        (b'{"opponent": "any"}', {"content-type": "text/plain"}, 415),
        (b'{"opponent": "any", "x": "' + b"y" * 2000 + b'"}', JSON, 413),
        (b'{"opponent": "any"}', {**JSON, "sec-fetch-site": "cross-site"}, 403),
    ],
)
async def test_every_refusal_of_a_new_game_is_a_4xx_with_words(
    nursery: trio.Nursery, body: bytes, headers: dict[str, str], status: int
) -> None:
    _, app = site(nursery)
    async with client(app) as http:
        reply = await http.post("/new", content=body, headers=headers)
    assert reply.status_code == status and reply.json()["error"]


async def test_a_seat_refuses_what_it_may_not_do_with_a_4xx(nursery: trio.Nursery) -> None:
    _, app = site(nursery)
    async with client(app) as http:
        token = (await new(http, "random")).json()["play"]
        for action, body in [("move", {"move": "nonsense"}), ("leave", {}), ("rematch", {})]:
            reply = await http.post(f"{token}/{action}", json=body)
            assert reply.status_code == 409 and reply.json()["error"], action
        assert (await http.post("/play/nosuchtoken/leave", json={})).status_code == 404


async def test_a_seat_post_has_one_origin_rule_the_guards(nursery: trio.Nursery) -> None:
    """A seat's POST is judged by the allowed names alone (`hub.web.guard.Guard`), as every
    request is: an allowed origin other than the request's own Host (a page opened as
    localhost posting to 127.0.0.1) is taken, a foreign one refused, as for ``/new``."""
    _, app = site(nursery)
    async with client(app) as http:
        token = (await new(http, "random")).json()["play"]
        other = {"origin": "http://localhost:8000"}  # the request's Host is 127.0.0.1:8000
        resign = await http.post(f"{token}/resign", json={}, headers=other)
        assert resign.status_code == 409 and "not started" in resign.json()["error"]
        foreign = await http.post(
            f"{token}/resign", json={}, headers={"origin": "http://x.example"}
        )
        assert foreign.status_code == 403
        cross = await http.post(
            f"{token}/resign", json={}, headers={"sec-fetch-site": "cross-site"}
        )
        assert cross.status_code == 403


PROGRAMS = [
    sys.executable,  # exists
    "/no/such/program",
    "python3",  # on PATH
    "no-such-program-on-path",
    "./players/json_bot.py",
    "json:/bin/sh",
    "human",
    "tcp",
    "web",
]


async def test_new_with_a_program_is_refused_without_saying_whether_it_exists(
    nursery: trio.Nursery,
) -> None:
    lobby, app = site(nursery)
    async with client(app) as http:
        replies = [await new(http, program) for program in PROGRAMS]
    assert {reply.status_code for reply in replies} == {400}
    assert len({reply.text for reply in replies}) == 1, [reply.text for reply in replies]
    assert lobby.desk is not None and lobby.desk.seats == {}  # and no seat was opened
    # a TCP client's hello asking for a program is answered alike
    words = set()
    for program in PROGRAMS:
        with pytest.raises(SeatSpecError) as refused:
            lobby._built(program)
        words.add(str(refused.value))
    assert words == {"ask for any, random or ai:N"}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example"}, 400),
        ({"host": "evil.example:8000", "origin": "http://evil.example:8000"}, 400),
        ({"host": "127.0.0.1:8000", "origin": "http://evil.example"}, 403),
        ({"host": "127.0.0.1:8000", "origin": "null"}, 403),
        ({"host": "127.0.0.1.evil.example"}, 400),
        ({"host": "localhost:8000", "origin": "http://localhost:8000"}, 200),
        ({"host": "[::1]:8000"}, 200),
    ],
)
async def test_a_foreign_host_or_origin_is_refused(
    nursery: trio.Nursery, headers: dict[str, str], status: int
) -> None:
    _, app = site(nursery)
    async with client(app) as http:
        for path in ("/api/games", "/", "/game/x", "/static/app.js"):
            reply = await http.get(path, headers=headers)
            assert reply.status_code == (404 if status == 200 and path == "/game/x" else status)
        started = await http.post("/new", json={"opponent": "ai:1"}, headers=headers)
        assert started.status_code == status


async def test_allowed_hosts_from_the_command_line() -> None:
    options = parser_for(ConnectFour).parse_args(["--allowed-hosts", "Games.Example,10.1.2.3"])
    hosts = options.allowed_hosts
    assert hosts.host_ok("games.example:8080") and hosts.host_ok("10.1.2.3")
    assert not hosts.host_ok("localhost") and not hosts.host_ok(None)
    assert hosts.origin_ok("https://games.example") and not hosts.origin_ok("http://x.example")
    assert AllowedHosts.parse("*").host_ok("anything.example")
    assert default_hosts("10.0.0.5").names == {"10.0.0.5", "localhost", "127.0.0.1", "::1"}
    assert host_name("[::1]:80") == "::1" and host_name("a:b") is None and host_name("[::1") is None
    with pytest.raises(UsageError, match="names no host"):
        parser_for(ConnectFour).parse_args(["--allowed-hosts", ","])


async def test_one_client_cannot_take_every_stream(nursery: trio.Nursery) -> None:
    limits = ClientLimits(streams_per_client=2, max_streams=3)
    server: WebServer = await nursery.start(partial(serve_web, EventBus(), limits=limits))
    url = server.url("/events")

    async def opened(address: str) -> tuple[int, Any]:
        """Open a stream from ``address`` (a loopback address of its own): its status and
        a way to close it."""
        transport = httpx.AsyncHTTPTransport(local_address=address)
        http = httpx.AsyncClient(transport=transport, timeout=10)
        reply = await http.send(http.build_request("GET", url), stream=True)

        async def close() -> None:
            await reply.aclose()
            await http.aclose()

        return reply.status_code, close

    first, close_first = await opened("127.0.0.1")
    second, close_second = await opened("127.0.0.1")
    third, close_third = await opened("127.0.0.1")
    assert (first, second, third) == (200, 200, 429)
    other, close_other = await opened("127.0.0.2")  # another client still follows the games
    full, close_full = await opened("127.0.0.3")
    assert (other, full) == (200, 503)
    for close in (close_first, close_second, close_third, close_other, close_full):
        await close()


def test_the_stream_shares_are_counted_and_given_back() -> None:
    limits = ClientLimits(streams_per_client=1, max_streams=2)
    with limits.stream("a"):
        with pytest.raises(TooMany), limits.stream("a"):
            pass
        with limits.stream("b"), pytest.raises(ServerFull), limits.stream("c"):
            pass
        assert limits.streams == 1
    assert limits.streams == 0 and limits._streams == {}
