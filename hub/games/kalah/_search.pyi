"""Type stub of the C search (`hub/games/kalah/_search.c`)."""

from collections.abc import Callable, Sequence

class Engine:
    def __init__(self, holes: int, total: int, table_size: int, use_table: bool = True) -> None: ...
    def negamax(
        self,
        board: Sequence[int],
        depth: int,
        alpha: int,
        beta: int,
        nodes: int,
        next_check: int,
        cut: bool,
        max_nodes: int,
        seconds: float,
        poll: Callable[[], bool] | None,
        poll_every: int,
        /,
    ) -> tuple[int, int, int, bool, bool]: ...
    def clear(self) -> None: ...
    def entries(self) -> int: ...
