"""``hub serve`` alone (issue 27 items 1 and 5), in memory on trio's virtual clock: one TCP
handler in front of one `GameServer` per game (the hello names the game), the site's health,
and its graceful shutdown (no new game, running games finish within the drain, the rest
adjourned and kept); the web site's home page, lobbies under a prefix and ``/health``
through an ASGI client."""

from __future__ import annotations

import json
import logging
import types
from typing import Any, cast

import attrs
import httpx
import pytest
import trio
import trio.testing

from hub.core.commands.usage import UsageError
from hub.core.io.lines import LineError, LineStream
from hub.core.io.serve import Connection
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.declared.site import ADJOURNED, Site, kept, kv
from hub.games.connect4 import ConnectFour
from hub.web.index import GameIndex
from hub.web.limits import ServerFull
from hub.web.records import RecordsReader
from hub.web.site import SiteGame, create_site
from tests.declared.game_pig import Pig
from tests.declared.test_rematch import Log

SECONDS = 30.0


def site_in(nursery: trio.Nursery, control: TimeControl | None = None) -> tuple[Site, Log]:
    games = [ConnectFour(), Pig()]
    site = Site.of(games, {game.name: control or TimeControl() for game in games}, arrival=None)
    for server in site.servers.values():
        server.nursery = nursery
    return site, Log(site.events)


@attrs.frozen
class Served:
    """A site of connect4 and pig in the test's nursery (`site_in`), its games' `Log`, and
    its TCP clients (`bot`)."""

    site: Site
    log: Log
    nursery: trio.Nursery

    async def bot(self, number: int = 1) -> Bot:
        """A client connected and welcomed (the welcome read)."""
        bot = Bot(self.site, self.nursery, number)
        await bot.receive()
        return bot


@pytest.fixture
def served(nursery: trio.Nursery) -> Served:
    site, log = site_in(nursery)
    return Served(site, log, nursery)


