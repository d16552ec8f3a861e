"""The rematch of a game played from a browser seat (in memory, no sleeps): against built-in
players it starts at once with the seats swapped; between two browsers when both asked (the
other page saying who offers it); never against an opponent that cannot be asked. The new
game is a normal Match through the same seats, recorded like the first."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from functools import partial
from typing import Any

import httpx
import trio
import trio.testing

from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.events import GameEnded, GameStarted
from hub.core.model.values import PlayerInfo
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.play import LocalResources
from hub.declared.seats import RandomSeat, SeatSpec, parse_seat
from hub.declared.serve import GameServer
from hub.games.connect4 import ConnectFour
from hub.web.server import WebServer, serve_web


class Log:
    """The games started and ended on a bus (as the records would see them)."""

    def __init__(self, bus: EventBus) -> None:
        self.started: list[GameStarted] = []
        self.ended: list[GameEnded] = []
        bus.listen(self.add)

    def add(self, event: Any) -> None:
        if isinstance(event, GameStarted):
            self.started.append(event)
        elif isinstance(event, GameEnded):
            self.ended.append(event)


async def play_out(seats: Sequence[BrowserSeat]) -> None:
    """Click the first legal move on every page whose turn it is until every game is over."""
    for _ in range(200):
        await trio.testing.wait_all_tasks_blocked()
        if all(seat.over for seat in seats):
            return
        for seat in seats:
            snapshot = seat.snapshot()
            if snapshot["your_turn"]:
                assert seat.submit(snapshot["legal"][0]) is None
    raise AssertionError("the games did not end")


def next_seat(desk: SeatDesk, seat: BrowserSeat) -> BrowserSeat:
    assert seat.next_page.startswith("/play/"), seat.next_page
    found = desk.find(seat.next_page.removeprefix("/play/"))
    assert found is not None
    return found


def lobby_in(nursery: trio.Nursery) -> tuple[GameServer, SeatDesk, Log]:
    game, bus, desk = ConnectFour(), EventBus(), SeatDesk()
    return GameServer(game, TimeControl(), bus, nursery=nursery, desk=desk), desk, Log(bus)


async def test_a_rematch_against_a_built_in_player_starts_at_once_with_the_seats_swapped(
    nursery: trio.Nursery,
) -> None:
    lobby, desk, log = lobby_in(nursery)
    mine = desk.find(lobby.start("random")["play"].removeprefix("/play/"))
    assert mine is not None
    assert mine.ask_rematch() == "the game is not over"
    await play_out([mine])
    offered = mine.snapshot()["rematch"]
    assert offered == {"possible": True, "why_not": "", "asked_by": [], "you_asked": False}
    assert mine.ask_rematch() is None
    again = next_seat(desk, mine)
    assert mine.snapshot()["next"] == mine.next_page
    await trio.testing.wait_all_tasks_blocked()
    assert (mine.seat, again.seat) == (0, 1)  # Red, then Yellow
    first, second = log.started
    assert [p.name for p in first.players] == ["browser", "random"]
    assert [p.name for p in second.players] == ["random", "browser"]
    assert mine.ask_rematch() is None and desk.find(mine.next_page.split("/")[-1]) is again
    await play_out([again])  # a normal game, recorded like the first
    assert len(log.ended) == 2 and lobby.games == 2
    assert again.ask_rematch() is None  # and rematches chain
    await trio.testing.wait_all_tasks_blocked()
    assert next_seat(desk, again).seat == 0
    assert len(log.started) == 3


async def test_two_browsers_rematch_when_both_asked_and_the_other_page_says_who_offers(
    nursery: trio.Nursery,
) -> None:
    lobby, desk, log = lobby_in(nursery)
    started = lobby.start("person")
    mine = desk.find(started["play"].removeprefix("/play/"))
    theirs = desk.find(started["share"].removeprefix("/play/"))
    assert mine is not None and theirs is not None
    await play_out([mine, theirs])
    assert mine.ask_rematch() is None
    assert mine.next_page == theirs.next_page == ""  # not before the other one accepts
    assert theirs.snapshot()["rematch"]["asked_by"] == ["Red"]
    assert mine.snapshot()["rematch"]["you_asked"]
    assert len(log.started) == 1
    assert theirs.ask_rematch() is None
    new_mine, new_theirs = next_seat(desk, mine), next_seat(desk, theirs)
    await trio.testing.wait_all_tasks_blocked()
    assert (new_mine.seat, new_theirs.seat) == (1, 0)
    assert [p.name for p in log.started[1].players] == ["friend", "browser"]
    await play_out([new_mine, new_theirs])
    assert len(log.ended) == 2


async def test_no_rematch_with_an_opponent_that_cannot_be_asked(nursery: trio.Nursery) -> None:
    lobby, desk, log = lobby_in(nursery)
    mine = desk.open(lobby.game)
    client = RandomSeat(lobby.game, random.Random(1), PlayerInfo("tcpbot"))
    nursery.start_soon(lobby._play, [mine, client], {})  # a seat the lobby did not build
    await play_out([mine])
    rematch = mine.snapshot()["rematch"]
    assert not rematch["possible"] and "cannot be asked" in rematch["why_not"]
    assert mine.ask_rematch() == rematch["why_not"]
    await trio.testing.wait_all_tasks_blocked()
    assert len(log.started) == 1 and mine.next_page == ""


def host_in(nursery: trio.Nursery) -> tuple[LocalResources, Log]:
    options = argparse.Namespace(port=("127.0.0.1", 0))
    host = LocalResources(ConnectFour(), nursery, Output(1), Output(2), options)
    host.web_url = lambda path: f"http://127.0.0.1:1{path}"
    return host, Log(host.bus)


async def test_hub_play_rematches_its_web_seats_with_the_seats_rotated(
    nursery: trio.Nursery,
) -> None:
    host, log = host_in(nursery)
    specs = [parse_seat(text, ConnectFour) for text in ("web", "random")]
    nursery.start_soon(host.play_game, specs, 5, [])
    await trio.testing.wait_all_tasks_blocked()
    (mine,) = host.desk.seats.values()
    await play_out([mine])
    assert mine.ask_rematch() is None
    again = next_seat(host.desk, mine)
    await trio.testing.wait_all_tasks_blocked()
    assert again.seat == 1 and [p.name for p in log.started[1].players][1] == "browser"
    await play_out([again])
    assert len(log.ended) == 2


async def test_hub_play_two_web_seats_keep_their_people_when_the_seats_rotate(
    nursery: trio.Nursery,
) -> None:
    host, log = host_in(nursery)
    specs = [parse_seat("web", ConnectFour)] * 2
    nursery.start_soon(host.play_game, specs, 5, [])
    await trio.testing.wait_all_tasks_blocked()
    red, yellow = host.desk.seats.values()
    await play_out([red, yellow])
    assert yellow.ask_rematch() is None and red.ask_rematch() is None
    new_red, new_yellow = next_seat(host.desk, red), next_seat(host.desk, yellow)
    await trio.testing.wait_all_tasks_blocked()
    assert (new_red.seat, new_yellow.seat) == (1, 0)
    assert len(log.started) == 2


async def test_hub_play_offers_no_rematch_against_a_program_or_the_terminal(
    nursery: trio.Nursery,
) -> None:
    host, _ = host_in(nursery)
    for kind, words in [("program", "A program"), ("tcp", "A program"), ("human", "terminal")]:
        seat = host.desk.open(host.game)
        host.offer_rematch([SeatSpec("web", "web"), SeatSpec(kind, kind)], [seat], 0)
        assert seat.rematch is not None and seat.rematch.start is None
        assert words in seat.rematch.why_not


async def test_the_rematch_post_is_checked_like_every_seat_post(nursery: trio.Nursery) -> None:
    lobby, desk, log = lobby_in(nursery)
    server: WebServer = await nursery.start(partial(serve_web, lobby.events, desk=desk))
    token = lobby.start("random")["play"].removeprefix("/play/")
    mine = desk.find(token)
    assert mine is not None
    async with httpx.AsyncClient(timeout=10) as client:

        async def post(path: str, **headers: str) -> int:
            headers.setdefault("content-type", "application/json")
            reply = await client.post(server.url(path), content=b"{}", headers=headers)
            return reply.status_code

        assert await post(f"/play/{token}/rematch") == 409  # the game is not over
        await play_out([mine])
        assert await post("/play/nosuchtoken/rematch") == 404
        assert await post(f"/play/{token}/rematch", origin="http://elsewhere.example") == 403
        assert await post(f"/play/{token}/rematch", **{"content-type": "text/plain"}) == 415
        assert len(log.started) == 1
        assert await post(f"/play/{token}/rematch") == 200
        await trio.testing.wait_all_tasks_blocked()
        assert len(log.started) == 2 and mine.next_page
