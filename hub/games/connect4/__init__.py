"""Connect Four, declared: rules, notation, views, pictures and an AI (an upright grid, ``--rows``
by ``--columns``; ``--connect`` in a row wins; a full grid is a draw; a move is a column, ``1`` at
the left). hub derives everything else from it (docs/architecture.md, "Adding a game")."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from hub.core.model.referee import IllegalMove, Outcome
from hub.core.play.game import Ai, Game, Option, Pictures

from .ai import DISCS, negamax
from .match import ConnectFourSetup

RING = '<circle class="win" cx="{}" cy="{}" r=".22" fill="none" stroke-width=".08"/>'  # style.css


@attrs.frozen
class Board:  # the columns bottom up ("RYR": three discs), the seat to move, the winner if any
    columns: tuple[str, ...]
    mover: int = 0
    winner: int | None = None
    last: int = 0  # the column of the last move (0: none yet)


class ConnectFourPictures(Pictures):
    def text(self, view: Any, names: Sequence[str] = ()) -> str:
        grid = list(view["grid"])
        numbers = " ".join(str(i % 10) for i in range(1, len(grid[0]) + 1))
        return "\n".join([*(" ".join(row) for row in grid), numbers])

    def html(self, view: Any, names: Sequence[str] = ()) -> str:
        grid, last, win = list(view["grid"]), view.get("last"), view.get("win", [])
        cells = "".join(
            f'<rect x="{x}" y="{y}" width="1" height="1" fill="#1d4ed8"/><circle cx="{x + 0.5}"'
            f' cy="{y + 0.5}" r=".4" fill="{ {"R": "#dc2626", "Y": "#facc15"}.get(c, "#fff") }"'
            + (' stroke="#111" stroke-width=".1" class="last"/>' if [x, y] == last else "/>")
            + (RING.format(x + 0.5, y + 0.5) if [x, y] in win else "")
            for y, row in enumerate(grid)
            for x, c in enumerate(row)
        )
        taps = "".join(  # a column is clicked anywhere
            f'<rect class="move" data-move="{x + 1}" x="{x}" y="0" width="1" '
            f'height="{len(grid)}" fill="transparent"><title>{x + 1}</title></rect>'
            for x in range(len(grid[0]))
        )
        return f'<svg class="connect4" viewBox="0 0 {len(grid[0])} {len(grid)}">{cells}{taps}</svg>'


class ConnectFour(Game[Board, int]):
    name = "connect4"
    summary = "Connect Four: drop discs, four in a row wins (human, AI levels 1-8, bots)"
    options = (Option("rows", 6, "rows of the grid", low=4, high=12),
               Option("columns", 7, "columns of the grid", low=4, high=12),
               Option("connect", 4, "discs in a row that win", low=3, high=6))  # fmt: skip
    seat_names = ("Red", "Yellow")
    pictures = ConnectFourPictures()
    ai = Ai(range(1, 9), negamax)
    setup = ConnectFourSetup()  # --opening-plies

    def start(self, rng: random.Random) -> Board:
        return Board(("",) * int(self.settings["columns"]))

    # The rules below run for every move a server referees (several calls a move), so they
    # count discs with C-level builtins (`sum(map(len, ...))`, `zip`) rather than loops.

    def to_move(self, state: Board) -> int | None:
        if state.winner is not None:
            return None
        columns = state.columns
        full = sum(map(len, columns)) == self.settings["rows"] * len(columns)
        return None if full else state.mover

    def legal_moves(self, state: Board) -> list[int]:
        rows, over = self.settings["rows"], self.to_move(state) is None
        return [] if over else [i + 1 for i, col in enumerate(state.columns) if len(col) < rows]

    def candidate_moves(self, state: Board) -> range:
        return range(0, len(state.columns) + 2)

    def apply(self, state: Board, move: int) -> Board:
        columns = list(state.columns)
        if (
            not isinstance(move, int)
            or not 1 <= move <= len(columns)
            or len(columns[move - 1]) >= self.settings["rows"]
            or self.to_move(state) is None
        ):
            raise IllegalMove(f"column {move} is full or not on the board")
        columns[move - 1] += DISCS[state.mover]
        won = self._lines(columns, move - 1, len(columns[move - 1]) - 1)
        return Board(tuple(columns), 1 - state.mover, state.mover if won else None, move)

    def _lines(self, columns: Sequence[str], x: int, y: int) -> list[tuple[int, int]]:
        """The cells (column, height) of the lines of ``connect`` through the disc at x, y."""
        disc, need, cells = columns[x][y], int(self.settings["connect"]), []

        def at(i: int, j: int) -> bool:
            return 0 <= i < len(columns) and 0 <= j < len(columns[i]) and columns[i][j] == disc

        for u, v in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = [1, 1]  # how far the disc's colour runs each way (1: not at all)
            for i, s in enumerate((1, -1)):
                while at(x + s * u * n[i], y + s * v * n[i]):
                    n[i] += 1
            if n[0] + n[1] - 1 >= need:
                cells += [(x + u * k, y + v * k) for k in range(1 - n[1], n[0])]
        return cells

    def outcome(self, state: Board) -> Outcome | None:
        if self.to_move(state) is not None:
            return None
        if state.winner is None:
            return Outcome([1, 1], [0, 1], detail="the grid is full")
        return Outcome([2 if s == state.winner else 0 for s in (0, 1)], [state.winner])

    def view(self, state: Board, seat: int | None = None) -> dict[str, object]:
        rows, x, won = int(self.settings["rows"]), state.last - 1, state.winner is not None
        padded = [col + "." * (rows - len(col)) for col in state.columns]  # bottom up
        grid = ["".join(row) for row in zip(*padded, strict=True)][::-1]  # rows, the top first
        line = self._lines(state.columns, x, len(state.columns[x]) - 1) if won else []  # ringed
        return {"grid": grid, "to_move": self.to_move(state), "winner": state.winner,
                "last": [x, rows - len(state.columns[x])] if state.last else None,
                "win": [[i, rows - 1 - j] for i, j in sorted(set(line))]}  # fmt: skip
