"""hub.declared.sharing over a fake shared queue (no database): a wait is posted while it
waits and withdrawn after; of two players who posted at once at two processes, the newer
goes to the older (a TCP client moves, a person calls the TCP client over), never both."""

from __future__ import annotations

from typing import Any

import attrs
import trio
import trio.testing

from hub.declared.sharing import FIXED, MOVABLE, Post, Sharing
from hub.records.waiting import Claimed


@attrs.define
class FakeQueue:
    """Posts numbered from 10; ``older`` is what a claim with ``before`` finds."""

    older: Claimed | None = None
    first: Claimed | None = None
    log: list[tuple[Any, ...]] = attrs.Factory(list)

    async def post(self, game: str, kind: str) -> int:
        self.log.append(("post", game, kind))
        return 10

    async def withdraw(self, entry: int | None) -> None:
        self.log.append(("withdraw", entry))

    async def claim(
        self, game: str, kinds: tuple[str, ...], before: int | None = None
    ) -> Claimed | None:
        self.log.append(("claim", kinds, before))
        return self.older if before is not None else self.first

    async def call(self, claimed: Claimed) -> None:
        self.log.append(("call", claimed.entry))


def sharing(queue: FakeQueue) -> Sharing:
    return Sharing(queue, "connect4", lambda: 1)  # type: ignore[arg-type]


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
