"""`PromptedSeat` (an AI that moves only when its host says so), `StopFlag.wait`, and the
reason of an abort in the record."""

from __future__ import annotations

import threading

import trio
import trio.testing

from hub.core.model.bus import EventBus
from hub.core.model.events import GameEnded, MoveMade
from hub.core.model.referee import Termination
from hub.core.play.fed import FedSeat
from hub.core.play.match import Match
from hub.core.play.threads import PromptedSeat, StopFlag, TurnTime
from tests.core.toys import Nim, NimState


def take_one(state: NimState, time: TurnTime, stop: StopFlag) -> int:
    return 1


async def test_a_prompted_seat_moves_only_when_prompted_and_play_waits_for_the_rest() -> None:
    ai: PromptedSeat[NimState, int] = PromptedSeat(take_one)
    person: FedSeat[NimState, int] = FedSeat()
    bus = EventBus()
    moves: list[int] = []
    bus.listen(lambda event: moves.append(event.seat) if isinstance(event, MoveMade) else None)
    match = Match(Nim(), NimState(5), [ai, person], events=bus)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(match.run)
            await match.settle()
            assert ai.asked and not moves  # the loop rests: the AI waits for its prompt
            for _ in range(3):
                await trio.testing.wait_all_tasks_blocked()
            assert not moves
            assert await ai.play()
            assert moves == [0] and match.state.pile == 4
            assert person.asked  # play returned once the loop waits for the person
            assert (await person.submit(3)).accepted
            assert ai.asked and match.state.pile == 1
            assert await ai.play()  # the last one: the AI wins
            await match.wait_finished()
    assert match.result is not None and match.result.outcome.winners == {0}
    assert not await ai.play()  # the game is over: nothing to prompt


async def test_play_returns_false_if_the_game_ends_without_the_move() -> None:
    gate = threading.Event()

    def slow(state: NimState, time: TurnTime, stop: StopFlag) -> int:
        gate.set()
        stop.wait(30)
        return 1

    ai: PromptedSeat[NimState, int] = PromptedSeat(slow)
    person: FedSeat[NimState, int] = FedSeat()
    match = Match(Nim(), NimState(5), [ai, person])
    played: list[bool] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(match.run)
            await match.settle()

            async def prompt() -> None:
                played.append(await ai.play())

            nursery.start_soon(prompt)
            await trio.to_thread.run_sync(gate.wait, 10, abandon_on_cancel=True)
            match.stop(1, Termination.RESIGNATION)  # the person resigns during the search
    assert played == [False]
    assert match.result is not None and match.result.termination is Termination.RESIGNATION


def test_stop_flag_wait() -> None:
    flag = StopFlag()
    assert not flag.wait(0)
    waiter = threading.Thread(target=flag.set)
    waiter.start()
    assert flag.wait(10)
    waiter.join()


async def test_an_abort_says_why_in_the_record() -> None:
    ended: list[GameEnded] = []
    bus = EventBus()
    bus.listen(lambda event: ended.append(event) if isinstance(event, GameEnded) else None)
    person: FedSeat[NimState, int] = FedSeat()
    match = Match(Nim(), NimState(5), [person, FedSeat()], events=bus)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(match.run)
        await match.settle()
        match.stop(None, Termination.ABORTED, "undo")
    assert [event.record.detail for event in ended] == ["undo"]
    assert ended[0].record.termination is Termination.ABORTED and ended[0].record.fault is None
