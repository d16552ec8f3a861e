"""`hub engine`'s search speed: the C search (`NativeSearcher`) beside `EngineSearcher`.

    .venv/bin/python bench/engine_speed.py

On the three positions of docs/performance.md ("`hub engine`'s search"), one search from a
fresh searcher each: the depth completed in 61,440 nodes (the C search's first check past
60,416) and in 250 ms (a hard stop, no soft limit), and nodes per CPU second
(`time.process_time`, which other work on the machine changes little). `EngineSearcher`'s
row is the depth in 60,416 nodes and its speed. Where the extension is not built only
`EngineSearcher` is measured. Prints a Markdown table; nothing is asserted (tests live in
tests/chesslib/test_native_engine.py). About 10 seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/chess.py would hide the python-chess package: drop this folder from sys.path first.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]

import platform
import time

import chess

from hub.chess import native
from hub.chess.search import EngineSearcher, Limits

POSITIONS = {
    "Italian opening": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "Kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rook end game": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}
NODES = 60_416


def measure(make: type[native.NativeSearcher] | type[EngineSearcher], fen: str) -> str:
    board = chess.Board(fen)
    start = time.process_time()
    by_nodes = make().search(board, Limits(nodes=NODES))
    cpu = time.process_time() - start
    speed = by_nodes.nodes / cpu if cpu > 0 else 0.0
    if make is EngineSearcher:
        return f"{by_nodes.depth} | - | {speed:,.0f}"
    start = time.process_time()
    timed = make().search(board, Limits(maxtime=0.25))  # a hard stop alone: no soft limit
    cpu = time.process_time() - start
    speed = timed.nodes / cpu if cpu > 0 else 0.0
    return f"{by_nodes.depth} | {timed.depth} | {speed:,.0f}"


def main() -> None:
    print(f"Python {platform.python_version()}, python-chess {chess.__version__}, ", end="")
    print(f"C search built: {native.NATIVE}")
    print()
    print("| position | searcher | depth in ~60,000 nodes | depth in 250 ms | nodes per CPU s |")
    print("|---|---|---:|---:|---:|")
    for name, fen in POSITIONS.items():
        if native.NATIVE:
            print(f"| {name} | C (`NativeSearcher`) | {measure(native.NativeSearcher, fen)} |")
        print(f"| {name} | `EngineSearcher` | {measure(EngineSearcher, fen)} |")


if __name__ == "__main__":
    main()
