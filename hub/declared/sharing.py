"""A `hub.declared.serve.GameServer`'s part in the waiting queue that the ``hub serve``
processes on one PostgreSQL share (`hub.records.waiting`; docs/postgres.md).

The server keeps its own queue and plays its own games; `Sharing` adds three things to it, for
games of two:

* `relay_away`: a TCP client that finds nobody waiting here takes the oldest wait posted by
  another process and is relayed there (`hub.declared.relay`), where it is paired;
* `watch`: a player who waits here is posted for as long as they wait (the watch runs exactly
  while the entry waits); a person (who cannot move) first calls a TCP client waiting at
  another process over, and a TCP client's wait also ends when another process calls it
  (`Post.to`: the server then relays it there);
* `listen`: the calls of this process's posts, from ``NOTIFY``;
* with `relays` (hub.declared.remote), a person who finds the oldest wait to be a person
  at another process takes it (`Post.guest`): they play that person there, their page
  staying here.

Every wait is shared with its choice (`Choice`: the time control and the game's settings,
hub.declared.terms): a post carries the choice's key, a claim takes only a wait of an equal
key, and a relayed client's hello asks the other process for that choice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from hub.core.io.lines import LineStream
from hub.core.io.output import write_all
from hub.core.play.jsonbot import Hello
from hub.declared.relay import relay
from hub.declared.terms import Offer, Terms, settings_of

if TYPE_CHECKING:
    from hub.core.model.bus import EventBus
    from hub.core.play.game import Value
    from hub.declared.remote import RelayHub
    from hub.records.live import LiveList
    from hub.records.waiting import Claimed, SharedQueue

MOVABLE = "tcp"
"""A waiting player the shared queue can send to another process (relayed): a TCP client."""
FIXED = "browser"
"""A waiting player who stays where they are: a person, whose page is served here."""

WaitWatch = Callable[[], Awaitable[object]]


@attrs.frozen
class Choice:
    """A wait's choice as the shared queue carries it: its ``key`` (posted; a claim takes
    only a wait of an equal key) and what a relayed client's hello asks the other process
    for (``tc``, ``settings``: the `Terms`' offered settings). ``terms``: the choice at
    this process (None: the server's own)."""

    key: str = ""
    tc: str = ""
    settings: tuple[tuple[str, Value], ...] = ()
    terms: Terms | None = None


def choice_of(terms: Terms, offer: Offer) -> Choice:
    """The shared `Choice` of ``terms`` within ``offer``. Its key is a digest of the clock
    and of the game's whole settings (the server's with the chosen ones), not of the
    choice's words: two processes pair only players of the same game on the same clock,
    even where their operators set other defaults (a ``--tc`` of 60+1 at one and 180+2 at
    the other never pair their "default" players)."""
    whole = {"tc": terms.control.describe(), "settings": settings_of(terms, offer)}
    text = json.dumps(whole, sort_keys=True, separators=(",", ":"), default=str)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Choice(key, terms.control.describe(), terms.settings, terms)


@attrs.define(eq=False)
class Post:
    """A wait posted on the shared queue, on its ``choice``; a movable one may be called
    away (to ``to``)."""

    movable: bool
    called: trio.Event = attrs.Factory(trio.Event)
    to: str | None = None
    choice: Choice = Choice()
    guest: Claimed | None = None
    """A person's wait ended by taking a person's wait at another process (this one is
    to play there: hub.declared.remote)."""


@attrs.define(eq=False)
class Sharing:
    """One server's sharing: its game's name, the shared queue, and its own queue's size."""

    queue: SharedQueue
    game: str
    waiting_here: Callable[[Terms | None], int]
    """How many players wait in this process's own queue of a choice (None: the server's
    own terms)."""
    posts: dict[int, Post] = attrs.Factory(dict)
    """This process's posted waits, by their numbers on the board."""
    relays: RelayHub | None = None
    """This process's relayed seats: a person here may play a person at another process
    (None: people are paired with TCP clients only)."""

    def _person_kinds(self) -> tuple[str, ...]:
        """The waits at other processes a person here may take."""
        return (MOVABLE, FIXED) if self.relays is not None else (MOVABLE,)

    def _take(self, post: Post, claimed: Claimed) -> bool:
        """A person took ``claimed``: True if it is a person there (``post`` ends as its
        guest), False if a TCP client (to call over)."""
        if claimed.kind != FIXED:
            return False
        post.guest = claimed
        post.called.set()
        return True

    async def relay_away(self, lines: LineStream, hello: Hello, choice: Choice = Choice()) -> None:
        """Relay the TCP client of ``lines`` to another process where a player waits on the
        same ``choice``, if nobody waits on it here: it plays there, then
        `hub.declared.relay.Relayed` is raised (its connection ends). Returns if nobody
        waits anywhere else (or nobody answers)."""
        if self.waiting_here(choice.terms):
            return
        kinds = (MOVABLE, FIXED)
        while (claimed := await self.queue.claim(self.game, kinds, terms=choice.key)) is not None:
            await self._relay(lines, hello, claimed.address, choice)

    async def relay_to(self, lines: LineStream, hello: Hello, post: Post) -> None:
        """Relay a client whose wait was called away (`Post.to`), as `relay_away`; returns
        if that process cannot be reached (the client waits here again)."""
        if post.to is not None:
            await self._relay(lines, hello, post.to, post.choice)

    async def _relay(self, lines: LineStream, hello: Hello, to: str, choice: Choice) -> None:
        await relay(lines, hello, to, self.game, tc=choice.tc, settings=dict(choice.settings))

    def watch(self, gone: WaitWatch | None, post: Post) -> WaitWatch:
        """``gone`` (a waiting entry's watch, which runs exactly while it waits) that also
        posts the wait and withdraws it when the entry is seated or leaves; a movable wait's
        watch ends when it is called away too."""
        queue = self.queue
        key = post.choice.key

        async def posted() -> None:
            if not post.movable and self.waiting_here(post.choice.terms) <= 1:
                claimed = await queue.claim(self.game, self._person_kinds(), terms=key)
                if claimed is not None:
                    if self._take(post, claimed):
                        return
                    await queue.call(claimed)
            number = await queue.post(self.game, MOVABLE if post.movable else FIXED, key)
            if number is not None:
                self.posts[number] = post
                await self._meet_older(post, number)
            try:
                async with trio.open_nursery() as watching:

                    async def until_gone() -> None:
                        if gone is None:
                            await trio.sleep_forever()
                        await gone()
                        watching.cancel_scope.cancel()

                    async def until_called() -> None:
                        await post.called.wait()
                        watching.cancel_scope.cancel()

                    watching.start_soon(until_gone)
                    watching.start_soon(until_called)
            finally:
                if number is not None:
                    self.posts.pop(number, None)
                await queue.withdraw(number)

        return posted

    async def _meet_older(self, post: Post, number: int) -> None:
        """Two players who arrive at two processes at once may both find nobody posted and
        both post: the newer post then goes to the older one (a movable player moves there;
        a person calls a movable one over), never both to each other."""
        kinds = (MOVABLE, FIXED) if post.movable else self._person_kinds()
        older = await self.queue.claim(self.game, kinds, before=number, terms=post.choice.key)
        if older is None:
            return
        if post.movable:
            self.called(number, older.address)
        elif not self._take(post, older):
            await self.queue.call(older)

    def called(self, number: int, to: str) -> None:
        """Another process calls our wait ``number`` over to ``to``: a movable player still
        waiting goes."""
        post = self.posts.get(number)
        if post is not None and post.movable and post.to is None:
            post.to = to
            post.called.set()

    async def listen(self) -> None:
        """Until cancelled: answer the calls of our posts."""
        await self.queue.listen(self.called)

    async def aclose(self) -> None:
        await self.queue.aclose()


async def open_sharing(
    where: object,
    host: str,
    port: int,
    game: str,
    waiting_here: Callable[[Terms | None], int],
    prog: str,
) -> Sharing | None:
    """The sharing of a server of ``game`` through the PostgreSQL database ``where`` (the
    records'), this process reached at ``host:port``; None for an SQLite file or none, or
    (after one line on stderr) a database that cannot be used."""
    queue = await open_queue(where, host, port, prog)
    return None if queue is None else Sharing(queue, game, waiting_here)


async def open_queue(where: object, host: str, port: int, prog: str) -> SharedQueue | None:
    """The shared waiting queue in the PostgreSQL database ``where``, for this process
    reached at ``host:port`` (one for every game a process serves: ``hub serve``'s site
    gives each game's `Sharing` the same one, and `listen_all` answers their calls); None
    as `open_sharing`."""
    from hub.records.database import PostgresUrl, database_errors, one_line
    from hub.records.waiting import SharedQueue, advertised_host

    if not isinstance(where, PostgresUrl):
        return None

    def warn(text: str) -> None:
        write_all(2, f"{prog}: {text}\n".encode("utf-8", "replace"))

    try:
        return await SharedQueue.open(where, f"{advertised_host(host)}:{port}", warn)
    except database_errors(OSError) as exc:
        warn(f"cannot share the waiting queue through {where}: {one_line(exc)}")
        return None


async def listen_all(queue: SharedQueue, sharings: Sequence[Sharing]) -> None:
    """Until cancelled: answer the calls of the posts of ``sharings`` (several games' on one
    queue: a post's number is unique on the board, so only its own game's sharing has it)."""

    def called(number: int, to: str) -> None:
        for sharing in sharings:
            sharing.called(number, to)

    await queue.listen(called)


async def start_live(nursery: trio.Nursery, queue: SharedQueue, events: EventBus) -> LiveList:
    """The list of running games shared through ``queue``'s database (hub.records.live):
    the games of ``events`` written, the other processes' read, in ``nursery``."""
    from hub.records.live import LiveList

    live = LiveList(queue)
    events.listen(live.listen, moves=False)  # starts and ends
    await nursery.start(live.run)
    return live


def follow_elsewhere(
    live: LiveList, game: str, show: Callable[[list[dict[str, Any]]], None]
) -> None:
    """Give a lobby (``show``: its `hub.web.index.GameIndex.set_elsewhere`) the games of
    ``game`` running at the other processes, as its rows, whenever they change."""
    from hub.web.index import elsewhere_row

    live.follow(
        game,
        lambda rows: show([elsewhere_row(r.game_id, r.game, r.players, r.started) for r in rows]),
    )
