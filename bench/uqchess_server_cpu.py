#!/usr/bin/env python3
"""The UQChess server's own CPU per human move, this checkout against an earlier tree:
``.venv/bin/python bench/uqchess_server_cpu.py [--before PATH] [--rounds N]`` (needs
Stockfish, which the server starts; no search is asked for).

Each round starts ``uqchessserver --listenOn 0`` of each tree in turn (its ``server.main``
in a fresh process of this interpreter with ``PYTHONPATH`` on the tree; ``--before`` names a
checkout such as ``git worktree add /tmp/before bd972de``, the last commit before the core
match loop), and plays 200 human-against-human games from 100 clients at once: each client
sends ``start human either``, plays random legal moves (seeded) and resigns at its turn
after 60 plies, reading every ``ok``, ``moved``, ``check`` and ``gameover`` the spec sends.
The server's user + system CPU is read from /proc and printed per move, median over the
rounds, with the ratio after/before. Since issue 8 every such game is a core `Match` of two
`FedSeat`s; before, the server applied the moves itself. No number is asserted.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import trio

HERE = Path(__file__).resolve().parent
# bench/chess.py would shadow python-chess: this folder must not come first on sys.path
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import chess  # noqa: E402
from shared import Served, before_and_after, serve, tree_env  # noqa: E402

GAMES, AT_ONCE, PLIES = 200, 100, 60


async def client(port: int, number: int) -> int:
    """One client's game; the moves it made."""
    from hub.core.io.lines import LineStream

    rng = random.Random(number)
    made = 0
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        lines = LineStream(stream, stream)

        async def expect(prefix: str) -> str:
            line = await lines.receive_line()
            if not line.startswith(prefix):
                raise AssertionError(f"{line!r} where {prefix!r} was expected")
            return line

        async def after_move(board: chess.Board) -> bool:
            """Read the ``check`` or ``gameover`` the spec sends after a move; True: over."""
            if not any(board.generate_legal_moves()):
                await expect("gameover")
                return True
            if board.is_check():
                await expect("check")
            return False

        await lines.send_line("start human either")
        mine = (await expect("started")).split()[1] == "white"
        board = chess.Board()
        while True:
            if board.turn == mine:
                if board.ply() >= PLIES:
                    await lines.send_line("resign")
                    await expect("gameover")
                    return made
                move = rng.choice(list(board.generate_legal_moves()))
                await lines.send_line(f"move {move.uci()}")
                await expect("ok")
                made += 1
            else:
                line = await lines.receive_line()
                if line.startswith("gameover"):  # the opponent resigned
                    return made
                move = chess.Move.from_uci(line.split()[1])
            board.push(move)
            if await after_move(board):
                return made


async def play(port: int, games: int = GAMES) -> int:
    moves = 0
    limiter = trio.Semaphore(AT_ONCE)

    async def one(number: int) -> None:
        nonlocal moves
        try:
            made = await client(port, number)  # (not `moves += await ...`: that reads
            moves += made  # `moves` before the await and loses the others' moves)
        finally:
            limiter.release()

    async with trio.open_nursery() as nursery:
        for number in range(2 * games):
            await limiter.acquire()
            nursery.start_soon(one, number)
    return moves


def served(tree: Path, games: int = GAMES, under: Sequence[str] = ()) -> Served:
    """``uqchessserver`` of ``tree`` for ``games`` games (run ``under`` a tool such as
    valgrind, if given); it records only with ``$HUB_DB`` set: here it does not."""
    code = "import sys; from hub.games.uqchess.server import main; sys.exit(main())"
    argv = [*under, sys.executable, "-c", code, "--listenOn", "0"]
    return serve(argv, tree_env(tree), partial(play, games=games))


def measure(tree: Path) -> float:
    """The server's CPU per move, in microseconds."""
    done = served(tree)
    return done.cpu / done.moves * 1e6


def main() -> None:
    trees, rounds = before_and_after(__doc__.split("\n\n")[0])
    runs: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            runs[name].append(measure(tree))
    print(f"{GAMES} games, {AT_ONCE} clients at once, {rounds} alternating rounds, "
          f"load average {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    names = list(trees)
    medians = [statistics.median(runs[name]) for name in names]
    header = "| server CPU per human move, µs (median) | " + " | ".join(names) + " |"
    print(header + (" after/before |" if len(names) == 2 else ""))
    print("|---|" + "---:|" * (len(names) + (len(names) == 2)))
    cells = [f"{value:.0f}" for value in medians]
    if len(names) == 2:
        cells.append(f"{medians[1] / medians[0]:.2f}")
    print("| human against human | " + " | ".join(cells) + " |")
    print(f"<!-- every run: {runs} -->")


if __name__ == "__main__":
    main()
