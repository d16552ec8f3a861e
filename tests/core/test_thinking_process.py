"""A built-in AI's timed turns thought in a forked worker process (`ProcessSeat`,
`ThinkingProcess`): a search in Python then holds no GIL that the event loop needs to keep
its clock. The moves are the child's (what it does stays in its copy), its offers reach the
seat's hard stop, a stopped turn's late answer is dropped, untimed turns and states that
cannot be pickled are thought in a thread, the processes are bounded and always reaped.
On trio's virtual clock that stands still: no timing is asserted."""

from __future__ import annotations

import os
import signal
from typing import Any

import attrs
import pytest
import trio
import trio.testing

from hub.core.model.clock import TimeControl
from hub.core.model.values import PlayerInfo
from hub.core.play import threads
from hub.core.play.fed import ask
from hub.core.play.match import Match
from hub.core.play.threads import ProcessSeat, StopFlag, TurnTime
from hub.core.play.vocabulary import Start
from tests.core.toys import Nim, NimState

pytestmark = pytest.mark.system  # (it forks)

PER_MOVE = TimeControl.per_move_ms(100)
THOUGHT: list[int] = []
"""What a ``think`` here did in the process it ran in (a child's copy stays the child's)."""


def take_one(state: NimState, time: TurnTime, stop: StopFlag) -> int:
    THOUGHT.append(os.getpid())
    return 1


async def begun(seat: ProcessSeat[Any, Any], state: Any, control: TimeControl) -> None:
    await seat.begin(Start(0, state, control, None))  # type: ignore[arg-type]


async def test_a_timed_game_is_thought_in_worker_processes_that_end_with_it(
    mock_clock: trio.testing.MockClock,
) -> None:
    THOUGHT.clear()
    seats = [
        ProcessSeat(take_one, PlayerInfo(name, "ai"), fallback=lambda s: 2, forked=True)
        for name in "AB"
    ]
    with trio.fail_after(30):  # (the virtual clock stands still: a hang would be forever)
        result = await Match(Nim(), NimState(6), seats, time_control=PER_MOVE).run()
    assert [move.move for move in result.record.moves] == ["1"] * 6  # the children's moves
    assert THOUGHT == []  # thought elsewhere
    assert [seat.hard_stops for seat in seats] == [0, 0]
    assert [seat.worker for seat in seats] == [None, None]  # stopped at the game's end


def niceness(state: NimState, time: TurnTime, stop: StopFlag) -> int:
    """The move is the child's niceness (2 past the parent's, say)."""
    return os.getpriority(os.PRIO_PROCESS, 0)


async def test_the_child_thinks_nicer_than_its_referee(
    mock_clock: trio.testing.MockClock,
) -> None:
    """`THINK_NICE`: on a busy machine the event loop that times the turn runs first."""
    seat = ProcessSeat(niceness, PlayerInfo("A", "ai"), forked=True)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        await begun(seat, NimState(6), PER_MOVE)
        assert seat.worker is not None
        with trio.fail_after(30):
            got = await ask(seat, NimState(6), PER_MOVE)
        assert got == min(19, mine + threads.THINK_NICE) != mine
    finally:
        await seat.aclose()


async def test_the_hard_stop_plays_the_offer_of_the_child_and_drops_its_late_answer(
    mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered = trio.Event()

    class Seen(StopFlag):
        def offer(self, move: object) -> None:
            super().offer(move)
            offered.set()

    monkeypatch.setattr(threads, "StopFlag", Seen)

    def offers_then_waits(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        stop.offer(2)
        stop.wait()  # until the seat's hard stop tells the child to stop
        return 3

    seat: ProcessSeat[NimState, int] = ProcessSeat(
        offers_then_waits, fallback=lambda s: 1, forked=True
    )
    await begun(seat, NimState(10), PER_MOVE)
    worker = seat.worker
    assert worker is not None and worker.pid != os.getpid()
    got: list[int] = []

    async def asking() -> None:
        got.append(await ask(seat, NimState(10), PER_MOVE))

    try:
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(asking)
                await offered.wait()  # (the clock stands still until the offer has come)
                mock_clock.jump(0.070)  # the hard stop
            assert got == [2] and seat.hard_stops == 1
            # the child was told to stop: it answers its late 3, which is dropped, and
            # thinks the next turn (a fresh offer, then the hard stop again)
            offered = trio.Event()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(asking)
                await offered.wait()
                mock_clock.jump(0.070)
            assert got == [2, 2] and seat.hard_stops == 2
    finally:
        await seat.aclose()
    with pytest.raises(ChildProcessError):
        os.waitpid(worker.pid, os.WNOHANG)  # reaped


async def test_an_error_in_the_child_is_the_seats_error(
    mock_clock: trio.testing.MockClock,
) -> None:
    def fails(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        raise ValueError("no idea")

    seat: ProcessSeat[NimState, int] = ProcessSeat(fails, fallback=lambda s: 1, forked=True)
    await begun(seat, NimState(10), PER_MOVE)
    try:
        with trio.fail_after(30), pytest.raises(RuntimeError, match="ValueError: no idea"):
            await ask(seat, NimState(10), PER_MOVE)
    finally:
        await seat.aclose()


async def test_untimed_turns_unpicklable_states_and_too_many_processes_use_a_thread(
    mock_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    @attrs.frozen
    class Unpicklable(NimState):
        """A state the pipe cannot carry (its class is local to this function)."""

    THOUGHT.clear()
    untimed: ProcessSeat[NimState, int] = ProcessSeat(take_one, fallback=lambda s: 2, forked=True)
    await begun(untimed, NimState(10), TimeControl())
    assert untimed.worker is None  # no limit: nothing to keep, no process
    assert await ask(untimed, NimState(10), TimeControl()) == 1

    seat: ProcessSeat[NimState, int] = ProcessSeat(take_one, fallback=lambda s: 2, forked=True)
    await begun(seat, NimState(10), PER_MOVE)
    assert seat.worker is not None
    with trio.fail_after(30):
        assert await ask(seat, NimState(10), PER_MOVE) == 1  # (in the child)
        assert await ask(seat, Unpicklable(10), PER_MOVE) == 1  # in a thread
    assert seat.worker is None  # given up for the rest of the game

    monkeypatch.setattr(threads, "MAX_PROCESSES", 0)
    bounded: ProcessSeat[NimState, int] = ProcessSeat(take_one, fallback=lambda s: 2, forked=True)
    await begun(bounded, NimState(10), PER_MOVE)
    assert bounded.worker is None
    assert await ask(bounded, NimState(10), PER_MOVE) == 1
    assert [os.getpid()] * 3 == THOUGHT  # the three turns thought here, in threads


async def test_a_child_that_died_is_replaced_by_a_thread(
    mock_clock: trio.testing.MockClock,
) -> None:
    THOUGHT.clear()
    seat: ProcessSeat[NimState, int] = ProcessSeat(take_one, fallback=lambda s: 2, forked=True)
    await begun(seat, NimState(10), PER_MOVE)
    worker = seat.worker
    assert worker is not None
    os.kill(worker.pid, signal.SIGKILL)  # (killed from outside, out of memory...)
    await trio.to_thread.run_sync(os.waitpid, worker.pid, 0)  # (dead before it is asked)
    with trio.fail_after(30):
        assert await ask(seat, NimState(10), PER_MOVE) == 1
    assert seat.worker is None
    assert [os.getpid()] == THOUGHT  # thought here, in a thread


def test_a_process_dropped_without_close_is_killed_and_reaped() -> None:
    process = threads.ThinkingProcess(take_one)
    pid = process.pid
    del process  # (its finalizer runs at once: no cycle holds it)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
