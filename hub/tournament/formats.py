"""Tournament formats: which players meet at which table, stage by stage (pure: no I/O, no
clock, no global RNG; randomness comes from the plan's seed).

A tournament is played in *stages*. A stage is a list of *tables*; a table is the players who
meet (two for a two-seat game, up to the game's seats for clubs) and is played as one game for
each seat order, the seats rotated (`hub.tournament.schedule.seating`): two players play a game
pair with the colours swapped, so colours are balanced by construction. The formats:

* ``round-robin``: every pair meets ``rounds`` times (one stage, circle-method order);
* ``gauntlet``: the first ``seeds`` players meet each of the others ``rounds`` times (the
  seeds do not meet each other; one stage);
* ``swiss``: ``rounds`` stages (at most half the field, which guarantees a pairing: after
  fewer rounds every player has not met at least half the others, and by Dirac's theorem
  such a graph has a perfect matching); each pairs the players by score (points so far, a bye
  counted as a won table), never a pair twice, a bye for the lowest-placed player without one
  when the field is odd;
* ``knockout``: a bracket (1 v n, 2 v n-1, ..., seeds by the order given; byes for the top
  seeds up to a power of two); each match is ``rounds`` tables, a tie gets one more table,
  up to `EXTRA_TABLES` more, and a tie after those is won by the higher seed (listed first);
* ``tables``: for games of more than two seats: ``rounds`` stages, each dividing the field
  into tables of ``table`` players (those left over sit out, in turn) so that every pair
  meets about equally often (a seeded greedy draw: the fewest meetings so far first).

`Plan.stage` gives stage ``k`` from the results of the stages before it; `expand` replays a
plan from a map of finished tables to the first stage that is not complete, so a fresh run, a
run in progress and a resumed run all see the same stages.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

import attrs

ROUND_ROBIN, GAUNTLET, SWISS, KNOCKOUT, TABLES = (
    "round-robin",
    "gauntlet",
    "swiss",
    "knockout",
    "tables",
)
FORMATS = (ROUND_ROBIN, GAUNTLET, SWISS, KNOCKOUT, TABLES)
EXTRA_TABLES = 2
"""Extra game pairs a tied knockout match plays before the higher seed goes through."""
DRAWS = 8
"""Seeded draws per stage of ``tables``, each improved by swaps (the best is kept)."""
SEARCH_STEPS = 20_000
"""Steps of the Swiss pairing's backtracking search before it pairs greedily and repairs."""
WEIGHT = 4
"""A pair's cost at a table is WEIGHT to the power of its earlier meetings."""


class PairingError(ValueError):
    """No pairing is possible (a Swiss round where every remaining pair has met)."""


@attrs.frozen
class Table:
    """Players (indices into the tournament's player list) who meet, in seat order of the
    table's first game."""

    players: tuple[int, ...]

    @property
    def games(self) -> int:
        return len(self.players)


@attrs.frozen
class Stage:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()
    """Players without a table this stage (a Swiss bye, a knockout bye, a ``tables``
    sit-out)."""

    @property
    def games(self) -> int:
        return sum(table.games for table in self.tables)


TableResult = Mapping[int, float]
"""A finished table: each of its players' points."""


