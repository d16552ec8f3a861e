#!/usr/bin/env python3
"""The Kalah server's own CPU per move, this checkout against an earlier tree, side by side:
``.venv/bin/python bench/kalah_server_cpu.py [--before PATH] [--rounds N]`` (without
``--before``, this checkout alone).

Each round starts ``hub serve kalah --level 1 --time-ms T --seed 1`` on each tree in turn
(``PYTHONPATH`` on the tree; ``--before`` names a checkout such as ``git worktree add
/tmp/before bd972de``, the last commit before the core match loop), plays 400 whole games
from 50 random clients at once (seeded), and reads the server's user + system CPU from
/proc; printed per move, median over the rounds, with the ratio after/before. Level 1 (a
one-turn search) keeps the AI cheap so that the referee's own work shows; T = 0 is an
untimed AI seat (asked in the loop's task), T = 1000 a timed one (a task per move with a
late grace). No number is asserted.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import trio

HERE = Path(__file__).resolve().parent
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

from shared import Served, before_and_after, serve, tree_env  # noqa: E402

GAMES, AT_ONCE = 400, 50


async def play(port: int, games: int = GAMES) -> int:
    """``games`` whole games from random clients; the moves made in all."""
    from hub.core.io.lines import LineStream
    from hub.games.kalah.protocol import format_move, parse_info, parse_move
    from hub.games.kalah.rules import legal_moves, new_game
    from hub.games.kalah.rules import play as apply

    moves = 0
    limiter = trio.Semaphore(AT_ONCE)

    async def game(number: int) -> None:
        nonlocal moves
        rng = random.Random(number)
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            async with stream:
                lines = LineStream(stream, stream)
                await lines.receive_line()  # WELCOME
                info = parse_info(await lines.receive_line())
                await lines.send_line("READY")
                await lines.receive_line()  # BEGIN
                state = new_game(info.holes, info.seeds)
                me = 0 if info.first else 1
                while not state.over:
                    if state.mover == me:
                        move = rng.choice(legal_moves(state))
                        await lines.send_line(format_move(move))
                        await lines.receive_line()  # OK
                    else:
                        move = parse_move(await lines.receive_line(), info.holes)
                        if not apply(state, move).over:
                            await lines.send_line("OK")
                    state = apply(state, move)
                    moves += 1
        finally:
            limiter.release()

    async with trio.open_nursery() as nursery:
        for number in range(games):
            await limiter.acquire()
            nursery.start_soon(game, number)
    return moves


def served(tree: Path, time_ms: int, games: int = GAMES, under: Sequence[str] = ()) -> Served:
    """``hub serve kalah`` of ``tree`` for ``games`` games (run ``under`` a tool such as
    valgrind, if given). It records them, as by default, into a fresh database of its own
    (neither the user's nor one another tree wrote)."""
    argv = [*under, sys.executable, str(Path(sys.executable).parent / "hub"), "serve", "kalah"]
    argv += ["--level", "1", "--time-ms", str(time_ms), "--seed", "1"]
    with tempfile.TemporaryDirectory() as scratch:
        return serve(argv, tree_env(tree, Path(scratch) / "games.db"), partial(play, games=games))


def measure(tree: Path, time_ms: int) -> float:
    """The server's CPU per move, in microseconds."""
    done = served(tree, time_ms)
    return done.cpu / done.moves * 1e6


def main() -> None:
    trees, rounds = before_and_after(__doc__.split("\n\n")[0])
    print(f"{GAMES} games, {AT_ONCE} at once, level-1 AI, {rounds} alternating rounds, "
          f"load average {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    names = list(trees)
    ratio = len(names) == 2
    print(
        f"| server CPU per move, µs (median) | {' | '.join(names)} |"
        + (" after/before |" if ratio else "")
    )
    print("|---|" + "---:|" * (len(names) + ratio))
    for time_ms in (0, 1000):
        runs: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(rounds):
            for name, tree in trees.items():
                runs[name].append(measure(tree, time_ms))
        medians = [statistics.median(runs[name]) for name in names]
        label = "no time limit" if time_ms == 0 else f"{time_ms} ms per move"
        cells = [f"{value:.0f}" for value in medians]
        if ratio:
            cells.append(f"{medians[1] / medians[0]:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |")
        print(f"<!-- every run: {runs} -->")


if __name__ == "__main__":
    main()
