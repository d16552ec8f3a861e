"""The general game player: Monte Carlo tree search over any declared game's rules.

Given only a `hub.core.play.game.Game`'s ``to_move``, ``legal_moves``, ``apply`` and ``outcome``,
`choose` picks a move by UCT (upper confidence bounds applied to trees): each iteration
walks down the tree choosing, at every node, the move that the seat to move there likes best
(its mean reward plus an exploration bonus), adds one node, plays the game out at random (or
by the game's own cheap policy, the `Search` facet's ``playout``) and credits the result to
every move on the path, each move from the point of view of the seat that chose it. So any
number of seats, a turn of several moves (``to_move`` naming the same seat again), draws and
shared wins need nothing special. A seat's reward is 1 for a win, ``1/k`` for a win shared
by k seats (a draw of n seats is shared by n: Connect Four's full grid names both seats
winners; an outcome without winners counts as a draw of every seat), 0 for a loss.

A game with hidden information (a hand) is searched from its seat's VIEW only, through the
`Search` facet's ``sample(game, view, seat, rng)``, a state consistent with that view (the
unseen cards dealt at random): `choose_from_view` runs single-observer information-set MCTS,
one tree over the seat's moves and what follows, a fresh sample for every iteration
(determinization), so the player never sees a state it did not sample itself. Without a
sampler the general player refuses such a game (`refuse_hidden` says why).

Budgets: ``playouts`` (deterministic given the seeded ``rng``), and/or ``seconds`` of a
clock read every `CLOCK_EVERY` playouts and every `PLAYOUT_CHECK` plies of a random playout
(a playout cut there is dropped), and a ``stop`` flag; a legal move is returned in
every case, even with no time at all. The levels of ``ai:N``/``mcts:N`` are `LEVELS`:
level 1 is `BASE_PLAYOUTS` playouts and each level doubles it, capped by the clock.

Pure: the standard library and the game's own methods; no I/O, no global random.
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from hub.core.model.clock import MOVES_TO_GO, THINK_MARGIN, THINK_SHARE, think_budget
from hub.core.model.referee import Outcome
from hub.core.model.values import JSON

if TYPE_CHECKING:
    from collections.abc import Callable

    from hub.core.play.game import Game, Playout, Sample, Search

BASE_PLAYOUTS = 50
"""The playouts of level 1; level N searches ``BASE_PLAYOUTS * 2 ** (N - 1)``."""
LEVELS = range(1, 11)
"""The general player's levels: 50 playouts (level 1) to 25,600 (level 10)."""
DEFAULT_LEVEL = 4
"""The level of a bare ``mcts`` (and ``ai`` of a game without an AI of its own): 400."""
EXPLORATION = 1.0
"""UCT's exploration constant c in ``mean + c * sqrt(ln(parent visits) / visits)``."""
CLOCK_EVERY = 1
"""Playouts between two looks at the clock and the stop flag (a look costs well under 1% of
the cheapest real playout; a clubs playout is milliseconds)."""
PLAYOUT_CHECK = 8
"""Plies of a random playout between two looks at the clock and the stop flag: a playout
can be long (chess played at random: hundreds of plies, tens of ms), and a search that
finished its playout first overran its budget and, abandoned at its seat's hard stop, held
the GIL that the event loop needed to answer (docs/performance.md). A time limit or a stop
cuts the playout and drops it (a playout budget alone never does: the same moves)."""
TIME_SHARE = THINK_SHARE
"""The share of a per-move limit the player spends (`hub.core.model.clock.think_budget`)."""
TIME_MARGIN = THINK_MARGIN
"""Seconds kept back from every time budget."""
GAME_MOVES = MOVES_TO_GO
"""With a game clock: the moves its remaining time is shared among (plus the increment)."""


class Stop(Protocol):
    """A flag a search polls (`hub.core.play.threads.StopFlag`)."""

    def is_set(self) -> bool: ...


@attrs.frozen
class Budget:
    """How much to search: at most ``playouts`` (None: no limit), at most ``seconds`` of
    the clock (None: no limit). With neither, one playout per legal move."""

    playouts: int | None = None
    seconds: float | None = None


def level_playouts(level: int) -> int:
    """The playouts of ``level`` (one of `LEVELS`)."""
    if level not in LEVELS:
        raise ValueError(f"the general player's levels are {LEVELS[0]} to {LEVELS[-1]}")
    return int(BASE_PLAYOUTS << (level - 1))


def think_seconds(
    left: float, game_left: float | None = None, increment: float = 0.0
) -> float | None:
    """Seconds to think with ``left`` seconds to the deadline (``inf``: none), the game
    clock's ``game_left`` (None: a limit per move only) and its ``increment``: a share of a
    per-move limit, a 1/`GAME_MOVES` share of a game clock plus most of the increment,
    never past `TIME_SHARE` of what is left; None without any limit
    (`hub.core.model.clock.think_budget`, the one rule of every built-in player)."""
    return think_budget(left, game_left, increment)