@attrs.frozen
class Plan:
    """What a tournament's format decides from: the format, the number of players, and
    its parameters."""

    format: str
    players: int
    rounds: int = 1
    seeds: int = 1
    table: int = 2
    seed: int = 0

    def __attrs_post_init__(self) -> None:
        problem = self.problem()
        if problem is not None:
            raise ValueError(problem)

    def problem(self) -> str | None:
        """Why the plan cannot be played, or None."""
        n = self.players
        if self.format not in FORMATS:
            return f"unknown format {self.format!r} (one of {', '.join(FORMATS)})"
        if self.rounds < 1:
            return "--rounds must be at least 1"
        if self.format == TABLES:
            if not 2 <= self.table <= n:
                return f"tables of {self.table} need at least {self.table} players"
            return None
        if self.table != 2:
            return f"{self.format} is for two-player tables"
        if n < 2:
            return f"{self.format} needs at least two players"
        if self.format == GAUNTLET and not 1 <= self.seeds < n:
            return f"--gauntlet-seeds {self.seeds}: a gauntlet of {n} players has 1 to {n - 1}"
        if self.format == SWISS and self.rounds > n // 2:
            most = n // 2
            return (
                f"a Swiss of {n} players has at most {most} round{'s' if most != 1 else ''} "
                "(half the field: beyond that a round without a pair that met before may not "
                "exist; play a round-robin)"
            )
        return None

    def stage(self, played: Sequence[tuple[Stage, Sequence[TableResult]]]) -> Stage | None:
        """The stage after ``played`` (each earlier stage with its tables' results, in
        order), or None when the tournament is over."""
        number = len(played)
        if self.format == ROUND_ROBIN:
            return Stage(0, round_robin(self.players, self.rounds)) if number == 0 else None
        if self.format == GAUNTLET:
            return (
                Stage(0, gauntlet(self.players, self.seeds, self.rounds)) if number == 0 else None
            )
        if self.format == SWISS:
            if number >= self.rounds:
                return None
            return swiss(number, self.players, played, self.seed)
        if self.format == KNOCKOUT:
            return knockout(number, self.players, self.rounds, played)
        if number >= self.rounds:
            return None
        return balanced(number, self.players, self.table, played, self.seed)

    def most_tables(self) -> int:
        """An upper bound on the tables of the whole tournament (for drawing openings)."""
        n = self.players
        if self.format == ROUND_ROBIN:
            return self.rounds * n * (n - 1) // 2
        if self.format == GAUNTLET:
            return self.rounds * self.seeds * (n - self.seeds)
        if self.format == SWISS:
            return self.rounds * (n // 2)
        if self.format == KNOCKOUT:
            return (n - 1) * (self.rounds + EXTRA_TABLES)
        return self.rounds * (n // self.table)


def expand(plan: Plan, finished: Mapping[int, TableResult]) -> list[Stage]:
    """The stages up to and including the first one not complete in ``finished`` (tables
    numbered from 0 across the stages, in order); every stage when the tournament is over."""
    played: list[tuple[Stage, Sequence[TableResult]]] = []
    stages: list[Stage] = []
    first = 0
    while (stage := plan.stage(played)) is not None:
        stages.append(stage)
        numbers = range(first, first + len(stage.tables))
        if any(number not in finished for number in numbers):
            break
        played.append((stage, [finished[number] for number in numbers]))
        first += len(stage.tables)
    return stages


# -- the formats ---------------------------------------------------------------------------------


def _circle(n: int) -> list[list[tuple[int, int]]]:
    """The circle method: n - 1 rounds (n even; a dummy player for n odd) where every pair
    meets once."""
    people: list[int | None] = list(range(n))
    if n % 2:
        people.append(None)
    count = len(people)
    rounds = []
    for r in range(count - 1):
        pairs = []
        for i in range(count // 2):
            a, b = people[i], people[count - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        people = [people[0], people[-1], *people[1:-1]]
    return rounds


def round_robin(players: int, rounds: int) -> tuple[Table, ...]:
    """Every pair ``rounds`` times, in circle-method order (each player's games spread out)."""
    tables: list[Table] = []
    for _ in range(rounds):
        for pairs in _circle(players):
            tables.extend(Table(pair) for pair in pairs)
    return tuple(tables)


def gauntlet(players: int, seeds: int, rounds: int) -> tuple[Table, ...]:
    """Each of the first ``seeds`` players against each of the others, ``rounds`` times."""
    return tuple(
        Table((seed, other))
        for _ in range(rounds)
        for other in range(seeds, players)
        for seed in range(seeds)
    )


def _scores(players: int, stages: Sequence[tuple[Stage, Sequence[TableResult]]]) -> list[float]:
    scores = [0.0] * players
    for stage, results in stages:
        for result in results:
            for player, points in result.items():
                scores[player] += points
        for player in stage.byes:
            scores[player] += 2.0  # (a won game pair)
    return scores


def _pair_up(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pairs of ``order`` (best first), none of which has met: each player the nearest-placed
    opponent it has not met, backtracking (up to `SEARCH_STEPS` steps), else `_pair_greedily`.
    None if there is no such pairing."""
    steps = [SEARCH_STEPS]

    def search(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        first, others = rest[0], rest[1:]
        for index, other in enumerate(others):
            steps[0] -= 1
            if steps[0] < 0:
                return None
            if frozenset((first, other)) in met:
                continue
            tail = search(others[:index] + others[index + 1 :])
            if tail is not None:
                return [(first, other), *tail]
        return None

    found = search(order)
    return found if found is not None or steps[0] >= 0 else _pair_greedily(order, met)


def _pair_greedily(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Each unpaired player in ``order`` with the nearest unpaired one it has not met; two
    left over who have met are paired by swapping with a pair (c, d) where a has not met c
    and b has not met d. When everyone has yet to meet half the field such a pair always
    exists (the argument of Dirac's theorem), so this finishes in polynomial time."""
    pairs: list[list[int]] = []
    left: list[int] = []
    for player in order:
        partner = next((p for p in left if frozenset((p, player)) not in met), None)
        if partner is None:
            left.append(player)
        else:
            left.remove(partner)
            pairs.append([partner, player])
    while left:
        a, b = left[0], left[1]
        for pair in pairs:
            c, d = pair
            if frozenset((a, c)) not in met and frozenset((b, d)) not in met:
                pair[:] = [a, c]
                pairs.append([b, d])
                break
            if frozenset((a, d)) not in met and frozenset((b, c)) not in met:
                pair[:] = [a, d]
                pairs.append([b, c])
                break
        else:
            return None
        left = left[2:]
    position = {player: n for n, player in enumerate(order)}
    pairs.sort(key=lambda pair: min(position[p] for p in pair))
    return [(a, b) if position[a] < position[b] else (b, a) for a, b in pairs]


def swiss(
    number: int, players: int, stages: Sequence[tuple[Stage, Sequence[TableResult]]], seed: int
) -> Stage:
    """Swiss round ``number``: by score (ties in a seeded order), no pair twice, a bye for the
    lowest-placed player who has had none (odd fields)."""
    scores = _scores(players, stages)
    met = {frozenset(table.players) for stage, _ in stages for table in stage.tables}
    had_bye = {player for stage, _ in stages for player in stage.byes}
    rng = random.Random(f"swiss {seed} {number}")
    tiebreak = list(range(players))
    rng.shuffle(tiebreak)
    order = sorted(range(players), key=lambda p: (-scores[p], tiebreak[p]))
    candidates: list[int | None] = [None]
    if players % 2:
        candidates = [p for p in reversed(order) if p not in had_bye] or list(reversed(order))
    for bye in candidates:
        field = [p for p in order if p != bye]
        pairs = _pair_up(field, met)
        if pairs is not None:
            tables = tuple(Table(pair if (number + i) % 2 == 0 else pair[::-1])
                           for i, pair in enumerate(pairs))  # fmt: skip
            return Stage(number, tables, () if bye is None else (bye,))
    raise PairingError(f"Swiss round {number + 1}: every pairing repeats a pair")


def _bracket(players: int) -> list[int | None]:
    """The first round's entries in bracket order (1 v last, ...; the top seeds meet last),
    None for a bye when the field is not a power of two."""
    slots = [0]
    while len(slots) < players:
        span = 2 * len(slots)
        slots = [s for slot in slots for s in (slot, span - 1 - slot)]
    return [slot if slot < players else None for slot in slots]


def _decided(done: int, score: Sequence[float], rounds: int) -> bool:
    return done >= rounds and (score[0] != score[1] or done >= rounds + EXTRA_TABLES)


def bracket(
    number: int, players: int, rounds: int, stages: Sequence[tuple[Stage, Sequence[TableResult]]]
) -> tuple[Stage | None, list[int]]:
    """Stage ``number`` of a knockout (None: it is over) and each player's bracket round
    reached so far (0: the first; the winner's is one more than the last round's)."""
    entries = _bracket(players)
    reached = [0] * players
    index, level = 0, 0
    while len(entries) > 1:
        matches = [(entries[i], entries[i + 1]) for i in range(0, len(entries), 2)]
        done = [0] * len(matches)
        score = [[0.0, 0.0] for _ in matches]
        byes = tuple(a if b is None else b for a, b in matches if (a is None) != (b is None))
        while True:
            tables: list[Table] = []
            owners: list[int] = []
            for m, (a, b) in enumerate(matches):
                if a is None or b is None or _decided(done[m], score[m], rounds):
                    continue
                for _ in range(rounds - done[m] if done[m] < rounds else 1):
                    tables.append(Table((a, b)))
                    owners.append(m)
            if not tables:
                break
            if index == number:
                return Stage(index, tuple(tables), tuple(p for p in byes if p is not None)), reached
            if index >= len(stages):
                return None, reached
            for m, result in zip(owners, stages[index][1], strict=True):
                a, b = matches[m]
                assert a is not None and b is not None
                score[m][0] += result.get(a, 0.0)
                score[m][1] += result.get(b, 0.0)
                done[m] += 1
            index, byes = index + 1, ()
        winners: list[int | None] = []
        for m, (a, b) in enumerate(matches):
            if a is None or b is None:
                winner = a if b is None else b
            elif score[m][0] != score[m][1]:
                winner = a if score[m][0] > score[m][1] else b
            else:
                winner = min(a, b)  # the higher seed
            if winner is not None:
                reached[winner] = level + 1
            winners.append(winner)
        entries, level = winners, level + 1
    return None, reached


def knockout(
    number: int, players: int, rounds: int, stages: Sequence[tuple[Stage, Sequence[TableResult]]]
) -> Stage | None:
    """Stage ``number`` of the bracket: the players still in, paired 1 v last, 2 v last but
    one... (by seed); a match is ``rounds`` tables (game pairs), all in one stage, and a tie
    after them one more table per stage, up to `EXTRA_TABLES`; the higher seed (listed
    first) wins a tie after those."""
    return bracket(number, players, rounds, stages)[0]


def balanced(
    number: int,
    players: int,
    size: int,
    stages: Sequence[tuple[Stage, Sequence[TableResult]]],
    seed: int,
) -> Stage:
    """Tables of ``size`` for stage ``number``: the players who sat out most recently play
    (those who played most sit out), then of `DRAWS` seeded draws, each improved by swapping
    players between tables while that helps, the one whose tables hold the fewest earlier
    meetings (a pair that met m times costs `WEIGHT` ** m) is kept; a player sitting out
    may change places with a player at a table who has played as often."""
    meetings: dict[frozenset[int], int] = {}
    played = [0] * players
    for stage, _ in stages:
        for table in stage.tables:
            for pair in itertools.combinations(table.players, 2):
                key = frozenset(pair)
                meetings[key] = meetings.get(key, 0) + 1
            for player in table.players:
                played[player] += 1
    rng = random.Random(f"tables {seed} {number}")
    count = (players // size) * size
    order = list(range(players))
    rng.shuffle(order)
    order.sort(key=lambda p: played[p])  # stable: the fewest tables first, then seeded
    playing, out = order[:count], tuple(sorted(order[count:]))

    def cost(group: Sequence[int]) -> int:
        return sum(
            WEIGHT ** meetings.get(frozenset(pair), 0) for pair in itertools.combinations(group, 2)
        )

    best: tuple[int, tuple[Table, ...], tuple[int, ...]] | None = None
    for _ in range(DRAWS):
        rng.shuffle(playing)
        groups = [list(playing[i : i + size]) for i in range(0, count, size)]
        bench = list(out)
        improved = True
        while improved:  # swap players while that lowers the cost
            improved = False
            for g, h in itertools.combinations(range(len(groups)), 2):
                for i, j in itertools.product(range(size), repeat=2):
                    a, b = groups[g], groups[h]
                    before = cost(a) + cost(b)
                    a[i], b[j] = b[j], a[i]
                    if cost(a) + cost(b) < before:
                        improved = True
                    else:
                        a[i], b[j] = b[j], a[i]
            for group in groups:  # (one sitting out who has played as often as one playing)
                for i, j in itertools.product(range(size), range(len(bench))):
                    if played[group[i]] != played[bench[j]]:
                        continue
                    before = cost(group)
                    group[i], bench[j] = bench[j], group[i]
                    if cost(group) < before:
                        improved = True
                    else:
                        group[i], bench[j] = bench[j], group[i]
        total = sum(cost(group) for group in groups)
        if best is None or total < best[0]:
            shift = number % size
            tables = tuple(Table(tuple(group[shift:] + group[:shift])) for group in groups)
            best = (total, tables, tuple(sorted(bench)))
    assert best is not None
    return Stage(number, best[1], best[2])
