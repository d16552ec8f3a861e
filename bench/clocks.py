#!/usr/bin/env python3
"""Built-in players keep to their clocks (issue 28, item 2):
``.venv/bin/python bench/clocks.py [--quick] [--games N]``.

Whole games between two copies of each built-in player, in this process through the one
match loop (`hub.core.play.match.Match`, seats made as ``hub match`` makes them), at a limit of
100 ms and of 1 s a move, first as the machine is, then beside a CPU spinner (a child
``python -c 'while True: pass'``, one core kept busy for the whole section). For each: the
moves, the time used per move (median, 99th percentile, worst) against the limit and the
player's planned budget (`hub.core.model.clock.think_budget`), the turns its seat's hard stop
answered, and the games lost on time (the goal: none).

Players: Connect Four ``ai:6`` (its own search) and ``mcts:6`` (the general player), Kalah
``ai:9``, chess ``ai:4``. A game longer than ``--plies`` (60) is ended there by a
resignation (the bench measures moves, not results). Asserts nothing; at ``--quick`` a
few minutes.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import trio

HERE = Path(__file__).resolve().parent
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != HERE), str(HERE)]

import shared  # noqa: E402

from hub.core.model.clock import TimeControl, hard_margin, think_budget  # noqa: E402
from hub.core.model.referee import Termination  # noqa: E402
from hub.core.play.game import Game  # noqa: E402
from hub.core.play.match import Match  # noqa: E402
from hub.core.play.threads import ThreadSeat  # noqa: E402
from hub.core.play.vocabulary import BaseSeat, Moved, Seat, SeatFailure, Start, Turn  # noqa: E402
from hub.declared.seats import SeatMaker, parse_seat  # noqa: E402
from hub.games.chess.game import ChessGame  # noqa: E402
from hub.games.connect4 import ConnectFour  # noqa: E402
from hub.games.kalah.game import KalahGame  # noqa: E402

PLAYERS: list[tuple[type[Game[Any, Any]], str]] = [
    (ConnectFour, "ai:6"),
    (ConnectFour, "mcts:6"),
    (KalahGame, "ai:9"),
    (ChessGame, "ai:4"),
]


@attrs.define(eq=False)
class Capped(BaseSeat[Any, Any]):
    """``inner``, resigning once the game has ``plies`` moves (the bench measures moves)."""

    inner: Seat[Any, Any]
    plies: int

    @property
    def player(self) -> Any:  # type: ignore[override]
        return self.inner.player

    async def begin(self, start: Start[Any]) -> None:
        await self.inner.begin(start)

    async def choose(self, turn: Turn[Any]) -> Any:
        if turn.ply > self.plies:
            raise SeatFailure(Termination.RESIGNATION, "the bench's ply cap")
        return await self.inner.choose(turn)

    async def observe(self, moved: Moved[Any, Any]) -> None:
        await self.inner.observe(moved)

    async def time_up(self, seat: int) -> None:
        await self.inner.time_up(seat)


@attrs.define
class Tally:
    moves: list[float] = attrs.Factory(list)
    games: int = 0
    losses: int = 0
    hard_stops: int = 0


async def play(
    game: Game[Any, Any], spec: str, limit: float, seed: int, plies: int, tally: Tally
) -> None:
    specs = [parse_seat(spec, type(game))] * 2
    async with SeatMaker(game, seed).seats(specs) as seats:
        capped = [Capped(seat, plies) for seat in seats]
        state = game.start(random.Random(seed))
        control = TimeControl(per_move=limit)
        result = await Match(game, state, capped, time_control=control).run()
    tally.games += 1
    tally.moves.extend(move.elapsed for move in result.record.moves)
    if result.termination is Termination.TIMEOUT:
        tally.losses += 1
    tally.hard_stops += sum(seat.hard_stops for seat in seats if isinstance(seat, ThreadSeat))


def row(label: str, limit: float, tally: Tally) -> str:
    moves = sorted(tally.moves)
    ms = [m * 1000 for m in moves]
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))] if ms else 0.0
    budget = (think_budget(limit) or 0.0) * 1000
    return (
        f"| {label} | {limit * 1000:g} ms | {budget:.0f} ms | {tally.games} | {len(ms)} | "
        f"{statistics.median(ms) if ms else 0:.1f} | {p99:.1f} | {max(ms, default=0):.1f} | "
        f"{tally.hard_stops} | {tally.losses} |"
    )


def section(title: str, limits: list[float], games: dict[float, int], plies: int) -> None:
    print(f"\n### {title}\n")
    print("| player | limit | budget | games | moves | median ms | p99 ms | worst ms "
          "| hard stops | time losses |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for limit in limits:
        for make, spec in PLAYERS:
            tally = Tally()
            for seed in range(games[limit]):
                trio.run(play, make(), spec, limit, seed, plies, tally)
            print(row(f"{make.name} {spec}", limit, tally), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--games", type=int, default=None, help="games per player at 100 ms")
    parser.add_argument("--plies", type=int, default=60, help="moves after which a game ends")
    args = parser.parse_args()
    fast = args.games or (4 if args.quick else 10)
    games = {0.1: fast, 1.0: 1 if args.quick else 2}
    limits = [0.1, 1.0]
    print(f"machine: {shared.machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"hard stop: {hard_margin(0.1) * 1000:g} ms before a 100 ms deadline, "
          f"{hard_margin(1.0) * 1000:g} ms before 1 s")  # fmt: skip
    section("as the machine is", limits, games, args.plies)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # (the spinner is killed below)
    try:
        section("beside a CPU spinner", limits, games, args.plies)
    finally:
        spinner.kill()
        spinner.wait()
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
