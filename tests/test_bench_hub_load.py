"""The pure helpers of bench/hub_load.py (the load bench of issue 27): percentiles and the
ramp. Nothing about speed is asserted here; the bench measures it."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import pathlib
import socket
import threading
import time
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


class _FakeHub(threading.Thread):
    """A server of one-move games on a loopback socket, in a thread: welcome; to a hello,
    ``start`` and a ``turn``; to the move, its ``moved`` and ``end``."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]

    def run(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.listener.accept()
                threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn: socket.socket) -> None:
        def send(*messages: dict[str, object]) -> None:
            conn.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

        with conn, contextlib.suppress(OSError), conn.makefile("rb") as lines:
            send({"type": "welcome"})
            for raw in lines:
                message = json.loads(raw)
                if message.get("type") == "hello":
                    send({"type": "start", "seat": 0}, {"type": "turn", "legal": ["4"]})
                elif "move" in message:
                    assert message == {"move": "4"}
                    send(
                        {"type": "moved", "seat": 0, "move": "4"},
                        {"type": "end", "termination": "normal", "winners": [0]},
                    )


@pytest.mark.system
def test_the_lean_generator_plays_measures_and_says_hello_again() -> None:
    """Two bots against a fake hub for a second: every move's latency measured, each game's
    end counted, a new hello after each end, no failure (a real loopback socket)."""
    server = _FakeHub()
    server.start()
    now = time.time()
    spec = {
        "offsets": [0.0],
        "ports": [server.port],
        "first": 0,
        "start": now,
        "begin": now,
        "stop": now + 1.0,
        "think": 0.002,
        "seed": 1,
    }
    result = hub_load.lean_generator(spec)
    server.listener.close()
    assert result["connected"] == 2 and result["failures"] == {}
    games = result["terminations"].get("normal", 0)
    assert games >= 2  # at least one game each: a hello after the welcome
    assert len(result["latencies"]) in (games, games - 1, games - 2)  # one move a game
    assert all(latency >= 0 for latency in result["latencies"])
    assert result["time_losses"] == 0
