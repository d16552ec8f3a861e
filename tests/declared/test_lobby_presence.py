"""People in ``hub serve GAME``'s lobby are seated only while they are here (in memory, on
trio's virtual clock): a waiting person whose page has gone leaves the queue, so the next
person meets a live one; a person may leave the queue; a game's clocks start only once every
person has opened their page (a friend's link), and a game someone never came to is called
off; the page names its seat before the game starts."""

from __future__ import annotations

import json
from typing import Any, cast

import trio
import trio.testing

from hub.core.io.lines import LineStream
from hub.core.io.serve import Connection
from hub.core.model.bus import EventBus
from hub.core.model.clock import TimeControl
from hub.core.model.referee import Termination
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.serve import ARRIVAL, GRACE, GameServer
from hub.games.connect4 import ConnectFour
from tests.declared.test_rematch import Log


def lobby_in(
    nursery: trio.Nursery, control: TimeControl | None = None
) -> tuple[GameServer, SeatDesk, Log]:
    game, bus, desk = ConnectFour(), EventBus(), SeatDesk()
    lobby = GameServer(
        game, control or TimeControl(), bus, nursery=nursery, desk=desk, arrival=ARRIVAL
    )
    return lobby, desk, Log(bus)


def seat_of(desk: SeatDesk, reply: dict[str, Any], key: str = "play") -> BrowserSeat:
    seat = desk.find(reply[key].removeprefix("/play/"))
    assert seat is not None
    return seat


async def settle() -> None:
    await trio.testing.wait_all_tasks_blocked()


