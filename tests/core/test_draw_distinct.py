"""`hub.core.play.kit.draw_distinct`: seeded openings, distinct while there are enough."""

from __future__ import annotations

import itertools
import random

from hub.core.play.kit import draw_distinct


def test_distinct_while_there_are_enough_then_repeats() -> None:
    rng = random.Random(1)
    got = draw_distinct(lambda: rng.randrange(5), 5, tries=1000)
    assert sorted(got) == [0, 1, 2, 3, 4]
    more = draw_distinct(lambda: rng.randrange(2), 4)
    assert len(more) == 4 and set(more) <= {0, 1}


def test_the_draws_share_a_bounded_budget() -> None:
    calls = itertools.count()
    assert draw_distinct(lambda: next(calls) // 100, 2, tries=3) == [0, 0]
    assert next(calls) == 6  # one draw for the first, the other five for the second
    calls = itertools.count()
    assert draw_distinct(lambda: next(calls) // 100, 3, tries=2) == [0, 0, 0]
    assert next(calls) == 7  # the budget (6) spent on the second; one draw for the third


def test_a_small_set_is_drawn_whole() -> None:
    """The last of 49 starts takes about 49 draws (20 each found 47 of 49 in a match)."""
    rng = random.Random(28)
    assert sorted(draw_distinct(lambda: rng.randrange(49), 49)) == list(range(49))


def test_the_same_seed_draws_the_same_openings() -> None:
    def openings(seed: int) -> list[list[int]]:
        rng = random.Random(seed)
        return draw_distinct(lambda: [rng.randrange(3) for _ in range(2)], 6)

    assert openings(7) == openings(7)
    assert len({tuple(opening) for opening in openings(7)}) == 6
