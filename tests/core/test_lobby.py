"""The one pairing component (hub.core.io.lobby): properties of joins and leaves in any order,
and the trio side (waiting, the check for a client that has gone, playing a table)."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable

import attrs
import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from hub.core.io.lobby import Lobby, Seating, Waiting

# An operation: ("join", request) adds a new entry; ("leave", k) makes the k-th entry made
# so far (modulo their number) leave, whatever it is doing (waiting, seated, gone already).
Operation = tuple[str, int]
operations = st.lists(
    st.one_of(
        st.tuples(st.just("join"), st.integers(0, 2)),
        st.tuples(st.just("leave"), st.integers(0, 1000)),
    ),
    max_size=60,
)


@attrs.frozen(eq=False)
class Client:
    number: int
    request: int
    """0, 1: a colour; 2: either (UQChess's compatible requests)."""


def compatible(a: Client, b: Client) -> bool:
    return a.request == 2 or b.request == 2 or a.request != b.request


Check = Callable[[tuple[Waiting[Client], ...], Waiting[Client], Seating[Client] | None], None]


def run(
    lobby: Lobby[Client], script: list[Operation], check: Check | None = None
) -> list[Seating[Client]]:
    """Play ``script`` on ``lobby``; check what must hold after every step (and ``check``
    after every join: the waiting entries before it, the newcomer, the table); the tables."""
    entries: list[Waiting[Client]] = []
    tables: list[Seating[Client]] = []
    departed: set[int] = set()
    seated: set[int] = set()
    for kind, value in script:
        if kind == "join":
            entry = Waiting(Client(len(entries), value))
            entries.append(entry)
            before = lobby.waiting
            table = lobby.join(entry)
            if check is not None:
                check(before, entry, table)
            if table is None:
                assert lobby.waiting == (*before, entry)
                continue
            numbers = [client.number for client in table.items]
            assert len(numbers) == lobby.size
            assert table.entries[-1] is entry
            assert not seated & set(numbers), "an entry is seated twice"
            assert not departed & set(numbers), "an entry that left is seated"
            assert all(e.seated for e in table.entries)
            for a, b in itertools.combinations(table.items, 2):
                assert lobby.fits(a, b)
            assert all(e not in lobby for e in table.entries)
            assert lobby.waiting == tuple(e for e in before if e not in table.entries)
            seated.update(numbers)
            tables.append(table)
        elif entries:
            entry = entries[value % len(entries)]
            was_waiting = entry in lobby
            assert lobby.leave(entry) is was_waiting
            assert entry not in lobby
            if was_waiting:
                departed.add(entry.item.number)
        # Only the entries that are waiting are kept: none seated, none gone.
        assert all(not e.seated and not e.left for e in lobby.waiting)
        assert len({id(e) for e in lobby.waiting}) == len(lobby)
    for entry in list(lobby.waiting):
        lobby.leave(entry)
    assert len(lobby) == 0
    return tables


@given(st.integers(1, 4), operations)
def test_first_come_first_seated_and_bounded(size: int, script: list[Operation]) -> None:
    lobby: Lobby[Client] = Lobby(size)
    queue: list[int] = []  # the model: numbers waiting, in order of arrival
    made = 0
    tables_expected: list[list[int]] = []
    for kind, value in script:
        if kind == "join":
            queue.append(made)
            made += 1
            if len(queue) == size:
                tables_expected.append(queue)
                queue = []
        elif made:
            number = value % made
            if number in queue:
                queue.remove(number)
        assert len(queue) < size  # memory: fewer waiting than a table
    tables = run(lobby, script)
    assert [[c.number for c in table.items] for table in tables] == tables_expected


@given(operations)
def test_compatible_requests_pair_the_lowest_rank_first(script: list[Operation]) -> None:
    lobby: Lobby[Client] = Lobby(2, fits=compatible, rank=lambda client: -client.number)

    def check(
        before: tuple[Waiting[Client], ...], entry: Waiting[Client], table: Seating[Client] | None
    ) -> None:
        candidates = [w.item for w in before if compatible(w.item, entry.item)]
        if table is None:
            assert candidates == []
        else:  # the highest number first, as ranked
            assert table.items[0] is max(candidates, key=lambda c: c.number)
        # No two waiting entries could have been paired: the queue is as short as it can be.
        for a, b in itertools.combinations(lobby.waiting, 2):
            assert not compatible(a.item, b.item)

    run(lobby, script, check)


@given(st.integers(3, 4), operations)
def test_a_table_of_more_is_pairwise_compatible(size: int, script: list[Operation]) -> None:
    run(Lobby(size, fits=compatible), script)


def test_an_entry_joins_once() -> None:
    lobby: Lobby[str] = Lobby(3)
    entry = Waiting("a")
    assert lobby.join(entry) is None
    with pytest.raises(ValueError):
        lobby.join(entry)
    assert lobby.leave(entry)
    assert not lobby.leave(entry)
    with pytest.raises(ValueError):
        lobby.join(entry)  # it left: a client that asks again comes with a new entry
    with pytest.raises(ValueError):
        Lobby(0)


async def test_a_waiting_client_that_goes_is_dropped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby: Lobby[str] = Lobby(2)
    ghost, newcomer = Waiting("ghost"), Waiting("newcomer")
    left = trio.Event()
    assert lobby.join(ghost) is None

    async def gone() -> None:
        await left.wait()

    async with trio.open_nursery() as nursery:

        async def ghost_waits() -> None:
            assert not await lobby.wait(ghost, gone)

        nursery.start_soon(ghost_waits)
        await trio.sleep(1)
        left.set()
    assert ghost.left and not ghost.seated and len(lobby) == 0
    assert lobby.join(newcomer) is None  # not seated with the ghost
    assert lobby.waiting == (newcomer,)


async def test_seating_stops_the_check_before_the_game_reads(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby: Lobby[str] = Lobby(2)
    first, second = Waiting("first"), Waiting("second")
    order: list[str] = []
    assert lobby.join(first) is None

    async def gone() -> None:
        try:
            await trio.sleep_forever()  # reads the client's stream
        finally:
            with trio.CancelScope(shield=True):
                await trio.sleep(1)  # still reading for a while after being told to stop
            order.append("check stopped")

    with trio.fail_after(10):  # a check that is never stopped would hang the game
        await play_both(lobby, first, second, gone, order)
    assert order == ["check stopped", "game", "first done"]


async def play_both(
    lobby: Lobby[str],
    first: Waiting[str],
    second: Waiting[str],
    gone: Callable[[], Awaitable[None]],
    order: list[str],
) -> None:
    async with trio.open_nursery() as nursery:

        async def first_waits() -> None:
            assert await lobby.wait(first, gone)
            order.append("first done")

        nursery.start_soon(first_waits)
        await trio.sleep(1)
        table = lobby.join(second)
        assert table is not None and table.items == ("first", "second")
        async with table.playing() as items:
            order.append("game")
            assert items == ("first", "second")
            assert not first.done.is_set()
        assert first.done.is_set() and second.done.is_set()


async def test_an_entry_seated_before_it_waits_is_not_checked() -> None:
    lobby: Lobby[str] = Lobby(2)
    first = Waiting("first")
    assert lobby.join(first) is None
    table = lobby.join(Waiting("second"))
    assert table is not None

    async def gone() -> None:
        raise AssertionError("a seated entry's stream belongs to its game")

    async with table.playing():
        pass
    assert await lobby.wait(first, gone)


async def test_a_cancelled_wait_leaves_the_lobby(autojump_clock: trio.testing.MockClock) -> None:
    lobby: Lobby[str] = Lobby(2)
    entry = Waiting("a")
    assert lobby.join(entry) is None
    with trio.move_on_after(5):
        await lobby.wait(entry)
    assert entry.left and len(lobby) == 0
    assert lobby.join(Waiting("b")) is None  # not seated with a client nobody waits for


def test_an_entry_sent_back_joins_ahead_in_its_order_and_takes_the_first_seat() -> None:
    """Entries whose table was called off (a ghost did not come) come back ahead of those
    waiting, in the order they came back, and are seated first; newcomers join behind."""
    lobby: Lobby[str] = Lobby(3)
    late = Waiting("late")
    assert lobby.join(late) is None
    first, second = Waiting("first"), Waiting("second")
    assert lobby.join(first, ahead=True) is None
    assert [entry.item for entry in lobby.waiting] == ["first", "late"]
    table = lobby.join(second, ahead=True)
    assert table is not None and table.items == ("first", "second", "late")
    assert lobby.join(Waiting("a")) is None
    assert lobby.join(Waiting("back"), ahead=True) is None
    assert [entry.item for entry in lobby.waiting] == ["back", "a"]
    newcomer = lobby.join(Waiting("b"))
    assert newcomer is not None and newcomer.items == ("back", "a", "b")
    two: Lobby[str] = Lobby(2)
    assert two.join(Waiting("waiting")) is None
    seated = two.join(Waiting("returning"), ahead=True)
    assert seated is not None and seated.items == ("returning", "waiting")


# -- near ratings (hub serve's "next to arrive": issue 27 item 3) ----------------------------


def rated_lobby(reach: Callable[[float], float] | None = None) -> Lobby[float]:
    return Lobby(2, distance=lambda waiting, newcomer: abs(waiting - newcomer), reach=reach)


def test_with_several_waiting_a_newcomer_meets_the_nearest_rating_first_come_on_ties() -> None:
    lobby = rated_lobby()
    lobby._waiting = [Waiting(rating) for rating in (0.0, 400.0, 90.0, 110.0)]  # (several)
    table = lobby.join(Waiting(100.0))
    assert table is not None and table.items == (90.0, 100.0)  # 10 apart, before 110's 10
    assert [entry.item for entry in lobby.waiting] == [0.0, 400.0, 110.0]


def test_an_entry_that_came_back_ahead_still_comes_first() -> None:
    lobby = rated_lobby()
    lobby._waiting = [Waiting(500.0, ahead=True), Waiting(100.0)]
    table = lobby.join(Waiting(100.0))
    assert table is not None and table.items[0] == 500.0


def test_without_a_distance_the_order_of_arrival_decides() -> None:
    lobby: Lobby[float] = Lobby(2)
    lobby._waiting = [Waiting(0.0), Waiting(100.0)]
    table = lobby.join(Waiting(100.0))
    assert table is not None and table.items == (0.0, 100.0)


def test_a_reach_keeps_far_ratings_waiting_until_it_has_grown() -> None:
    lobby = rated_lobby(reach=lambda waited: 100 + 50 * waited)
    strong, weak = Waiting(500.0), Waiting(0.0)
    assert lobby.join(strong, now=0.0) is None
    assert lobby.join(weak, now=1.0) is None  # 500 apart: strong accepts 150 now
    assert len(lobby) == 2 and lobby.pair_waiting(now=5.0) == []  # strong's reach: 350
    near = Waiting(40.0)
    table = lobby.join(near, now=6.0)  # weak's nearest, within its reach at once
    assert table is not None and table.items == (0.0, 40.0)
    assert lobby.pair_waiting(now=7.0) == []  # strong alone
    table = lobby.join(Waiting(900.0), now=7.0)  # 400 apart; strong accepts 450 at 7 s
    assert table is not None and table.items == (500.0, 900.0) and len(lobby) == 0


def test_pair_waiting_seats_the_pairs_whose_reach_has_grown_longest_waiting_first() -> None:
    lobby = rated_lobby(reach=lambda waited: 100 + 50 * waited)
    first, second = Waiting(0.0), Waiting(1000.0)
    lobby.join(first, now=0.0)
    lobby.join(second, now=0.0)
    assert lobby.pair_waiting(now=17.0) == []  # 950 < 1000
    tables = lobby.pair_waiting(now=18.0)  # 1000: they meet
    assert [table.items for table in tables] == [(0.0, 1000.0)] and len(lobby) == 0
    assert first.seated and second.seated


async def test_dismissed_entries_stop_waiting_and_are_not_seated(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A closing server dismisses its queue: every waiting entry's `wait` returns False at
    once, its check for a gone client stopped (``hub serve``'s drain)."""
    lobby: Lobby[int] = Lobby(3)
    checked, plain = Waiting(1), Waiting(2)
    assert lobby.join(checked) is None and lobby.join(plain) is None
    answers: dict[int, bool] = {}

    async def wait(entry: Waiting[int], gone: Callable[[], Awaitable[object]] | None) -> None:
        answers[entry.item] = await lobby.wait(entry, gone)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait, checked, trio.sleep_forever)
        nursery.start_soon(wait, plain, None)
        await trio.testing.wait_all_tasks_blocked()
        assert lobby.dismiss() == [checked, plain]
    assert answers == {1: False, 2: False} and len(lobby) == 0
    assert lobby.join(Waiting(3)) is None  # nobody left to be seated with


async def test_an_entry_taken_out_keeps_waiting_until_someone_else_seats_it() -> None:
    """`Lobby.take` and `Lobby.seat` (an operator's round-robin chooses the tables): a taken
    entry is out of the queue, neither left nor seated, and its check still runs; seated by
    `seat`, its check is cancelled and it waits for its game; an entry is seated once."""
    lobby: Lobby[str] = Lobby(2)
    first, second = Waiting("a"), Waiting("b")
    assert lobby.join(first) is None
    assert lobby.take(first) and not lobby.take(first)
    assert len(lobby) == 0 and not first.left and not first.seated
    assert lobby.join(second) is None  # (not paired with the taken entry)
    checking = trio.Event()
    waited: list[bool] = []

    async def gone() -> None:
        checking.set()
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:

        async def wait() -> None:
            waited.append(await lobby.wait(first, gone))

        nursery.start_soon(wait)
        await checking.wait()
        table = lobby.seat([second, first])
        assert table.items == ("b", "a") and len(lobby) == 0
        with pytest.raises(ValueError, match="seated once"):
            lobby.seat([first])
        async with table.playing() as items:
            assert items == ("b", "a")
            assert not waited  # (its game is being played)
    assert waited == [True]