async def test_a_closed_waiting_page_leaves_the_queue_and_the_next_person_meets_a_live_one(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    ghost = seat_of(desk, lobby.start("any"))
    with ghost.attend():  # the page is open ...
        await settle()
        waiting = ghost.snapshot()
        assert waiting["can_leave"] and waiting["waiting"].startswith("Waiting for an opponent")
    await trio.sleep(GRACE / 2)  # ... closed; a reload would be back by now
    assert len(lobby.queue) == 1
    await trio.sleep(GRACE)
    assert len(lobby.queue) == 0 and ghost.over and "left the queue" in ghost.result
    live = seat_of(desk, lobby.start("any"))
    with live.attend():
        await settle()
        assert len(lobby.queue) == 1 and log.started == []
        newcomer = seat_of(desk, lobby.start("any"))
        with newcomer.attend():
            await settle()
            (started,) = log.started
            assert len(started.players) == 2 and (live.seat, newcomer.seat) == (0, 1)
            assert not ghost.snapshot()["your_turn"]
            assert live.snapshot()["your_turn"] and live.snapshot()["waiting"] == ""


async def test_a_page_that_comes_back_within_the_grace_keeps_its_place(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, _ = lobby_in(nursery)
    first = seat_of(desk, lobby.start("any"))
    with first.attend():
        await settle()
    await trio.sleep(GRACE * 0.9)
    with first.attend():  # reloaded
        await trio.sleep(GRACE * 5)
        assert len(lobby.queue) == 1 and not first.over


async def test_a_ghost_paired_before_its_grace_ran_out_sends_the_live_person_back_to_wait(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    ghost = seat_of(desk, lobby.start("any"))
    with ghost.attend():
        await settle()
    live = seat_of(desk, lobby.start("any"))  # paired with the ghost at once
    with live.attend():
        await settle()
        assert (ghost.seat, live.seat) == (0, 1) and len(lobby.queue) == 0
        await trio.sleep(GRACE + 0.1)
        assert ghost.over and "did not come" in ghost.result
        assert not live.over and len(lobby.queue) == 1 and log.started == []
        assert live.snapshot()["waiting"] == "Your opponent did not come: waiting for another."
        third = seat_of(desk, lobby.start("any"))
        with third.attend():
            await settle()
            assert len(log.started) == 1
            assert [p.name for p in log.started[0].players] == ["browser", "browser"]
            assert (live.seat, third.seat) == (0, 1)


async def test_a_person_may_leave_the_queue_and_is_never_seated_after(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    leaver = seat_of(desk, lobby.start("any"))
    with leaver.attend():
        await settle()
        assert leaver.leave() is None
        await settle()
        assert len(lobby.queue) == 0 and leaver.over
        assert leaver.snapshot()["result"].startswith("You left the queue")
        assert leaver.leave() == "you are not waiting for an opponent"
    other = seat_of(desk, lobby.start("any"))  # waits alone: the leaver is not seated
    with other.attend():
        await settle()
        assert len(lobby.queue) == 1 and log.started == [] and other.snapshot()["can_leave"]
    against_ai = seat_of(desk, lobby.start("random"))
    assert against_ai.leave() == "you are not waiting for an opponent"


async def test_a_friend_game_starts_its_clocks_only_when_the_friend_opens_the_link(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery, TimeControl.fischer(60))
    reply = lobby.start("friend")
    mine, theirs = seat_of(desk, reply), seat_of(desk, reply, "share")
    with mine.attend():
        await trio.sleep(100)  # the friend reads their messages
        waiting = mine.snapshot()
        assert log.started == [] and waiting["seat_name"] == "Red"
        assert waiting["waiting"] == (
            "Waiting for Yellow (friend) to open their page: no clock runs until then."
        )
        assert not waiting["your_turn"] and waiting["left_ms"] is None
        assert mine.resign() is not None and mine.resign().startswith("the game has not started")
        with theirs.attend():
            await settle()
            assert len(log.started) == 1
            assert mine.snapshot()["your_turn"] and mine.snapshot()["left_ms"] == 60_000
            await trio.sleep(1)
            assert mine.snapshot()["left_ms"] == 59_000  # and now it runs


async def test_a_friend_who_never_comes_calls_the_game_off(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery, TimeControl.fischer(60))
    reply = lobby.start("person")
    mine, theirs = seat_of(desk, reply), seat_of(desk, reply, "share")
    with mine.attend():
        await trio.sleep(ARRIVAL - 1)
        assert not mine.over
        await trio.sleep(2)
        assert mine.over and theirs.over and log.started == []
        assert mine.result == "The game was called off: Yellow (friend) did not come in time."


async def test_the_page_of_a_game_against_the_ai_names_its_seat_and_waits_for_its_person(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery, TimeControl.fischer(60))
    mine = seat_of(desk, lobby.start("ai:1"))
    await trio.sleep(30)  # the page is still loading
    assert log.started == [] and mine.snapshot()["seat_name"] == "Red"
    with mine.attend():
        await settle()
        assert len(log.started) == 1 and mine.snapshot()["left_ms"] == 60_000


async def tcp_client(
    lobby: GameServer, nursery: trio.Nursery, name: str
) -> tuple[trio.abc.Stream, LineStream]:
    """A client of the TCP lobby over a memory stream, after its hello (``any``)."""
    ours, theirs = trio.testing.memory_stream_pair()
    lines = LineStream(theirs, theirs)
    nursery.start_soon(lobby.handle, Connection(1, theirs, lines, cast(Any, None)))
    client = LineStream(ours, ours)
    assert json.loads(await client.receive_line())["type"] == "welcome"
    await client.send_line(json.dumps({"type": "hello", "name": name, "opponent": "any"}))
    await settle()
    return ours, client


async def test_a_waiting_tcp_client_that_disconnects_leaves_the_queue(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    gone, _ = await tcp_client(lobby, nursery, "gone")
    assert len(lobby.queue) == 1
    await gone.aclose()
    await settle()
    assert len(lobby.queue) == 0
    person = seat_of(desk, lobby.start("any"))
    with person.attend():
        await settle()
        assert len(lobby.queue) == 1 and log.started == []  # nobody to meet: it waits
        await tcp_client(lobby, nursery, "live")
        await settle()
        (started,) = log.started
        assert [p.name for p in started.players] == ["browser", "live"]


async def test_a_person_whose_page_is_gone_mid_game_leaves_it_as_a_disconnect(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    """Without clocks (``--tc none``) a closed page would hang the game: after the grace it
    ends as that seat's disconnect, recorded; a reload within the grace keeps it going."""
    lobby, desk, log = lobby_in(nursery)
    mine = seat_of(desk, lobby.start("ai:1"))
    with mine.attend():
        await settle()
        assert mine.snapshot()["your_turn"]
    await trio.sleep(GRACE * 0.9)
    with mine.attend():  # reloaded in time
        await settle()
    await trio.sleep(GRACE * 0.9)
    assert log.ended == [] and not mine.over
    await trio.sleep(GRACE * 0.2)
    (ended,) = log.ended
    assert ended.record.termination is Termination.DISCONNECT
    assert ended.record.winners == (1,) and mine.over


async def test_with_a_clock_a_page_that_is_gone_is_not_waited_out(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery, TimeControl.fischer(600))
    reply = lobby.start("friend")
    mine, theirs = seat_of(desk, reply), seat_of(desk, reply, "share")
    with mine.attend():
        with theirs.attend():
            await settle()
            assert mine.submit(mine.snapshot()["legal"][0]) is None
            await settle()
            assert theirs.snapshot()["your_turn"]
        await trio.sleep(GRACE * 0.9)  # the friend closed their tab on their turn
        assert log.ended == []
        await trio.sleep(GRACE * 0.2)  # the grace, not the 600 s of their clock
        (ended,) = log.ended
        assert ended.record.termination is Termination.DISCONNECT
        assert ended.record.winners == (0,) and "wins" in mine.result


async def test_a_tcp_client_sent_back_to_the_queue_keeps_its_place_at_the_front(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    ghost = seat_of(desk, lobby.start("any"))
    with ghost.attend():
        await settle()
    await tcp_client(lobby, nursery, "live")  # paired with the ghost at once
    later = seat_of(desk, lobby.start("any"))  # arrives after the client: waits
    with later.attend():
        await settle()
        assert len(lobby.queue) == 1 and log.started == []
        await trio.sleep(GRACE + 0.1)
        (started,) = log.started  # the client came back ahead of the later person
        assert [p.name for p in started.players] == ["live", "browser"]
        assert later.seat == 1 and ghost.over


async def test_a_person_sent_back_to_the_queue_keeps_their_place_at_the_front(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery
) -> None:
    lobby, desk, log = lobby_in(nursery)
    ghost = seat_of(desk, lobby.start("any"))
    with ghost.attend():
        await settle()
    live = seat_of(desk, lobby.start("any"))  # paired with the ghost at once
    with live.attend():
        await settle()
        assert live.seat == 1
        await tcp_client(lobby, nursery, "later")  # arrives after the person: waits
        assert len(lobby.queue) == 1
        await trio.sleep(GRACE + 0.1)
        (started,) = log.started
        assert [p.name for p in started.players] == ["browser", "later"] and live.seat == 0
