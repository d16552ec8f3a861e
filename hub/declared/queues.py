"""The waiting room of ``hub serve GAME``: the one place that decides who is paired with whom.

"Next to arrive" is one core `hub.core.io.lobby.Lobby` per choice (`Terms`: people who asked
for different games never meet), made when first asked for and bounded (`MAX_QUEUES`). A
newcomer is paired with the waiting player of the nearest rating within its reach (`REACH`,
growing `REACH_GROWS` a second while it waits); while two or more wait in one queue a task
re-pairs them each `PAIR_EVERY` s. A waiting entry is also posted on the queue shared with
the other processes of a hub on PostgreSQL (`watch`, hub.declared.sharing), on its choice.

The room seats nobody itself: a table it makes goes to its `Host`
(`hub.declared.serve.GameServer`), which plays it in its nursery.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import attrs
import trio

from hub.core.io import lobby as pairing
from hub.core.play.vocabulary import Seat
from hub.declared.sharing import Choice, Post, Sharing, WaitWatch, choice_of
from hub.declared.terms import MAX_QUEUES, Offer, Terms, TermsError

REACH = 150.0
"""Elo: how far apart two players who just arrived may be and still be paired at once."""
REACH_GROWS = 50.0
"""Elo a waiting player's reach grows by each second (anyone within 10 s at most ratings)."""
PAIR_EVERY = 1.0
"""Seconds between two re-pairings of the players who wait (`Lobby.pair_waiting`)."""


class Host(Protocol):
    """What the waiting room needs of its server: the nursery its tables are played (and
    its re-pairing runs) in, None before it serves (then anyone is within reach: nothing
    re-pairs); the shared queue, None alone; and where a table made goes."""

    @property
    def nursery(self) -> trio.Nursery | None: ...

    @property
    def sharing(self) -> Sharing | None: ...

    def seat_table(self, table: pairing.Seating[Seat[Any, Any]] | None, terms: Terms) -> None:
        """Play ``table`` (None: nobody was seated) on ``terms``."""
        ...


@attrs.define(eq=False)
class WaitingRoom:
    """The "next to arrive" queues of one game (`players`, its number of players) on the
    choices of ``offer`` (``default``: the server's own terms, whose queue is always there),
    paired by ``ratings`` (by identity; unrated: 0, the list's mean)."""

    host: Host
    players: int
    offer: Offer
    ratings: dict[str, float] = attrs.Factory(dict)
    queues: dict[Terms, pairing.Lobby[Seat[Any, Any]]] = attrs.field(init=False)
    """"Next to arrive" for each choice somebody waits with (the default's always)."""
    _pairing: bool = False
    """Whether the task that seats waiting players whose reach has grown runs."""

    def __attrs_post_init__(self) -> None:
        self.queues = {self.default: self._new_queue()}

    @property
    def default(self) -> Terms:
        """The server's own terms: its ``--tc`` and settings."""
        return self.offer.default

    @property
    def queue(self) -> pairing.Lobby[Seat[Any, Any]]:
        """The queue of the server's own terms."""
        return self.queues[self.default]

    def _new_queue(self) -> pairing.Lobby[Seat[Any, Any]]:
        return pairing.Lobby(self.players, distance=self._distance, reach=self._reach)

    @property
    def waiting(self) -> int:
        """How many wait for the next to arrive, whatever their choice."""
        return sum(len(queue) for queue in self.queues.values())

    def waiting_on(self, terms: Terms | None) -> int:
        """How many wait for the next to arrive on ``terms`` (None: the server's own)."""
        queue = self.queues.get(self.default if terms is None else terms)
        return 0 if queue is None else len(queue)

    def queue_of(self, terms: Terms) -> pairing.Lobby[Seat[Any, Any]]:
        """The queue of ``terms``, made when first asked for (the empty ones are dropped
        then; at most `MAX_QUEUES` at once: `TermsError` beyond)."""
        queue = self.queues.get(terms)
        if queue is None:
            for key in [k for k, q in self.queues.items() if not len(q) and k != self.default]:
                del self.queues[key]
            if len(self.queues) >= MAX_QUEUES:
                raise TermsError("too many different choices are waiting: pick a listed one")
            queue = self.queues[terms] = self._new_queue()
        return queue

    def join(
        self, entry: pairing.Waiting[Seat[Any, Any]], terms: Terms, *, ahead: bool = False
    ) -> pairing.Seating[Seat[Any, Any]] | None:
        """`Lobby.join` of ``terms``' queue now; while two or more wait in one, a task
        re-pairs them each second."""
        queue = self.queue_of(terms)
        table = queue.join(entry, ahead=ahead, now=trio.current_time())
        nursery = self.host.nursery
        if table is None and len(queue) > 1 and not self._pairing and nursery:
            self._pairing = True
            nursery.start_soon(self._re_pair)
        return table

    def dismiss(self) -> list[pairing.Waiting[Seat[Any, Any]]]:
        """Everyone waiting, out of every queue (the server is closing)."""
        return [entry for queue in self.queues.values() for entry in queue.dismiss()]

    async def _re_pair(self) -> None:
        try:
            while any(len(queue) > 1 for queue in self.queues.values()):
                await trio.sleep(PAIR_EVERY)
                for terms, queue in list(self.queues.items()):
                    for table in queue.pair_waiting(trio.current_time()):
                        self.host.seat_table(table, terms)
        finally:
            self._pairing = False

    def _reach(self, waited: float) -> float:
        """How far (Elo) a player who has waited ``waited`` s accepts a partner: `REACH`
        at once, `REACH_GROWS` more each second (anyone without a nursery to re-pair in)."""
        if self.host.nursery is None:
            return math.inf
        return REACH + REACH_GROWS * waited

    def _distance(self, waiting: Seat[Any, Any], newcomer: Seat[Any, Any]) -> float:
        ratings = self.ratings
        return abs(
            ratings.get(waiting.player.identity, 0.0) - ratings.get(newcomer.player.identity, 0.0)
        )

    # -- the queue shared with the other processes (hub.declared.sharing) ---------------------

    def shared_choice(self, terms: Terms) -> Choice:
        """``terms`` as the shared queue carries it (hub.declared.sharing.Choice)."""
        return choice_of(terms, self.offer)

    def watch(self, gone: WaitWatch | None, post: Post, terms: Terms) -> WaitWatch | None:
        """A waiting entry's watch: ``gone``, and the entry's post on the shared queue (on
        its choice: ``terms``)."""
        sharing = self.host.sharing
        if sharing is None:
            return gone
        post.choice = self.shared_choice(terms)
        return sharing.watch(gone, post)
