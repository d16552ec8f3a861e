"""An exhaustive Kalah solver for small boards: the referee's moves, plain minimax, a memo.

Deliberately independent of the AI's search (it uses only `hub.games.kalah.rules`: every
legal hole sequence, no pruning, no ordering), so that it can prove the AI right in the
tests and measure the share of optimal moves in the benchmark. Exponential: keep it to a
few dozen seeds.
"""

from __future__ import annotations

from hub.games.kalah.rules import KalahState, Move, legal_moves, play


class Solver:
    """Game values with a memo shared across calls."""

    def __init__(self) -> None:
        self.memo: dict[tuple[tuple[int, ...], int, bool], int] = {}

    def value(self, state: KalahState) -> int:
        """Seat 0's final store minus seat 1's under perfect play by both."""
        if state.mover is None:
            return state.store(0) - state.store(1)
        key = (state.board, state.mover, state.pie_available)
        found = self.memo.get(key)
        if found is not None:
            return found
        values = [self.value(play(state, move)) for move in legal_moves(state)]
        result = max(values) if state.mover == 0 else min(values)
        self.memo[key] = result
        return result

    def mover_value(self, state: KalahState) -> int:
        """The final margin for the player to move under perfect play."""
        value = self.value(state)
        return value if state.mover == 0 else -value

    def move_values(self, state: KalahState) -> dict[Move, int]:
        """The perfect-play margin for the mover after each legal move."""
        sign = 1 if state.mover == 0 else -1
        return {move: sign * self.value(play(state, move)) for move in legal_moves(state)}
