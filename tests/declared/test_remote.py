"""hub.declared.remote without a database: two processes' `RelayHub`s joined in memory (what
one sends, the other is handed), as ``hub_relay``'s rows and notices would carry it. A
person whose page is at the guest plays at the host through a `RemoteSeat`: their page
shows exactly that seat's snapshot (never a card of the other hand: the messages carry the
seat's own view only), their moves and resignation reach the host's seat, their page's
attendance is the seat's, and a join the host cannot seat, or a host that has gone, sends
the person home or tells them the game was cut off."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace
from typing import Any

import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.referee import Termination
from hub.core.play.chance import CHANCE
from hub.core.play.match import Match
from hub.declared.browser import BrowserSeat, SeatDesk
from hub.declared.remote import CUT_OFF, NO_REMATCH, RelayHub, RemoteSeat
from hub.declared.sharing import FIXED
from hub.records.waiting import Claimed
from tests.declared.game_cards import HighCards

Message = tuple[str, str, dict[str, Any]]


def hub(process: str) -> RelayHub:
    return RelayHub(SimpleNamespace(board=SimpleNamespace(process=process)))  # type: ignore[arg-type]


async def pump(*hubs: RelayHub) -> list[Message]:
    """Carry every message until none is left to send (the tasks run in between): the
    messages, in order."""
    by = {each.process: each for each in hubs}
    carried: list[Message] = []
    while True:
        await trio.testing.wait_all_tasks_blocked()
        batch = [message for each in hubs for message in each.outgoing()]
        if not batch:
            return carried
        for process, link, body in batch:
            carried.append((process, link, body))
            by[process].dispatch(link, body)


class Pair:
    """A host with a game's seat for every join, a guest whose person joined it."""

    def __init__(self, seat_them: bool = True) -> None:
        self.game = HighCards()
        self.host, self.guest = hub("host"), hub("guest")
        self.remote: list[RemoteSeat] = []
        self.home: list[str] = []

        def take(link: str, body: dict[str, Any]) -> bool:
            if seat_them:
                self.remote.append(self.host.seat_for(self.game, link, body, {}))
            return seat_them

        self.host.host(self.game.name, take)
        self.page = SeatDesk().open(self.game)
        claimed = Claimed(7, "host", "127.0.0.1:1", FIXED)
        self.guest.join(self.page, self.game.name, claimed, "key", lambda: self.home.append("x"))


def without_version(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in snapshot.items() if key != "version"}


async def test_a_person_at_the_guest_plays_high_cards_seeing_only_their_own_hand() -> None:
    pair = Pair()
    await pump(pair.host, pair.guest)
    [remote] = pair.remote
    assert remote.player.name == "browser" and remote.guest == "guest"
    game, local = pair.game, SeatDesk().open(pair.game)
    match = Match(game, game.start(random.Random(0)), [local, remote], events=EventBus())
    match.chance_rng = random.Random(8)
    rng, card = random.Random(2), re.compile(r"card \d")
    checked = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(match.run)
        while True:
            carried = await pump(pair.host, pair.guest)
            owner, state = {}, game.start(random.Random(0))
            for seat, move in match.moves:
                if seat == CHANCE:
                    owner[move] = state.owed[0]
                state = game.apply(state, move)
            for process, _, body in carried:
                if process == "host":  # (the page's moves)
                    assert body["type"] == "move"
                    continue
                assert body["type"] == "view"
                named = card.findall(str(body))
                assert {owner[name] for name in named} <= {1}, named  # its own cards only
                checked += len(named)
            assert without_version(pair.page.snapshot()) == without_version(remote.snapshot())
            if match.finished:
                break
            if local.snapshot()["your_turn"]:
                assert local.submit(rng.choice(local.snapshot()["legal"])) is None
            elif pair.page.snapshot()["your_turn"]:
                assert local.submit("draw") == "it is not your turn"
                assert pair.page.submit(rng.choice(pair.page.snapshot()["legal"])) is None
    assert checked  # the page did name its own cards
    assert match.result is not None and match.result.fault is None
    assert pair.page.over and pair.page.snapshot()["result"] == remote.result
    assert pair.page.ask_rematch() == NO_REMATCH
    assert pair.host.hosted == {} and pair.guest.guests == {}  # forgotten once over