def rewards(outcome: Outcome, seats: int) -> list[float]:
    """Each seat's reward for ``outcome``: 1 for a win, 1/k for a win shared by k seats, 0
    for a loss; an outcome without winners is a draw of all ``seats``."""
    winners = outcome.winners
    if not winners:
        return [1.0 / seats] * seats
    share = 1.0 / len(winners)
    return [share if seat in winners else 0.0 for seat in range(seats)]


class _Deadline:
    """The budget as the hot loop checks it: `done` after every playout."""

    def __init__(self, budget: Budget, stop: Stop | None) -> None:
        self.limit = budget.playouts
        seconds = budget.seconds
        self.until = None if seconds is None else time.perf_counter() + seconds
        self.stop = stop
        self.count = 0
        self.out = seconds is not None and seconds <= 0
        if stop is not None and stop.is_set():
            self.out = True

    def expired(self) -> bool:
        """Out of time, or told to stop (not the playout count): looked at inside a long
        playout, which is then dropped."""
        if self.until is not None and time.perf_counter() >= self.until:
            return True
        return self.stop is not None and self.stop.is_set()

    def done(self) -> bool:
        self.count += 1
        if self.limit is not None and self.count >= self.limit:
            return True
        if self.count % CLOCK_EVERY:
            return False
        if self.until is not None and time.perf_counter() >= self.until:
            return True
        return self.stop is not None and self.stop.is_set()


def _default_budget(budget: Budget, moves: int) -> Budget:
    if budget.playouts is None and budget.seconds is None:
        return Budget(playouts=max(1, moves))
    return budget


def choose(
    game: Game[Any, Any],
    state: Any,
    rng: random.Random,
    budget: Budget,
    stop: Stop | None = None,
    *,
    exploration: float = EXPLORATION,
    search: Search | None = None,
) -> Any:
    """The move UCT chooses for the seat to move in ``state`` (a game of perfect
    information, or a state the caller may see whole) within ``budget``: the root's most
    visited move. Always a legal move; raises `ValueError` if the game is over."""
    legal = list(game.legal_moves(state))
    if not legal or game.to_move(state) is None:
        raise ValueError("the game is over: there is no move to choose")
    if len(legal) == 1:
        return legal[0]
    deadline = _Deadline(_default_budget(budget, len(legal)), stop)
    if deadline.out:
        return rng.choice(legal)
    playout = search.playout if search is not None else None
    to_move, legal_moves, apply, outcome_of = (
        game.to_move,
        game.legal_moves,
        game.apply,
        game.outcome,
    )
    seats = game.seats(state)
    log, sqrt = math.log, math.sqrt

    # The tree, one entry per node in parallel lists (no object per node: the hot loop).
    states: list[Any] = [state]
    mover: list[int] = [to_move(state)]  # type: ignore[list-item]  # -1: the game is over
    chooser: list[int] = [-1]  # the seat that chose the move into the node
    visits: list[int] = [0]
    value: list[float] = [0.0]  # the total reward of `chooser`
    children: list[list[int]] = [[]]
    moves_in: list[Any] = [None]  # the move into the node
    root_untried = legal[:]
    rng.shuffle(root_untried)
    untried: list[list[Any]] = [root_untried]
    final: list[list[float] | None] = [None]  # a finished node's rewards

    while True:
        node = 0
        path = [0]
        # selection: down while every move of the node has been tried
        while not untried[node] and children[node]:
            kids = children[node]
            ln = log(visits[node])
            best, best_score = kids[0], -1.0
            for kid in kids:
                n = visits[kid]
                score = value[kid] / n + exploration * sqrt(ln / n)
                if score > best_score:
                    best, best_score = kid, score
            node = best
            path.append(node)
        # expansion: one untried move
        if untried[node]:
            move = untried[node].pop()
            after = apply(states[node], move)
            child = len(states)
            states.append(after)
            chooser.append(mover[node])
            visits.append(0)
            value.append(0.0)
            children.append([])
            children[node].append(child)
            moves_in.append(move)
            ended = outcome_of(after)
            if ended is None:
                seat = to_move(after)
                mover.append(-1 if seat is None else seat)
                fresh = list(legal_moves(after))
                rng.shuffle(fresh)
                untried.append(fresh)
                final.append(None)
            else:
                mover.append(-1)
                untried.append([])
                final.append(rewards(ended, seats))
            node = child
            path.append(node)
        # playout
        result = final[node]
        if result is None:
            now = states[node]
            if playout is not None:
                result = rewards(playout(game, now, rng), seats)
            else:
                ended = _played_out(
                    now, outcome_of(now), legal_moves, apply, outcome_of, rng, deadline
                )
                if ended is None:
                    break  # out of time: drop this playout
                result = rewards(ended, seats)
        # back-propagation: each move credited to the seat that chose it
        for step in path:
            visits[step] += 1
            seat = chooser[step]
            if seat >= 0:
                value[step] += result[seat]
        if deadline.done():
            break
    return _most_visited(children[0], visits, moves_in, legal, rng)