class Bot:
    """A TCP client of the site over a memory stream."""

    def __init__(self, site: Site, nursery: trio.Nursery, number: int = 1) -> None:
        ours, theirs = trio.testing.memory_stream_pair()
        lines = LineStream(theirs, theirs)

        async def serve() -> None:  # (serve_lines closes a connection when its handler ends)
            try:
                await site.handle(Connection(number, theirs, lines, cast(Any, None)))
            finally:
                await theirs.aclose()

        nursery.start_soon(serve)
        self.stream = ours
        self.lines = LineStream(ours, ours)

    async def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.lines.receive_line())
        return message

    async def hello(self, game: str | None, opponent: str = "any", name: str = "bot") -> None:
        hello = {"type": "hello", "name": name, "opponent": opponent}
        if game is not None:
            hello["game"] = game
        await self.lines.send_line(json.dumps(hello))

    async def play_out(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Play the first legal move at every turn: (the start, the end)."""
        start = await self.receive()
        assert start["type"] == "start", start
        while True:
            message = await self.receive()
            if message["type"] == "turn":
                await self.lines.send_line(json.dumps({"move": message["legal"][0]}))
            elif message["type"] == "end":
                return start, message

    async def until(self, kind: str) -> dict[str, Any]:
        while (message := await self.receive())["type"] != kind:
            pass
        return message


async def settle() -> None:
    await trio.testing.wait_all_tasks_blocked()


async def test_the_welcome_lists_the_games_and_each_hello_plays_the_game_it_names(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, log = served.site, served.log
    bot = Bot(site, served.nursery)
    assert await bot.receive() == {"type": "welcome", "protocol": 1, "games": ["connect4", "pig"]}
    await bot.hello("connect4", "ai:1")
    start, end = await bot.play_out()
    assert (start["game"], start["players"]) == ("connect4", ["bot", "ai:1"])
    assert end["termination"] == "normal"
    await bot.hello("pig", "random")  # the next game on the same connection: another game
    start, end = await bot.play_out()
    assert start["game"] == "pig" and end["termination"] == "normal"
    assert [event.record.game for event in log.ended] == ["connect4", "pig"]
    assert site.status()["games"]["connect4"] == {"playing": 0, "waiting": 0, "played": 1}


@pytest.mark.parametrize(
    ("game", "words"),
    [
        (None, 'name the game in the hello ("game": one of connect4, pig)'),
        ("chess", "no game 'chess' here; the games are connect4, pig"),
    ],
)
async def test_a_hello_without_a_game_served_gets_an_error_and_the_connection_closes(
    autojump_clock: trio.testing.MockClock, served: Served, game: str | None, words: str
) -> None:
    bot = await served.bot()
    await bot.hello(game, "ai:1")
    assert await bot.receive() == {"type": "error", "error": words}
    with pytest.raises(LineError):
        await bot.receive()
    assert served.log.started == []


async def test_bots_asking_for_any_meet_in_their_own_game_s_queue_only(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, log = served.site, served.log
    first, other, second = [await served.bot(n) for n in (1, 2, 3)]
    await first.hello("connect4", name="first")
    await other.hello("pig", name="other")
    await settle()
    assert site.status()["games"]["connect4"]["waiting"] == 1
    await second.hello("connect4", name="second")
    await settle()
    (started,) = log.started
    assert (started.game, [p.name for p in started.players]) == ("connect4", ["first", "second"])
    games = site.status()["games"]
    assert games["connect4"]["playing"] == 1 and games["pig"] == {
        "playing": 0,
        "waiting": 1,
        "played": 0,
    }


async def test_the_drain_refuses_new_games_sends_the_waiting_away_and_lets_a_game_finish(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, log, nursery = served.site, served.log, served.nursery
    player, waiting = await served.bot(1), await served.bot(2)
    await player.hello("connect4", "random")  # (no AI thread: the virtual clock jumps)
    await waiting.hello("pig")
    assert (await player.receive())["type"] == "start"
    adjourned: list[int] = []

    async def drain() -> None:
        adjourned.append(await site.drain(SECONDS))

    nursery.start_soon(drain)
    await settle()
    assert site.status()["status"] == "draining"
    assert await waiting.receive() == {"type": "error", "error": "the server is shutting down"}
    late = await served.bot(3)
    await late.hello("pig", "random")
    assert (await late.receive())["error"] == "the server is shutting down"
    with pytest.raises(ServerFull, match="shutting down"):
        site.servers["connect4"].start("ai:1")
    await trio.sleep(SECONDS / 2)  # the game goes on meanwhile
    while (message := await player.receive())["type"] != "end":
        if message["type"] == "turn":
            await player.lines.send_line(json.dumps({"move": message["legal"][0]}))
    assert message["termination"] == "normal"
    await settle()
    assert adjourned == [0] and trio.current_time() < SECONDS
    assert [event.record.termination for event in log.ended] == [Termination.NORMAL]
    assert (await player.receive())["error"] == "the server is shutting down"


async def test_a_game_still_running_when_the_drain_ends_is_adjourned_and_kept(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, log = served.site, served.log
    bot = await served.bot()
    await bot.hello("connect4", "random")
    await bot.until("turn")  # and it thinks for ever (no clock)
    assert await site.drain(SECONDS) == 1
    assert trio.current_time() == pytest.approx(SECONDS)
    end = await bot.until("end")
    assert (end["termination"], end["detail"]) == ("aborted", ADJOURNED)
    (ended,) = log.ended
    assert ended.record.termination is Termination.ABORTED and kept(ended.record)
    assert ended.record.detail == ADJOURNED


async def test_a_second_signal_adjourns_the_running_games_at_once(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, log = served.site, served.log
    bot = await served.bot()
    await bot.hello("pig", "random")
    await bot.until("turn")
    served.nursery.start_soon(site.drain, SECONDS)
    await trio.sleep(1)
    assert log.ended == []
    site.hurry()
    end = await bot.until("end")
    assert end["detail"] == ADJOURNED and trio.current_time() < 2


def test_only_finished_and_adjourned_games_are_recorded() -> None:
    def record(termination: Termination, detail: str) -> Any:
        return types.SimpleNamespace(termination=termination, detail=detail)

    assert kept(record(Termination.NORMAL, ""))
    assert kept(record(Termination.ABORTED, ADJOURNED))
    assert not kept(record(Termination.ABORTED, ""))
    assert not kept(record(Termination.ABORTED, "stopped"))


def test_log_lines_are_key_value_pairs() -> None:
    line = kv("hello", conn=3, name="my bot", game="connect4", reason='say "hi"', empty="")
    assert line == ('event=hello conn=3 name="my bot" game=connect4 reason="say \\"hi\\"" empty=""')


# -- the web site ---------------------------------------------------------------------------------


def web_of(site: Site) -> Any:
    games = [
        SiteGame(name, server.game.summary, "2", server.events, server.desk, server)
        for name, server in site.servers.items()
        if server.desk is not None
    ]
    return create_site(games, {g.name: GameIndex(g.bus) for g in games}, site.status)


def http(app: Any) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


async def test_the_home_page_links_each_lobby_whose_pages_live_under_its_prefix(
    served: Served,
) -> None:
    async with http(web_of(served.site)) as client:
        home = await client.get("/")
        assert home.status_code == 200
        assert 'href="/connect4/"' in home.text and 'href="/pig/"' in home.text
        moved = await client.get("/connect4")
        assert (moved.status_code, moved.headers["location"]) == (308, "/connect4/")
        lobby = await client.get("/connect4/")
        assert 'data-root="/connect4"' in lobby.text
        assert 'src="/connect4/static/app.js"' in lobby.text
        assert 'data-opponent="ai:1"' in lobby.text
        assert (await client.get("/connect4/static/app.js")).status_code == 200
        started = await client.post("/connect4/new", json={"opponent": "ai:1"})
        token = started.json()["play"]
        assert token.startswith("/play/")
        seat = await client.get("/connect4" + token)
        assert seat.status_code == 200 and 'data-root="/connect4"' in seat.text
        assert (await client.get("/pig" + token)).status_code == 404  # another game's desk


async def test_health_says_ok_with_each_game_s_counts_then_draining_with_503(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    site, nursery = served.site, served.nursery
    bot = await served.bot()
    await bot.hello("connect4", "ai:1")
    await bot.until("turn")
    async with http(web_of(site)) as client:
        reply = await client.get("/health")
        assert reply.status_code == 200
        assert reply.json() == {
            "status": "ok",
            "games": {
                "connect4": {"playing": 1, "waiting": 0, "played": 1},
                "pig": {"playing": 0, "waiting": 0, "played": 0},
            },
        }
        nursery.start_soon(site.drain, SECONDS)
        await settle()
        reply = await client.get("/health")
        assert reply.status_code == 503 and reply.json()["status"] == "draining"
        assert (await client.get("/health", headers={"Host": "evil.example"})).status_code == 400


async def test_hub_serve_game_takes_a_hello_naming_its_own_game_and_refuses_another(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    nursery = served.nursery
    server = served.site.servers["connect4"]  # as `hub serve connect4` runs it, alone
    for game, first in (("connect4", "start"), ("pig", "error")):
        ours, theirs = trio.testing.memory_stream_pair()
        lines = LineStream(theirs, theirs)
        nursery.start_soon(server.handle, Connection(1, theirs, lines, cast(Any, None)))
        client = LineStream(ours, ours)
        welcome = json.loads(await client.receive_line())
        assert welcome == {"type": "welcome", "protocol": 1, "game": "connect4"}
        hello = {"type": "hello", "name": "b", "game": game, "opponent": "random"}
        await client.send_line(json.dumps(hello))
        reply = json.loads(await client.receive_line())
        assert reply["type"] == first
    assert reply["error"] == "this server plays connect4, not pig"


async def test_connections_hellos_and_games_are_logged_one_key_value_line_each(
    autojump_clock: trio.testing.MockClock, served: Served
) -> None:
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("hub.site")
    handler, level = Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        stop = served.site.log_events()
        bot = await served.bot(7)
        await bot.hello("pig", "random", name="my bot")
        await bot.play_out()
        await bot.stream.aclose()
        await settle()
        stop()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    events = [line.split()[0] for line in lines]
    assert events == ["event=connected", "event=hello", "event=game_started",
                      "event=game_ended", "event=closed"]  # fmt: skip
    assert lines[1] == 'event=hello conn=7 peer=? game=pig name="my bot" opponent=random'
    assert "termination=normal" in lines[3] and 'players="my bot vs random"' in lines[3]


async def test_a_game_s_lobby_lists_that_game_s_saved_games_only() -> None:
    asked: list[str | None] = []

    class Store:
        def get(self, game_id: str) -> None:
            return None

        def games(self, *, limit: int | None = None, game: str | None = None) -> list[Any]:
            asked.append(game)
            return []

        def close(self) -> None:
            pass

    reader = RecordsReader(Store)
    await reader.recent(5)
    await reader.of_game("kalah").recent(5)
    assert asked == [None, "kalah"]


def test_grace_is_an_option_of_both_serves_and_reaches_every_game_server() -> None:
    """``--grace SECONDS``: how long a person's page may be gone (default `GRACE`); 0, a
    negative, more than an hour or a word is a usage error."""
    from hub.declared.browser import GRACE
    from hub.declared.serve import parser_for
    from hub.declared.site import parser

    for made in (parser(["connect4"]), parser_for(ConnectFour)):
        assert made.parse_args([]).grace == GRACE
        assert made.parse_args(["--grace", "2.5"]).grace == 2.5
        for bad in ("0", "-1", "3601", "soon"):
            with pytest.raises(UsageError, match="--grace"):
                made.parse_args(["--grace", bad])
    site = Site.of([ConnectFour()], {"connect4": TimeControl()}, grace=2.5)
    assert site.servers["connect4"].grace == 2.5
