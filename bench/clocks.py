#!/usr/bin/env python3
"""Built-in players keep to their clocks (issue 28, item 2):
``.venv/bin/python bench/clocks.py [--quick] [--games N] [--limits 0.1,1] [--spinner-only]
[--threads | --compare] [--lag]``.

Whole games between built-in players, in this process through the one match loop
(`hub.core.play.match.Match`, seats made as ``hub match`` makes them), at a limit of 100 ms
and of 1 s a move, first as the machine is, then beside a CPU spinner (a child
``python -c 'while True: pass'``, one core kept busy for the whole section). For each: the
moves, the time used per move (median, 99th percentile, worst) against the limit and the
player's planned budget (`hub.core.model.clock.think_budget`), the moves that came after
the seat's hard stop was due ("late"), the turns its hard stop answered, the games lost on
time (the goal: none) and the load average when the row ended.

Players: Connect Four ``ai:6`` (its own search) and ``mcts:6`` (the general player), Kalah
``ai:9``, chess ``ai:4``, each against itself, and chess ``ai:4`` against ``mcts:6``. The
searches think in worker processes as under ``hub`` (`hub.core.play.threads.ProcessSeat`;
``--threads``: in threads, as before; ``--compare``: each game both ways, one after the other,
so that both see the same load). A game longer than ``--plies`` (60) is ended there by
a resignation (the bench measures moves, not results). ``--lag``: first, how late a 5 ms
sleep of the event loop wakes beside nothing, a CPU-bound thread and a CPU-bound process
(the cause: a thread holding the GIL). Asserts nothing; at ``--quick`` a few minutes.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
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
from hub.core.play.threads import PROCESS_SWITCH, ThreadSeat  # noqa: E402
from hub.core.play.vocabulary import BaseSeat, Moved, Seat, SeatFailure, Start, Turn  # noqa: E402
from hub.declared.seats import SeatMaker, parse_seat  # noqa: E402
from hub.games.chess.game import ChessGame  # noqa: E402
from hub.games.connect4 import ConnectFour  # noqa: E402
from hub.games.kalah.game import KalahGame  # noqa: E402

PLAYERS: list[tuple[type[Game[Any, Any]], str, str]] = [
    (ConnectFour, "ai:6", "ai:6"),
    (ConnectFour, "mcts:6", "mcts:6"),
    (KalahGame, "ai:9", "ai:9"),
    (ChessGame, "ai:4", "ai:4"),
    (ChessGame, "ai:4", "mcts:6"),
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
    game: Game[Any, Any], pair: tuple[str, str], limit: float, seed: int, plies: int, tally: Tally
) -> None:
    specs = [parse_seat(spec, type(game)) for spec in pair]
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
    late = sum(m > limit - hard_margin(limit) for m in moves)
    return (
        f"| {label} | {limit * 1000:g} ms | {budget:.0f} ms | {tally.games} | {len(ms)} | "
        f"{statistics.median(ms) if ms else 0:.1f} | {p99:.1f} | {max(ms, default=0):.1f} | "
        f"{late} | {tally.hard_stops} | {tally.losses} | {os.getloadavg()[0]:.1f} |"
    )


def section(
    title: str, limits: list[float], games: dict[float, int], plies: int, compare: bool = False
) -> None:
    print(f"\n### {title}\n")
    print("| players | limit | budget | games | moves | median ms | p99 ms | worst ms "
          "| late | hard stops | time losses | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    modes = ("0", "1") if compare else (os.environ[PROCESS_SWITCH],)
    for limit in limits:
        for make, *pair in PLAYERS:
            tallies = {mode: Tally() for mode in modes}
            for seed in range(games[limit]):
                for mode in modes:  # (--compare: each game in threads, then in processes)
                    os.environ[PROCESS_SWITCH] = mode
                    trio.run(play, make(), (pair[0], pair[1]), limit, seed, plies, tallies[mode])
            label = pair[0] if pair[0] == pair[1] else " - ".join(pair)
            for mode, tally in tallies.items():
                how = f" ({'processes' if mode == '1' else 'threads'})" if compare else ""
                print(row(f"{make.name} {label}{how}", limit, tally), flush=True)


def lag(beside: str, seconds: float) -> str:
    """How late a 5 ms `trio.sleep` wakes beside ``beside`` (nothing, a CPU-bound thread in
    this process, a CPU-bound process), as a table row."""
    sys.setswitchinterval(0.001)  # (as a seat with a hard stop sets it)
    stop = threading.Event()
    child = None

    def burn() -> None:
        while not stop.is_set():
            pass

    if beside == "thread":
        threading.Thread(target=burn).start()
    elif beside == "process":
        child = subprocess.Popen([sys.executable, "-c", "while True: pass"])

    async def sleeps() -> list[float]:
        late = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            await trio.sleep(0.005)
            late.append((time.perf_counter() - start - 0.005) * 1000)
        return sorted(late)

    try:
        late = trio.run(sleeps)
    finally:
        stop.set()
        if child is not None:
            child.kill()
            child.wait()
    n = len(late)
    return (
        f"| {beside} | {n} | {late[n // 2]:.1f} | {late[int(n * 0.99)]:.1f} | "
        f"{late[int(n * 0.999)]:.1f} | {late[-1]:.1f} | {sum(x > 30 for x in late)} | "
        f"{os.getloadavg()[0]:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--games", type=int, default=None, help="games per player at 100 ms")
    parser.add_argument("--plies", type=int, default=60, help="moves after which a game ends")
    parser.add_argument("--limits", default="0.1,1", help="seconds a move, comma-separated")
    parser.add_argument("--spinner-only", action="store_true", help="only beside the spinner")
    parser.add_argument("--threads", action="store_true", help="search in threads, not processes")
    parser.add_argument("--lag", action="store_true", help="first, the event loop's lateness")
    parser.add_argument(
        "--compare", action="store_true", help="play each game in threads and in processes"
    )
    args = parser.parse_args()
    os.environ[PROCESS_SWITCH] = "0" if args.threads else "1"
    fast = args.games or (4 if args.quick else 10)
    games = {0.1: fast, 1.0: 1 if args.quick else 2}
    limits = [float(limit) for limit in args.limits.split(",")]
    for limit in limits:
        games.setdefault(limit, fast)
    print(f"machine: {shared.machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"hard stop: {hard_margin(0.1) * 1000:g} ms before a 100 ms deadline, "
          f"{hard_margin(1.0) * 1000:g} ms before 1 s; searches in "
          f"{'threads' if args.threads else 'worker processes'}")  # fmt: skip
    if args.lag:
        print("\n### a 5 ms sleep of the event loop, 10 s beside each\n")
        print("| beside | sleeps | median ms late | p99 | p99.9 | worst | over 30 ms | load |")
        print("|---|---|---|---|---|---|---|---|")
        for beside in ("nothing", "thread", "process"):
            print(lag(beside, 10.0), flush=True)
    if not args.spinner_only:
        section("as the machine is", limits, games, args.plies, args.compare)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # (the spinner is killed below)
    try:
        section("beside a CPU spinner", limits, games, args.plies, args.compare)
    finally:
        spinner.kill()
        spinner.wait()
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
