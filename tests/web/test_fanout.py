"""Fan-out: each change is rendered once and the same bytes go to every page that may see
them (spectators of a game; the pages of one seat), while a seat's own frame, which shows
its hidden hand, is never given to another seat's page or to a spectator."""

from __future__ import annotations

import json
import random
from functools import partial
from typing import Any

import httpx
import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.play.match import Match
from hub.declared.browser import SeatDesk
from hub.web import views
from hub.web.index import KEEPALIVE_FRAME, GameIndex, game_topic
from hub.web.play import SeatFrames
from hub.web.server import WebServer, serve_web
from tests.declared.test_browser_seat import SECRETS, Secrets
from tests.web.helpers import moved, started


class FakeSeat:
    """A seat whose snapshot counts how often it is built."""

    def __init__(self, secret: str) -> None:
        self.version = 0
        self.secret = secret
        self.snapshots = 0

        self.left_ms: int | None = None

    def snapshot(self) -> dict[str, Any]:
        self.snapshots += 1
        return {"version": self.version, "hand": self.secret, "left_ms": self.left_ms}


def test_a_seat_frame_is_built_once_per_change_and_kept_under_its_seat_only() -> None:
    frames, mine, other = SeatFrames(), FakeSeat("MINE"), FakeSeat("OTHER")
    first = frames.frame(mine)
    assert frames.frame(mine)[1] is first[1] and mine.snapshots == 1  # two pages, one render
    assert b"MINE" in first[1]
    mine.version += 1  # a change invalidates it
    second = frames.frame(mine)
    assert second[0] == 1 and second[1] != first[1] and mine.snapshots == 2
    theirs = frames.frame(other)
    assert b"MINE" not in theirs[1] and b"OTHER" in theirs[1] and other.snapshots == 1
    assert frames.built == 3


def test_a_frame_with_a_running_clock_is_shared_only_while_fresh() -> None:
    now = [100.0]
    frames, seat = SeatFrames(clock=lambda: now[0]), FakeSeat("MINE")
    seat.left_ms = 30000
    first = frames.frame(seat)
    now[0] += SeatFrames.FRESH / 2
    assert frames.frame(seat)[1] is first[1] and seat.snapshots == 1  # tabs of one change
    now[0] += SeatFrames.FRESH  # a tab opened later in the turn: the clock is read again
    frames.frame(seat)
    assert seat.snapshots == 2


async def test_spectators_get_the_same_bytes_of_a_move_rendered_once(
    monkeypatch: Any,
) -> None:
    renders = []
    original = views.move_json

    def counting(game: Any, event: Any) -> Any:
        renders.append(event.ply)
        return original(game, event)

    monkeypatch.setattr("hub.web.index.move_json", counting)
    index = GameIndex()
    index.apply(started("g1", "tictactoe", ".........", ["a", "b"]))
    topic = game_topic("g1")
    with index.watch(topic) as one, index.watch(topic) as two:
        assert await one.receive() is await two.receive()  # one snapshot for both
        before = index.snapshot(topic)
        index.apply(moved("g1", 1, 0, "4", "....X....", 1))
        assert index.snapshot(topic) != before  # the snapshot cache is invalidated
        got_one, got_two = await one.receive(), await two.receive()
        assert got_one is got_two and got_one is not None and b'"ply":1' in got_one
        assert renders == [1]


async def first_frame(client: httpx.AsyncClient, url: str) -> bytes:
    async with client.stream("GET", url) as reply:
        async for line in reply.aiter_lines():
            if line.startswith("data:"):
                return line.encode()
    raise AssertionError(f"no frame from {url}")


async def test_two_pages_of_a_seat_share_its_frame_and_nobody_else_sees_it(
    nursery: trio.Nursery,
) -> None:
    game, desk, bus = Secrets(), SeatDesk(), EventBus()
    server: WebServer = await nursery.start(partial(serve_web, bus, desk=desk))
    seats = [desk.open(game), desk.open(game)]
    match = Match(game, game.start(random.Random(0)), seats, events=bus)
    nursery.start_soon(match.run)
    await trio.testing.wait_all_tasks_blocked()
    red, blue = (server.url(f"/play/{seat.token}/events") for seat in seats)
    async with httpx.AsyncClient(timeout=10) as client:
        tab1, tab2 = await first_frame(client, red), await first_frame(client, red)
        assert tab1 == tab2 and SECRETS[0] in tab1.decode()
        other = await first_frame(client, blue)
        spectator = await first_frame(client, server.url(f"/game/{match.game_id}/events"))
        for frame in (other, spectator):
            assert SECRETS[0] not in frame.decode()
        assert json.loads(tab1[5:])["seat"] == 0 and json.loads(other[5:])["seat"] == 1


async def test_one_timer_keeps_idle_streams_alive_and_leaves_busy_ones_alone(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    index = GameIndex()
    index.apply(started("g1", "tictactoe", ".........", ["a", "b"]))
    topic = game_topic("g1")
    with index.watch(topic) as idle, index.watch(topic) as busy:
        await idle.receive(), await busy.receive()  # the snapshots
        await nursery.start(index.keep_alive, 10.0)
        await trio.sleep(15)  # one tick: both were sent a snapshot since the start
        assert idle.pending == busy.pending == 0
        index.apply(moved("g1", 1, 0, "4", "....X....", 1))
        assert await busy.receive() is not None
        await trio.sleep(10)  # the second tick: a frame is waiting for the idle one
        assert idle.pending == 1 and busy.pending == 0
        assert b'"ply":1' in (await idle.receive() or b"")
        await trio.sleep(10)  # the third: the one that was sent nothing since gets a comment
        assert idle.pending == 0 and busy.pending == 1
        await trio.sleep(10)  # the fourth: one comment waiting is enough
        assert idle.pending == 1 and busy.pending == 1
        assert await idle.receive() == await busy.receive() == KEEPALIVE_FRAME