def _played_out(
    state: Any,
    ended: Any,
    legal_moves: Callable[[Any], Any],
    apply: Callable[[Any, Any], Any],
    outcome_of: Callable[[Any], Any],
    rng: random.Random,
    deadline: _Deadline,
) -> Any:
    """The outcome of ``state`` played out at random (``ended`` if it has one already), or
    None if the clock ran out (looked at every `PLAYOUT_CHECK` plies: a cut playout is
    dropped). One call a playout; the plies are the loop inside."""
    plies = 0
    while ended is None:
        plies += 1
        if not plies % PLAYOUT_CHECK and deadline.expired():
            return None
        moves = legal_moves(state)
        state = apply(state, moves[int(rng.random() * len(moves))])
        ended = outcome_of(state)
    return ended


def _most_visited(
    kids: list[int], visits: list[int], moves_in: list[Any], legal: list[Any], rng: random.Random
) -> Any:
    if not kids:
        return rng.choice(legal)
    best = max(kids, key=visits.__getitem__)  # the first of equals: deterministic
    return moves_in[best]


def choose_from_view(
    game: Game[Any, Any],
    view: JSON,
    seat: int,
    sample: Sample,
    rng: random.Random,
    budget: Budget,
    stop: Stop | None = None,
    *,
    exploration: float = EXPLORATION,
    playout: Playout | None = None,
) -> Any:
    """The move of ``seat``, to move, from its ``view`` alone: single-observer
    information-set MCTS. Every iteration samples a state consistent with the view
    (``sample``), walks the one tree of moves choosing among the children the sample
    allows (UCT over each child's availability count), adds one, plays out and credits
    each move to the seat that chose it. Moves must be hashable. Always a legal move."""
    first = sample(game, view, seat, rng)
    legal = list(game.legal_moves(first))
    if not legal or game.to_move(first) != seat:
        raise ValueError("the view's seat is not to move")
    if len(legal) == 1:
        return legal[0]
    deadline = _Deadline(_default_budget(budget, len(legal)), stop)
    if deadline.out:
        return rng.choice(legal)
    to_move, legal_moves, apply, outcome_of = (
        game.to_move,
        game.legal_moves,
        game.apply,
        game.outcome,
    )
    seats = game.seats(first)
    log, sqrt = math.log, math.sqrt

    # node: [children by move, visits, value (of the seat that chose it), availability, seat]
    root: list[Any] = [{}, 0, 0.0, 0, -1]
    state = first
    while True:
        node = root
        path = [root]
        ended = outcome_of(state)
        while ended is None:
            kids: dict[Any, list[Any]] = node[0]
            moves = legal_moves(state)
            chooser = to_move(state)
            fresh = [move for move in moves if move not in kids]
            if fresh:
                move = fresh[int(rng.random() * len(fresh))]
                child: list[Any] = [{}, 0, 0.0, 0, chooser]
                kids[move] = child
                for other in moves:
                    known = kids.get(other)
                    if known is not None:
                        known[3] += 1
                state = apply(state, move)
                path.append(child)
                ended = outcome_of(state)
                break
            best, best_move, best_score = None, None, -1.0
            for move in moves:
                kid = kids[move]
                kid[3] += 1
                n = kid[1]
                score = kid[2] / n + exploration * sqrt(log(kid[3]) / n)
                if score > best_score:
                    best, best_move, best_score = kid, move, score
            assert best is not None
            state = apply(state, best_move)
            node = best
            path.append(node)
            ended = outcome_of(state)
        if ended is None and playout is not None:
            ended = playout(game, state, rng)
        ended = _played_out(state, ended, legal_moves, apply, outcome_of, rng, deadline)
        if ended is None:
            break  # out of time: drop this playout
        result = rewards(ended, seats)
        for step in path:
            step[1] += 1
            if step[4] >= 0:
                step[2] += result[step[4]]
        if deadline.done():
            break
        state = sample(game, view, seat, rng)
    tried: dict[Any, list[Any]] = root[0]
    best_move, most = legal[0], -1
    for move in legal:
        entry = tried.get(move)
        if entry is not None and entry[1] > most:
            best_move, most = move, entry[1]
    return best_move


def general_move(
    game: Game[Any, Any],
    seen: Any,
    seat: int,
    level: int,
    seconds: float | None,
    stop: Stop | None,
    *,
    search: Search | None = None,
    rng: random.Random | None = None,
) -> Any:
    """The general player's move at ``level`` (`level_playouts`, capped by ``seconds``):
    ``seen`` is the state, or for a game with hidden information (``search`` has a
    ``sample``) the view of ``seat``. Seeds its generator from the level unless given."""
    budget = Budget(playouts=level_playouts(level), seconds=seconds)
    rng = rng if rng is not None else random.Random(level)
    if search is not None and search.sample is not None:
        return choose_from_view(
            game, seen, seat, search.sample, rng, budget, stop, playout=search.playout
        )
    return choose(game, seen, rng, budget, stop, search=search)


def refuse_hidden(name: str) -> str:
    """The message refusing the general player for a game that hides something and offers
    no sampler."""
    return (
        f"{name} hides information from its players and offers no way to sample what a"
        " seat cannot see, so the general player (mcts) cannot play it without peeking"
    )
