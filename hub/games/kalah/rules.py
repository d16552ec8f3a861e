"""The rules of Kalah (kalah.md, "Rules") as pure functions, which the declaration
(`hub.games.kalah.game.KalahGame`, the game's one rules object) calls.

Seats: 0 is the player who moves first, 1 the other. The board is a tuple of ``2h + 2``
counts indexed by seat, not by side: seat 0's holes 1..h, seat 0's store, seat 1's holes
1..h, seat 1's store. Holes are numbered from each player's own left, so seat p's hole i
(index ``p*(h+1) + i-1``) is opposite the other seat's hole ``h+1-i``. The pie swap
exchanges the two halves of the board (the seats change sides) and sets ``swapped``; the
physical side of a seat (South/North) only matters for drawing.

A move is a whole turn: the holes sown in order (``Move((4, 3))``), or `PIE`. Internally
every sowing works on a board seen from the mover (``relative``: the mover's holes, the
mover's store, the opponent's holes, the opponent's store), which is also what the AI uses.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence

import attrs

from hub.core.model.referee import IllegalMove, Outcome

MIN_HOLES, MAX_HOLES = 1, 20
MIN_SEEDS, MAX_SEEDS = 1, 20


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


@attrs.frozen
class Move:
    """One whole turn: the holes sown in order (numbered 1..h from the mover's left), or the pie."""

    holes: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    pie: bool = False

    @holes.validator
    def _check(self, _attribute: object, value: tuple[int, ...]) -> None:
        if self.pie == bool(value):
            raise ValueError("a move is either the pie or a non-empty list of holes")

    def __str__(self) -> str:
        return "P" if self.pie else " ".join(map(str, self.holes))


PIE = Move(pie=True)


def turn(*holes: int) -> Move:
    """``turn(4, 3)`` is the move ``4 3``."""
    return Move(holes)


@attrs.frozen
class KalahState:
    """A Kalah game at the start of a turn (see the module docstring for the board layout)."""

    holes: int
    board: tuple[int, ...] = attrs.field(converter=_ints)
    mover: int | None = 0
    turns: int = 0
    """Whole turns played so far (a pie swap counts as one)."""
    pie: bool = False
    """The pie rule is in force for this game."""
    swapped: bool = False
    """The seats swapped sides (seat 0 now plays from the side seat 1 started on)."""

    @board.validator
    def _check_board(self, _attribute: object, value: tuple[int, ...]) -> None:
        if len(value) != 2 * self.holes + 2 or any(count < 0 for count in value):
            raise ValueError(f"a board of {self.holes} holes needs {2 * self.holes + 2} counts")

    @property
    def over(self) -> bool:
        return self.mover is None

    @property
    def total(self) -> int:
        return sum(self.board)

    def store(self, seat: int) -> int:
        return self.board[seat * (self.holes + 1) + self.holes]

    def side(self, seat: int) -> tuple[int, ...]:
        """Seat ``seat``'s holes 1..h."""
        start = seat * (self.holes + 1)
        return self.board[start : start + self.holes]

    def relative(self) -> tuple[int, ...]:
        """The board from the mover's point of view (seat 0's view once the game is over)."""
        return relative_board(self.board, self.holes, self.mover or 0)

    @property
    def pie_available(self) -> bool:
        """The mover may answer `PIE` (the second player's reply to the first whole turn)."""
        return self.pie and self.turns == 1 and self.mover == 1 and not self.swapped


def relative_board(board: Sequence[int], holes: int, seat: int) -> tuple[int, ...]:
    """``board`` rotated so that ``seat``'s holes and store come first."""
    offset = seat * (holes + 1)
    return tuple(board[offset:]) + tuple(board[:offset])


def check_settings(holes: int, seeds: int) -> None:
    """Raise ValueError unless holes and seeds are within what we support."""
    if not MIN_HOLES <= holes <= MAX_HOLES:
        raise ValueError(f"holes must be {MIN_HOLES}..{MAX_HOLES}, not {holes}")
    if not MIN_SEEDS <= seeds <= MAX_SEEDS:
        raise ValueError(f"seeds must be {MIN_SEEDS}..{MAX_SEEDS}, not {seeds}")


def random_layout(holes: int, seeds: int, rng: random.Random) -> tuple[int, ...]:
    """``holes * seeds`` seeds, each put in a random hole (holes may stay empty)."""
    check_settings(holes, seeds)
    counts = [0] * holes
    for _ in range(holes * seeds):
        counts[rng.randrange(holes)] += 1
    return tuple(counts)


def new_game(
    holes: int, seeds: int, *, pie: bool = False, layout: Sequence[int] | None = None
) -> KalahState:
    """The start: ``seeds`` in every hole, or ``layout`` (the same counts for both seats)."""
    check_settings(holes, seeds)
    if layout is None:
        side = (seeds,) * holes
    else:
        side = tuple(layout)
        if len(side) != holes or any(count < 0 for count in side):
            raise ValueError(f"a layout needs {holes} counts of zero or more")
        if sum(side) != holes * seeds:
            raise ValueError(f"a layout must hold {holes * seeds} seeds, not {sum(side)}")
    return KalahState(holes=holes, board=(*side, 0, *side, 0), pie=pie)


# -- sowing, on a board seen from the mover ---------------------------------------------------

AGAIN, PASS, OVER = "again", "pass", "over"
"""What a sowing leads to: the mover moves again, the turn passes, the game is over."""


def sow(board: list[int], index: int, holes: int) -> str:
    """Sow the mover's hole ``index`` (0-based) of a relative board in place.

    Applies the capture and, if either side is then empty, the end-of-game sweep. Returns
    `AGAIN`, `PASS` or `OVER`. The hole must be non-empty (the caller checks).
    """
    seeds = board[index]
    board[index] = 0
    cycle = 2 * holes + 1  # every pit but the opponent's store, which is the last index
    laps, rest = divmod(seeds, cycle)
    if laps:
        for pit in range(cycle):
            board[pit] += laps
    pit = index
    for _ in range(rest):
        pit += 1
        if pit == cycle:
            pit = 0
        board[pit] += 1
    last = (index + seeds) % cycle
    if last < holes and board[last] == 1:
        opposite = 2 * holes - last
        if board[opposite]:
            board[holes] += board[opposite] + 1
            board[last] = board[opposite] = 0
    mine = sum(board[:holes])
    theirs = sum(board[holes + 1 : cycle])
    if not mine or not theirs:
        board[holes] += mine
        board[cycle] += theirs
        for pit in range(holes):
            board[pit] = 0
            board[holes + 1 + pit] = 0
        return OVER
    return AGAIN if last == holes else PASS


def turn_sequences(relative: Sequence[int], holes: int) -> Iterator[tuple[tuple[int, ...], str]]:
    """Every whole turn from a relative board, as (holes 1-based, final result), in order."""
    stack: list[tuple[tuple[int, ...], tuple[int, ...]]] = [(tuple(relative), ())]
    while stack:
        board, prefix = stack.pop()
        extensions = []
        for index in range(holes):
            if not board[index]:
                continue
            after = list(board)
            result = sow(after, index, holes)
            sequence = (*prefix, index + 1)
            if result == AGAIN:
                extensions.append((tuple(after), sequence))
            else:
                yield sequence, result
        # Depth first, in ascending order of holes, without recursion.
        stack.extend(reversed(extensions))


def candidate_moves(state: KalahState) -> list[Move]:
    """Well-formed moves, legal or not: single holes, the legal turns cut short or run on,
    and the pie (what the conformance suite tries to be refused)."""
    if state.over:
        return [PIE, *(turn(hole) for hole in range(1, state.holes + 1))]
    legal = legal_moves(state)
    found: dict[Move, None] = {PIE: None}
    for hole in range(1, state.holes + 1):
        found[turn(hole)] = None
    for move in legal:
        if move.pie:
            continue
        for cut in range(1, len(move.holes)):
            found[Move(move.holes[:cut])] = None
        for hole in range(1, state.holes + 1):
            found[Move((*move.holes, hole))] = None
        found[move] = None
    return list(found)


def legal_moves(state: KalahState) -> list[Move]:
    """Every legal whole turn in lexicographic order of holes, then `PIE` if allowed."""
    if state.over:
        return []
    moves = [Move(sequence) for sequence, _ in turn_sequences(state.relative(), state.holes)]
    if state.pie_available:
        moves.append(PIE)
    return moves


def outcome(state: KalahState) -> Outcome | None:
    if not state.over:
        return None
    scores = (state.store(0), state.store(1))
    best = max(scores)
    return Outcome(scores, [seat for seat in (0, 1) if scores[seat] == best])


def play(state: KalahState, move: Move) -> KalahState:
    """The state after the mover plays the whole turn ``move``; raises `IllegalMove`."""
    mover = state.mover
    if mover is None:
        raise IllegalMove("the game is over")
    holes = state.holes
    if move.pie:
        if not state.pie_available:
            raise IllegalMove("the pie is only allowed as the reply to the first turn")
        return attrs.evolve(
            state,
            board=state.board[holes + 1 :] + state.board[: holes + 1],
            mover=0,
            turns=state.turns + 1,
            swapped=True,
        )
    board = list(state.relative())
    result = AGAIN
    for step, hole in enumerate(move.holes):
        if result != AGAIN:
            raise IllegalMove(f"the turn was over before hole {hole} (step {step + 1})")
        if not 1 <= hole <= holes:
            raise IllegalMove(f"there is no hole {hole}")
        if not board[hole - 1]:
            raise IllegalMove(f"hole {hole} is empty")
        result = sow(board, hole - 1, holes)
    if result == AGAIN:
        raise IllegalMove("the last seed fell in the store: the turn must go on")
    absolute = relative_board(board, holes, mover)  # rotating by one seat is its own inverse
    return attrs.evolve(
        state,
        board=absolute,
        mover=None if result == OVER else 1 - mover,
        turns=state.turns + 1,
    )


def random_playout(state: KalahState, rng: random.Random) -> Outcome:
    """The outcome of playing ``state`` to the end by random sowings (one random non-empty
    hole at a time; no pie): the general player's cheap playout (`hub.core.play.game.Search`),
    on one list, without listing whole turns."""
    mover = state.mover
    if mover is None:
        ended = outcome(state)
        assert ended is not None
        return ended
    holes = state.holes
    board = list(state.relative())
    side = range(holes)
    while True:
        full = [pit for pit in side if board[pit]]
        result = sow(board, full[int(rng.random() * len(full))], holes)
        if result == OVER:
            break
        if result == PASS:
            board = board[holes + 1 :] + board[: holes + 1]
            mover = 1 - mover
    absolute = relative_board(board, holes, mover)
    scores = (absolute[holes], absolute[2 * holes + 1])
    best = max(scores)
    return Outcome(scores, [seat for seat in (0, 1) if scores[seat] == best])


@attrs.frozen
class Partial:
    """A turn in progress (for people entering one hole at a time): the board so far."""

    state: KalahState
    holes: tuple[int, ...] = ()
    relative: tuple[int, ...] = ()
    result: str = AGAIN

    @property
    def done(self) -> bool:
        return self.result != AGAIN


def start_turn(state: KalahState) -> Partial:
    return Partial(state, (), state.relative(), AGAIN)


def sow_one(partial: Partial, hole: int) -> Partial:
    """The turn after one more sowing; raises `IllegalMove` (and changes nothing)."""
    holes = partial.state.holes
    if partial.done or partial.state.over:
        raise IllegalMove("the turn is over")
    if not 1 <= hole <= holes:
        raise IllegalMove(f"there is no hole {hole}: choose 1 to {holes}")
    if not partial.relative[hole - 1]:
        raise IllegalMove(f"hole {hole} is empty")
    board = list(partial.relative)
    result = sow(board, hole - 1, holes)
    return Partial(partial.state, (*partial.holes, hole), tuple(board), result)


def display_state(partial: Partial) -> KalahState:
    """A state showing the board of a turn in progress (for drawing only)."""
    state = partial.state
    seat = state.mover or 0
    return attrs.evolve(state, board=relative_board(partial.relative, state.holes, seat))
