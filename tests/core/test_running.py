"""run_program: Ctrl-C, bare or wrapped by a nursery, is an exit status, not a traceback."""

from __future__ import annotations

import signal

import pytest
import trio

from hub.core.running import INTERRUPTED, only_keyboard_interrupts, run_program


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
