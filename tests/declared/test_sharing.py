"""hub.declared.sharing over a fake shared queue (no database): a wait is posted while it
waits and withdrawn after; of two players who posted at once at two processes, the newer
goes to the older (a TCP client moves, a person calls the TCP client over), never both."""

from __future__ import annotations

from typing import Any

import attrs
import trio
import trio.testing

from hub.core.model.clock import TimeControl
from hub.declared.sharing import FIXED, MOVABLE, Post, Sharing, choice_of
from hub.declared.terms import Offer
from hub.games.connect4 import ConnectFour
from hub.records.waiting import Claimed


@attrs.define
class FakeQueue:
    """Posts numbered from 10; ``older`` is what a claim with ``before`` finds."""

    older: Claimed | None = None
    first: Claimed | None = None
    log: list[tuple[Any, ...]] = attrs.Factory(list)

    async def post(self, game: str, kind: str, terms: str = "") -> int:
        self.log.append(("post", game, kind) + ((terms,) if terms else ()))
        return 10

    async def withdraw(self, entry: int | None) -> None:
        self.log.append(("withdraw", entry))

    async def claim(
        self, game: str, kinds: tuple[str, ...], before: int | None = None, terms: str = ""
    ) -> Claimed | None:
        self.log.append(("claim", kinds, before) + ((terms,) if terms else ()))
        return self.older if before is not None else self.first

    async def call(self, claimed: Claimed) -> None:
        self.log.append(("call", claimed.entry))


def sharing(queue: FakeQueue) -> Sharing:
    return Sharing(queue, "connect4", lambda terms: 1)  # type: ignore[arg-type]


async def test_a_wait_is_posted_while_it_waits_and_withdrawn_after() -> None:
    queue = FakeQueue()
    left = trio.Event()
    share = sharing(queue)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(share.watch(left.wait, Post(movable=True)))
        await trio.testing.wait_all_tasks_blocked()
        assert share.posts.keys() == {10}
        left.set()
    assert queue.log == [
        ("post", "connect4", MOVABLE),
        ("claim", (MOVABLE, FIXED), 10),
        ("withdraw", 10),
    ]
    assert share.posts == {}


async def test_a_tcp_client_that_posted_after_another_goes_to_it() -> None:
    queue = FakeQueue(older=Claimed(3, "other", "elsewhere:9"))
    post = Post(movable=True)
    with trio.fail_after(1):
        await sharing(queue).watch(None, post)()  # it ends by itself: called away
    assert post.to == "elsewhere:9"
    assert queue.log[-1] == ("withdraw", 10)


async def test_a_person_who_posted_after_a_tcp_client_calls_it_over() -> None:
    queue = FakeQueue(older=Claimed(3, "other", "elsewhere:9"))
    left = trio.Event()
    post = Post(movable=False)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sharing(queue).watch(left.wait, post))
        await trio.testing.wait_all_tasks_blocked()
        assert post.to is None  # a person stays: they wait for the one they called
        left.set()
    assert queue.log == [
        ("claim", (MOVABLE,), None),
        ("post", "connect4", FIXED),
        ("claim", (MOVABLE,), 10),
        ("call", 3),
        ("withdraw", 10),
    ]


async def test_a_person_is_never_called_away() -> None:
    share = sharing(FakeQueue())
    person = Post(movable=False)
    share.posts[10] = person
    share.called(10, "elsewhere:9")
    assert person.to is None and not person.called.is_set()


def connect4_offer(tc: str = "60+1", **settings: Any) -> Offer:
    game = ConnectFour(settings)
    options = tuple(o for o in ConnectFour.options if o.name in ("rows", "columns"))
    controls = (TimeControl.parse(tc), TimeControl.parse("180+2"))
    return Offer(controls, options, dict(game.settings))


def test_a_choice_is_shared_by_its_clock_and_whole_settings() -> None:
    """Equal keys for the same game on the same clock, whatever each operator offers or
    set as default; other keys for another clock or another setting, chosen or not."""
    here = connect4_offer()
    plain = choice_of(here.default, here)
    assert (plain.tc, plain.settings) == ("60+1", (("columns", 7), ("rows", 6)))
    assert len(plain.key) == 64  # (a digest: the post's size does not grow with settings)
    assert choice_of(here.terms("60+1", {"rows": 6}), here).key == plain.key
    other_default = connect4_offer("180+2")  # 60+1 is not offered there: only 180+2 pairs
    assert choice_of(other_default.default, other_default).key != plain.key
    assert (
        choice_of(other_default.terms("180+2"), other_default).key
        == choice_of(here.terms("180+2"), here).key
    )
    smaller = choice_of(here.terms(None, {"rows": 5}), here)
    assert smaller.key != plain.key and smaller.settings == (("columns", 7), ("rows", 5))
    set_there = connect4_offer(rows=5)  # the operator's own rows 5: the same game
    assert choice_of(set_there.default, set_there).key == smaller.key
    fewer = Offer(here.controls, (), here.settings)  # (options not offered: the same game)
    assert choice_of(fewer.default, fewer).key == plain.key
    assert choice_of(here.default, Offer(here.controls, (), {"connect": 5})).key != plain.key


async def test_a_wait_is_posted_and_claimed_on_its_choice() -> None:
    queue = FakeQueue()
    left = trio.Event()
    here = connect4_offer()
    choice = choice_of(here.terms("180+2"), here)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sharing(queue).watch(left.wait, Post(movable=False, choice=choice)))
        await trio.testing.wait_all_tasks_blocked()
        left.set()
    assert queue.log == [
        ("claim", (MOVABLE,), None, choice.key),
        ("post", "connect4", FIXED, choice.key),
        ("claim", (MOVABLE,), 10, choice.key),
        ("withdraw", 10),
    ]


async def test_a_person_who_finds_a_person_waiting_elsewhere_becomes_their_guest() -> None:
    """With relayed seats (hub.declared.remote), a person may take a person's wait: their
    own wait ends (it is not posted) with that wait as its guest; without them, a person
    claims TCP clients only."""
    there = Claimed(3, "other", "elsewhere:9", FIXED)
    queue = FakeQueue(first=there)
    share = sharing(queue)
    share.relays = object()  # type: ignore[assignment]
    post = Post(movable=False)
    with trio.fail_after(1):
        await share.watch(trio.sleep_forever, post)()  # it ends by itself: a guest
    assert post.guest == there and post.to is None
    assert queue.log == [("claim", (MOVABLE, FIXED), None)]


async def test_a_person_who_posted_after_a_person_elsewhere_becomes_their_guest() -> None:
    there = Claimed(3, "other", "elsewhere:9", FIXED)
    queue = FakeQueue(older=there)
    share = sharing(queue)
    share.relays = object()  # type: ignore[assignment]
    post = Post(movable=False)
    with trio.fail_after(1):
        await share.watch(trio.sleep_forever, post)()
    assert post.guest == there
    assert queue.log == [
        ("claim", (MOVABLE, FIXED), None),
        ("post", "connect4", FIXED),
        ("claim", (MOVABLE, FIXED), 10),
        ("withdraw", 10),
    ]
