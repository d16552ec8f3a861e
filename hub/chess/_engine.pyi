"""Type stub of `hub engine`'s C search (`hub/chess/_engine.c`)."""

from collections.abc import Callable, Sequence

class Engine:
    def __init__(self, hash_mb: int = 32) -> None: ...
    def search(
        self,
        fen: str,
        moves: Sequence[str],
        optimum: float = 0.0,
        hard: float = 0.0,
        depth: int = 0,
        nodes: int = 0,
        stop: Callable[[], bool] | None = None,
        report: Callable[[int, int, int, int, float, list[str]], object] | None = None,
    ) -> tuple[str | None, int, int, int, list[str]]:
        """(best move in UCI or None, score, depth completed, nodes, principal variation).

        ``optimum``: seconds after which no new iteration starts (0: none); ``hard``: seconds
        after which the search stops (0: none); ``depth``, ``nodes``: limits (0: none). The
        score is in centipawns from the side to move, or ``100000 - n`` for a mate in ``n``
        plies (negative: mated), as `hub.chess.search.MATE` encodes it. ``stop`` is asked
        every 8,192 nodes, ``report(depth, seldepth, score, nodes, seconds, pv)`` called after
        every completed iteration, both with the GIL held."""
    def clear(self) -> None: ...

def perft(fen: str, depth: int, /) -> int: ...
def legal_moves(fen: str, /) -> list[str]: ...
def evaluate(fen: str, /) -> int: ...