async def test_the_page_resigns_and_is_refused_out_of_turn_and_its_attendance_is_the_seats() -> (
    None
):
    pair = Pair()
    await pump(pair.host, pair.guest)
    [remote] = pair.remote
    assert remote.pages == 0 and not remote.came
    with pair.page.attend():
        await pump(pair.host, pair.guest)
        assert remote.pages == 1 and remote.came
    await pump(pair.host, pair.guest)
    assert remote.pages == 0
    with pair.page.attend():
        await pump(pair.host, pair.guest)
        remote.alive(False)  # (the guest process's heartbeat is old: its page is gone)
        assert remote.pages == 0
        remote.alive(True)  # (and back: its page is there again)
        assert remote.pages == 1
    await pump(pair.host, pair.guest)
    game, local = pair.game, SeatDesk().open(pair.game)
    match = Match(game, game.start(random.Random(0)), [local, remote], events=EventBus())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(match.run)
        await pump(pair.host, pair.guest)
        assert pair.page.snapshot()["players"][1]["you"]
        if not pair.page.snapshot()["your_turn"]:
            assert pair.page.submit("draw") == "it is not your turn"  # (refused at home)
        assert pair.page.resign() is None
        await pump(pair.host, pair.guest)
    assert match.result is not None and match.result.fault is not None
    assert match.result.fault.seat == 1
    assert match.result.fault.termination is Termination.RESIGNATION
    assert pair.page.over and "resign" in pair.page.snapshot()["result"]


async def test_a_join_the_host_cannot_seat_sends_the_person_home() -> None:
    pair = Pair(seat_them=False)
    carried = await pump(pair.host, pair.guest)
    assert [body["type"] for _, _, body in carried] == ["join", "pages", "declined"]
    assert pair.home == ["x"] and pair.page.relay is None and pair.guest.guests == {}


async def test_a_host_that_has_gone_cuts_the_game_off() -> None:
    pair = Pair()
    await pump(pair.host, pair.guest)
    [remote] = pair.remote
    remote.wait_for("Waiting for the game to start.")  # (a snapshot: the game was made)
    await pump(pair.host, pair.guest)
    [relay] = pair.guest.guests.values()
    relay.cut_off()
    assert pair.page.over and pair.page.snapshot()["result"] == CUT_OFF
    assert pair.home == []


async def test_a_host_that_never_answered_sends_the_person_home() -> None:
    pair = Pair()
    [relay] = pair.guest.guests.values()
    relay.cut_off()  # (before any snapshot: the join was never answered)
    assert pair.home == ["x"] and not pair.page.over and isinstance(pair.page, BrowserSeat)


async def test_the_page_sends_one_move_at_a_time() -> None:
    """A second move before the host's answer is refused at home (one in flight, as a
    seat's own page has), and allowed again once the answer has come."""
    pair = Pair()
    await pump(pair.host, pair.guest)
    [remote] = pair.remote
    game, local = pair.game, SeatDesk().open(pair.game)
    match = Match(game, game.start(random.Random(0)), [remote, local], events=EventBus())
    match.chance_rng = random.Random(8)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(match.run)
        await pump(pair.host, pair.guest)
        assert pair.page.snapshot()["your_turn"]
        assert pair.page.submit("no such move") is None
        assert pair.page.submit("draw") == "a move is already on its way"
        await pump(pair.host, pair.guest)
        assert "no such move" in pair.page.snapshot()["error"]  # (the host's answer)
        assert pair.page.submit("draw") is None
        await pump(pair.host, pair.guest)
        assert not pair.page.snapshot()["your_turn"]
        nursery.cancel_scope.cancel()


async def test_flush_sends_what_is_left_whatever_the_cancellation() -> None:
    sent: list[Any] = []

    async def on_board(call: Any) -> int:
        sent.extend(call.keywords["messages"])
        return len(sent)

    host = hub("host")
    host.queue.on_board = on_board  # type: ignore[method-assign]
    host.send("guest", "link", {"type": "declined"})
    with trio.CancelScope() as scope:
        scope.cancel()
        await host.flush()
    assert sent == [("guest", "link", {"type": "declined"})]
