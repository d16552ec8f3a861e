"""The pure helpers of bench/hub_load.py (the load bench of issue 27): percentiles and the
ramp. Nothing about speed is asserted here; the bench measures it."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "bench" / "hub_load.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_hub_load", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hub_load = load_bench()


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(n) for n in range(1, 101)]  # 1 .. 100
    assert hub_load.percentile(values, 0.5) == 50.0
    assert hub_load.percentile(values, 0.99) == 99.0
    assert hub_load.percentile(values, 1.0) == 100.0
    assert hub_load.percentile(values, 0.0) == 1.0
    assert hub_load.percentile([7.0], 0.99) == 7.0
    assert hub_load.percentile([1.0, 2.0, 3.0], 0.5) == 2.0
    # p99 of ten values is the largest: only it has 99% of the values at or below it.
    assert hub_load.percentile([float(n) for n in range(10)], 0.99) == 9.0


def test_percentile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        hub_load.percentile([], 0.5)


def test_summary_ms_sorts_and_converts() -> None:
    assert hub_load.summary_ms([0.003, 0.001, 0.002]) == (2.0, 3.0, 3.0)


def test_ramp_spreads_pairs_evenly_before_its_end() -> None:
    offsets = hub_load.ramp_offsets(4, 2.0)
    assert offsets == [0.0, 0.5, 1.0, 1.5]
