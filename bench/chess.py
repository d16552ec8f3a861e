"""Chess computer levels benchmark: measured side by side in one run.

    .venv/bin/python bench/chess.py [--quick] [--games N] [--movetime S] [--sf-games N]

1. *level matches*: level 4 against levels 3, 2 and 1, N games each (default 20), colours
   alternating, every game from the start position with its own seed. Level 4 searches
   ``--movetime`` seconds a move (default 0.1 s). A game ends as in ``hub play chess``
   (checkmate, stalemate), or is adjudicated: a draw on insufficient material or a fivefold
   repetition; at the move cap (150 moves each) a win for the side ahead by at least 3 pawns
   of material (level 4's evaluation), else a draw.
2. *search speed*: level 4's nodes per second and the depth it completes in 1 s on four
   positions (opening, middle game, Kiwipete, end game), plus the cost of one move of
   levels 1 to 3.
3. *against Stockfish*: where Stockfish is installed, level 4 against Stockfish 15.1 at
   ``Skill Level`` 0 (its weakest), both on the same time per move, colours alternating
   (default 10 games).

``--quick`` plays 4 games a match, 2 against Stockfish and measures speed for 0.5 s: about
a minute. It prints Markdown tables; nothing is asserted (tests live in tests/).
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named chess.py: run as a script, its folder comes first on sys.path and would
# hide the python-chess package. Drop that entry before importing anything else.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    del sys.path[0]

import argparse
import os
import platform
import random
import shutil
import statistics
import time
from collections.abc import Callable

import attrs
import chess
import chess.engine

from hub.chess.search import (
    ComputerPlayer,
    Limits,
    Searcher,
    eval_terms,
    level1,
    level2,
    level3,
)

MOVE_CAP = 300
"""Plies; then the game is adjudicated on material."""
ADJUDICATE_MARGIN = 300

SPEED_POSITIONS = {
    "opening": chess.STARTING_FEN,
    "middle game": "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
    "Kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "end game": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
}

Chooser = Callable[[chess.Board], chess.Move]


@attrs.define
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    adjudicated: int = 0
    plies: list[int] = attrs.Factory(list)
    level4_seconds: list[float] = attrs.Factory(list)

    def score(self) -> str:
        games = self.wins + self.draws + self.losses
        points = self.wins + self.draws / 2
        return f"{points:g} / {games} ({100 * points / games:.0f}%)" if games else "-"


def material(board: chess.Board) -> int:
    """Level 4's middle-game terms from white's side (material dominates them)."""
    mg, _eg, _phase = eval_terms(board)
    return mg


def play_game(white: Chooser, black: Chooser, level4_is_white: bool, tally: Tally) -> str:
    """Play one game; return ``1-0``, ``0-1`` or ``1/2-1/2`` and record it for level 4."""
    board = chess.Board()
    result = "1/2-1/2"
    adjudicated = False
    while True:
        if not any(board.generate_legal_moves()):
            if board.is_check():
                result = "0-1" if board.turn == chess.WHITE else "1-0"
            break
        if board.is_insufficient_material() or board.is_fivefold_repetition():
            adjudicated = True
            break
        if len(board.move_stack) >= MOVE_CAP:
            adjudicated = True
            balance = material(board)
            if balance >= ADJUDICATE_MARGIN:
                result = "1-0"
            elif balance <= -ADJUDICATE_MARGIN:
                result = "0-1"
            break
        level4_to_move = (board.turn == chess.WHITE) == level4_is_white
        started = time.perf_counter()
        move = (white if board.turn == chess.WHITE else black)(board.copy())
        if level4_to_move:
            tally.level4_seconds.append(time.perf_counter() - started)
        board.push(move)
    won = "1-0" if level4_is_white else "0-1"
    if result == won:
        tally.wins += 1
    elif result == "1/2-1/2":
        tally.draws += 1
    else:
        tally.losses += 1
    tally.adjudicated += adjudicated
    tally.plies.append(len(board.move_stack))
    return result


def level_match(opponent: int, games: int, movetime: float, seed: int) -> Tally:
    tally = Tally()
    for game in range(games):
        rng = random.Random(seed * 1000 + opponent * 100 + game)
        four = ComputerPlayer(4, random.Random(rng.getrandbits(64)), Limits(movetime=movetime))
        other = ComputerPlayer(opponent, random.Random(rng.getrandbits(64)))
        level4_is_white = game % 2 == 0
        white, black = (four, other) if level4_is_white else (other, four)
        play_game(white.choose, black.choose, level4_is_white, tally)
        print(
            f"  level 4 vs level {opponent}, game {game + 1}/{games}: "
            f"{tally.wins}-{tally.draws}-{tally.losses}",
            file=sys.stderr,
            flush=True,
        )
    return tally


def stockfish_path() -> str | None:
    return shutil.which("stockfish") or (
        "/usr/games/stockfish" if os.access("/usr/games/stockfish", os.X_OK) else None
    )


def stockfish_match(path: str, games: int, movetime: float, seed: int) -> Tally:
    tally = Tally()
    engine = chess.engine.SimpleEngine.popen_uci(path)
    try:
        engine.configure({"Skill Level": 0})
        for game in range(games):
            engine.configure({"Clear Hash": None})
            four = ComputerPlayer(4, random.Random(seed + game), Limits(movetime=movetime))

            def stockfish(board: chess.Board) -> chess.Move:
                result = engine.play(board, chess.engine.Limit(time=movetime))
                assert result.move is not None
                return result.move

            level4_is_white = game % 2 == 0
            white, black = (four.choose, stockfish) if level4_is_white else (stockfish, four.choose)
            outcome = play_game(white, black, level4_is_white, tally)
            print(f"  level 4 vs Stockfish skill 0, game {game + 1}: {outcome}", file=sys.stderr)
    finally:
        engine.quit()
    return tally


def speed(seconds: float) -> list[tuple[str, int, int, float]]:
    rows = []
    for name, fen in SPEED_POSITIONS.items():
        result = Searcher().search(chess.Board(fen), Limits(movetime=seconds))
        rows.append((name, result.depth, result.nodes, result.nodes / result.seconds))
    return rows


def level_costs(repeats: int = 200) -> list[tuple[int, float]]:
    board = chess.Board(SPEED_POSITIONS["middle game"])
    rows = []
    for level, choose in ((1, level1), (2, level2), (3, level3)):
        rng = random.Random(1)
        started = time.perf_counter()
        for _ in range(repeats):
            choose(board, rng)
        rows.append((level, (time.perf_counter() - started) / repeats))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="about a minute instead of minutes")
    parser.add_argument("--games", type=int, help="games per level match (default 20)")
    parser.add_argument("--sf-games", type=int, help="games against Stockfish (default 10)")
    parser.add_argument("--movetime", type=float, default=0.1, help="level 4 seconds per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = args.games or (4 if args.quick else 20)
    sf_games = args.sf_games if args.sf_games is not None else (2 if args.quick else 10)
    speed_seconds = 0.5 if args.quick else 1.0
    started = time.time()
    load = os.getloadavg()[0]

    print("# Chess computer levels (bench/chess.py)\n")
    print(
        f"CPython {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.2f} "
        f"at the start; level 4 at {args.movetime * 1000:.0f} ms a move; move cap {MOVE_CAP} "
        f"plies, then adjudication on material (>= {ADJUDICATE_MARGIN} cp wins).\n"
    )

    print(f"## Search speed of level 4 ({speed_seconds:g} s per position)\n")
    print("| position | depth completed | nodes | nodes/s |")
    print("|---|---:|---:|---:|")
    for name, depth, nodes, nps in speed(speed_seconds):
        print(f"| {name} | {depth} | {nodes} | {nps:,.0f} |")
    print("\n| level | one move (middle game) |")
    print("|---|---:|")
    for level, seconds in level_costs():
        print(f"| {level} | {seconds * 1e6:,.0f} µs |")
    print(flush=True)

    print(f"## Level matches ({games} games each, colours alternating)\n")
    print("| match | level 4 won | drawn | lost | score | adjudicated | median plies |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for opponent in (3, 2, 1):
        tally = level_match(opponent, games, args.movetime, args.seed)
        print(
            f"| 4 vs {opponent} | {tally.wins} | {tally.draws} | {tally.losses} | {tally.score()} "
            f"| {tally.adjudicated} | {statistics.median(tally.plies):.0f} |",
            flush=True,
        )

    path = stockfish_path()
    print(f"\n## Level 4 against Stockfish at Skill Level 0 ({sf_games} games)\n")
    if path is None:
        print("Stockfish is not installed: skipped (apt-get install stockfish).")
    elif sf_games:
        tally = stockfish_match(path, sf_games, args.movetime, args.seed)
        print("| level 4 won | drawn | lost | score | adjudicated | median plies |")
        print("|---:|---:|---:|---|---:|---:|")
        print(
            f"| {tally.wins} | {tally.draws} | {tally.losses} | {tally.score()} "
            f"| {tally.adjudicated} | {statistics.median(tally.plies):.0f} |"
        )
    print(
        f"\nTotal {time.time() - started:.0f} s; load average {os.getloadavg()[0]:.2f} at the end."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
