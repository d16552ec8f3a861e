"""run_program: Ctrl-C, bare or wrapped by a nursery, is an exit status, not a traceback."""

from __future__ import annotations

import signal

import pytest
import trio

from hub.core.commands.running import (
    INTERRUPTED,
    TERMINATED,
    exit_status_on_interrupt,
    only_keyboard_interrupts,
    run_program,
)


def test_classifies_interrupts() -> None:
    assert only_keyboard_interrupts(KeyboardInterrupt())
    assert only_keyboard_interrupts(BaseExceptionGroup("g", [KeyboardInterrupt()]))
    nested = BaseExceptionGroup("g", [BaseExceptionGroup("h", [KeyboardInterrupt()])])
    assert only_keyboard_interrupts(nested)
    assert not only_keyboard_interrupts(BaseExceptionGroup("g", [KeyboardInterrupt(), OSError()]))
    assert not only_keyboard_interrupts(ValueError())


async def _returns(value: int) -> int:
    await trio.lowlevel.checkpoint()
    return value


async def _interrupted_in_a_nursery() -> int:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.sleep_forever)
        signal.raise_signal(signal.SIGINT)
        await trio.sleep_forever()
    return 0


async def _fails() -> int:
    raise RuntimeError("a bug")


def test_runs_and_maps_ctrl_c() -> None:
    assert run_program(_returns, 7) == 7
    assert run_program(_interrupted_in_a_nursery) == INTERRUPTED
    assert run_program(_interrupted_in_a_nursery, interrupted=9) == 9
    with pytest.raises(RuntimeError, match="a bug"):
        run_program(_fails)


async def _terminated_in_a_nursery() -> int:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.sleep_forever)
        signal.raise_signal(signal.SIGTERM)
        await trio.sleep_forever()
    return 0


async def _terminated_while_cleaning_up(cleaned: list[str]) -> int:
    try:
        signal.raise_signal(signal.SIGTERM)
        await trio.sleep_forever()
    finally:
        with trio.CancelScope(shield=True):
            await trio.lowlevel.checkpoint()
            cleaned.append("reaped")
    return 0


def test_sigterm_is_delivered_as_ctrl_c_and_maps_to_143() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    try:
        cleaned: list[str] = []
        assert run_program(_terminated_in_a_nursery) == TERMINATED
        assert run_program(_terminated_while_cleaning_up, cleaned) == TERMINATED
        assert cleaned == ["reaped"]
        # a later program in the same process starts afresh: Ctrl-C is 130 again
        signal.signal(signal.SIGTERM, previous)
        assert run_program(_interrupted_in_a_nursery) == INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_interrupts_before_trio_runs_are_a_status() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    try:
        status: list[int] = []
        with exit_status_on_interrupt(status):
            signal.raise_signal(signal.SIGINT)
        assert status == [INTERRUPTED]
        with exit_status_on_interrupt(status):
            signal.raise_signal(signal.SIGTERM)
        assert status == [INTERRUPTED, TERMINATED]
        with pytest.raises(ValueError, match="a bug"), exit_status_on_interrupt(status):
            raise ValueError("a bug")
        assert status == [INTERRUPTED, TERMINATED]
    finally:
        signal.signal(signal.SIGTERM, previous)


def _signalled_server(signum: int, seen: list[str]) -> object:
    async def main() -> int:
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.sleep_forever)
                signal.raise_signal(signum)
                await trio.sleep_forever()
        except BaseException as exc:  # an ordinary cancellation, never a KeyboardInterrupt
            interrupts, _ = BaseExceptionGroup("g", [exc]).split(KeyboardInterrupt)
            seen.append("interrupted" if interrupts else "cancelled")
            raise
        return 0

    return main


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, INTERRUPTED), (signal.SIGTERM, TERMINATED)]
)
def test_a_server_is_cancelled_by_a_signal_not_interrupted(signum: int, status: int) -> None:
    seen: list[str] = []
    main = _signalled_server(signum, seen)
    assert run_program(main, cancel_on_signal=True) == status  # type: ignore[arg-type]
    assert seen == ["cancelled"]
    assert run_program(_returns, 5, cancel_on_signal=True) == 5
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
