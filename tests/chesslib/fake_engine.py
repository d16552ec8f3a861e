"""A scriptable UCI engine for tests: python-chess answers, misbehaviour on demand.

Usage: fake_engine.py [--log FILE] [--delay SECONDS] [--mode MODE] [--die-after N] [--gate FIFO]
                      [--score SCORE]

* answers isready/uci/ucinewgame/position/go perft 1/go .../d like Stockfish 15.1 (extra
  ``info string`` lines and an unknown-command reply included, to exercise line skipping);
  the best move is the first legal move in python-chess's order, after ``--delay`` seconds;
* ``--log FILE`` appends every command received, one a line (for ordering assertions);
* ``--mode``: ``silent`` never answers; ``noready`` answers isready but never uciok;
  ``exit`` exits at once; ``garbage`` answers every go with ``bestmove zz``;
  ``illegal`` answers go with a well-formed but illegal move; ``long`` answers go with a
  line of 100,000 characters;
* ``--die-after N``: exit (status 3) on the N-th ``go``.
* ``--gate FIFO``: before answering each ``go`` (not ``go perft``), read one byte from FIFO,
  so a test decides exactly when each search ends (open FIFO read-write first).
* ``--score SCORE``: the score each search reports (``info depth 1 score SCORE``), e.g.
  ``cp -700`` or ``mate 3``; several, separated by commas, are reported in turn, the last
  one from then on (``cp 0,cp 0,cp -700``). Default ``cp 0``.
"""

from __future__ import annotations

import argparse
import sys
import time

import chess

BORDER = " +---+---+---+---+---+---+---+---+"


def board_art(board: chess.Board) -> list[str]:
    lines = ["", BORDER]
    for rank in range(7, -1, -1):
        row = ""
        for file in range(8):
            piece = board.piece_at(chess.square(file, rank))
            row += " | " + (piece.symbol() if piece else " ")
        lines += [row + f" | {rank + 1}", BORDER]
    return [*lines, "   a   b   c   d   e   f   g   h", ""]


def play(board: chess.Board, moves: list[str]) -> chess.Board:
    """``moves`` played on ``board`` up to the first that is not legal there (Stockfish stops
    reading a ``position`` command's moves at such a one)."""
    for move in moves:
        try:
            board.push_uci(move)
        except ValueError:
            break
    return board


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--mode", default="normal")
    parser.add_argument("--die-after", type=int, default=0)
    parser.add_argument("--gate")
    parser.add_argument("--score", default="cp 0")
    options = parser.parse_args()
    if options.mode == "exit":
        return 2
    log = open(options.log, "a", buffering=1) if options.log else None  # noqa: SIM115
    gate = open(options.gate, "rb", buffering=0) if options.gate else None  # noqa: SIM115
    board = chess.Board()
    searches = 0

    def say(*lines: str) -> None:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()

    scores = [score.strip() for score in options.score.split(",")]
    say("Fake engine 1.0")
    for raw in sys.stdin:
        command = raw.rstrip("\n")
        if log is not None:
            log.write(command + "\n")
        if options.mode == "silent":
            continue
        words = command.split()
        if command == "isready":
            say("readyok")
        elif command == "uci":
            if options.mode == "noready":
                continue
            say("id name Fake", "option name Hash type spin default 16 min 1 max 64", "uciok")
        elif command == "ucinewgame":
            pass
        elif words[:2] == ["position", "startpos"]:
            board = play(chess.Board(), words[3:])
        elif words[:2] == ["position", "fen"]:
            rest = command.split(" moves ")
            board = chess.Board(rest[0].removeprefix("position fen "))
            board = play(board, rest[1].split() if len(rest) > 1 else [])
        elif command == "go perft 1":
            moves = [move.uci() for move in board.legal_moves]
            say(*(f"{move}: 1" for move in moves), "", f"Nodes searched: {len(moves)}", "")
        elif words[:1] == ["go"]:
            searches += 1
            if options.die_after and searches >= options.die_after:
                return 3
            time.sleep(options.delay)
            if gate is not None:
                gate.read(1)
            score = scores[min(searches, len(scores)) - 1]
            say("info string fake search", f"info depth 1 score {score} nodes 1 pv")
            legal = list(board.legal_moves)
            if options.mode == "garbage":
                say("bestmove zz")
            elif options.mode == "long":
                say("info string " + "x" * 100_000)
            elif options.mode == "illegal":
                say("bestmove a1a1")
            elif not legal:
                say("bestmove (none)")
            else:
                say(f"bestmove {legal[0].uci()} ponder a7a6")
        elif command == "d":
            say(*board_art(board), f"Fen: {board.fen()}", "Key: 0", "Checkers: ")
        elif command == "stop":  # searches end at once here: nothing to stop (as Stockfish idle)
            pass
        elif command == "quit":
            return 0
        else:
            say(f"Unknown command: '{command}'. Type help for more information.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
