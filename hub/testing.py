"""Conformance checks that every game's referee must pass (see docs/architecture.md).

``check_referee(make_game)`` plays random legal games from seeded generators and checks the
contract of `hub.core.referee.Referee`:

* a game in progress has exactly one seat to move and at least one legal move; a finished
  game has an outcome, no seat to move and no legal moves;
* every legal move is accepted, every candidate move that is not legal raises `IllegalMove`,
  and neither call changes the state it was given (states are values);
* the same seed gives the same game, and replaying the recorded moves gives equal states;
* every playout ends within ``max_plies`` with an outcome that names its seats;
* a game with chance during play (`hub.core.game.Game.chance`): at a chance point nobody
  is to move, there is no outcome and no legal move, the outcomes have positive
  probabilities and each applies; the playout draws one from the same seeded generator;
* a game with simultaneous moves (`Game.simultaneous`): where several seats move at once,
  each one's `for_seat` state has that seat to move and a legal move.

``make_game(rng)`` returns ``(referee, initial_state)``; any randomness of the set-up (a
shuffled deck, a random layout) must come from ``rng``. The function raises
`RefereeConformanceError` with the seed and ply where a check failed, so a failure replays.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

from hub.core.chance import Simultaneous, draw, facets
from hub.core.referee import IllegalMove, Outcome, Referee


class RefereeConformanceError(AssertionError):
    """A referee broke the `Referee` contract."""


GameFactory = Callable[[random.Random], tuple[Referee[Any, Any], Any]]


def check_referee(
    make_game: GameFactory,
    *,
    playouts: int = 20,
    max_plies: int = 100_000,
    seed: int = 0,
    illegal_checks_per_ply: int = 3,
) -> list[Outcome]:
    """Run the conformance suite; return the outcomes of the playouts (for further checks)."""
    outcomes = []
    for index in range(playouts):
        game_seed = seed * 1_000_003 + index
        outcome, moves = _playout(make_game, game_seed, max_plies, illegal_checks_per_ply)
        again, moves_again = _playout(make_game, game_seed, max_plies, 0)
        if moves_again != moves or again != outcome:
            _fail(game_seed, len(moves), "the same seed gave a different game (not deterministic)")
        _replay(make_game, game_seed, moves, outcome)
        outcomes.append(outcome)
    return outcomes


def _fail(seed: int, ply: int, message: str) -> None:
    raise RefereeConformanceError(f"seed {seed}, ply {ply}: {message}")


def _playout(
    make_game: GameFactory, seed: int, max_plies: int, illegal_checks: int
) -> tuple[Outcome, list[Any]]:
    setup_rng = random.Random(seed)
    referee, state = make_game(setup_rng)
    choice_rng = random.Random(seed ^ 0x5EED)
    reject_rng = random.Random(seed ^ 0xBAD)  # separate, so checks do not change the playout
    seats = referee.seats(state)
    if seats < 1:
        _fail(seed, 0, f"seats() returned {seats}")
    chance, joint = facets(referee)
    moves: list[Any] = []
    for ply in range(max_plies + 1):
        mover = referee.to_move(state)
        legal = list(referee.legal_moves(state))
        outcome = referee.outcome(state)
        outcomes = chance.outcomes(state) if chance is not None and mover is None else None
        if outcomes is not None:
            _check_chance(referee, state, outcomes, legal, outcome, seed, ply)
            drawn = draw(choice_rng, outcomes)
            state = referee.apply(state, drawn)
            moves.append(drawn)  # the record keeps chance's outcomes: a replay applies them
            continue
        if mover is None:
            if outcome is None:
                _fail(seed, ply, "no seat to move but no outcome")
            if legal:
                _fail(seed, ply, "legal moves after the game ended")
            assert outcome is not None
            _check_outcome(seed, ply, outcome, seats)
            return outcome, moves
        if not 0 <= mover < seats:
            _fail(seed, ply, f"to_move returned {mover} for {seats} seats")
        if outcome is not None:
            _fail(seed, ply, "an outcome while a seat is still to move")
        if joint is not None:
            _check_movers(referee, joint, state, seats, seed, ply)
        if not legal:
            _fail(seed, ply, "a seat to move but no legal move")
        if illegal_checks:
            _check_rejections(referee, state, legal, reject_rng, seed, ply, illegal_checks)
        move = choice_rng.choice(legal)
        snapshot = copy.deepcopy(state)
        try:
            after = referee.apply(state, move)
        except IllegalMove as exc:
            _fail(seed, ply, f"legal move {move!r} rejected: {exc}")
        if state != snapshot:
            _fail(seed, ply, f"applying {move!r} changed the state it was given")
        state = after
        moves.append(move)
    _fail(seed, max_plies, f"no outcome after {max_plies} plies")
    raise AssertionError("unreachable")  # pragma: no cover


def _check_rejections(
    referee: Referee[Any, Any],
    state: Any,
    legal: list[Any],
    rng: random.Random,
    seed: int,
    ply: int,
    count: int,
) -> None:
    snapshot = copy.deepcopy(state)
    illegal = [move for move in referee.candidate_moves(state) if move not in legal]
    for move in rng.sample(illegal, min(count, len(illegal))):
        try:
            referee.apply(state, move)
        except IllegalMove:
            pass
        else:
            _fail(seed, ply, f"illegal move {move!r} was accepted")
        if state != snapshot:
            _fail(seed, ply, f"rejecting {move!r} changed the state")
    for move in legal:
        try:
            referee.apply(state, move)
        except IllegalMove as exc:
            _fail(seed, ply, f"legal move {move!r} rejected: {exc}")
        if state != snapshot:
            _fail(seed, ply, f"applying {move!r} changed the state it was given")


def _check_chance(
    referee: Referee[Any, Any],
    state: Any,
    outcomes: Sequence[tuple[Any, float]],
    legal: list[Any],
    outcome: Outcome | None,
    seed: int,
    ply: int,
) -> None:
    if outcome is not None or legal:
        _fail(seed, ply, "a chance point with an outcome or legal moves")
    if not outcomes or any(not weight > 0 for _, weight in outcomes):
        _fail(seed, ply, f"chance's outcomes need positive probabilities: {outcomes!r}")
    snapshot = copy.deepcopy(state)
    for move, _ in outcomes:
        try:
            referee.apply(state, move)
        except IllegalMove as exc:
            _fail(seed, ply, f"chance's outcome {move!r} rejected: {exc}")
    if state != snapshot:
        _fail(seed, ply, "applying chance's outcomes changed the state")


def _check_movers(
    referee: Referee[Any, Any],
    joint: Simultaneous[Any],
    state: Any,
    seats: int,
    seed: int,
    ply: int,
) -> None:
    movers = list(joint.movers(state))
    if len(movers) < 2:
        return
    if referee.to_move(state) not in movers or any(not 0 <= m < seats for m in movers):
        _fail(seed, ply, f"movers {movers} do not include to_move or name no seat")
    for mover in movers:
        own = joint.for_seat(state, mover)
        if referee.to_move(own) != mover or not referee.legal_moves(own):
            _fail(seed, ply, f"for_seat(state, {mover}) is not that seat's turn with a move")


def _check_outcome(seed: int, ply: int, outcome: Outcome, seats: int) -> None:
    if len(outcome.scores) != seats:
        _fail(seed, ply, f"outcome has {len(outcome.scores)} scores for {seats} seats")
    if any(not 0 <= winner < seats for winner in outcome.winners):
        _fail(seed, ply, f"outcome names winners {sorted(outcome.winners)} outside the seats")


def _replay(make_game: GameFactory, seed: int, moves: list[Any], outcome: Outcome) -> None:
    referee, state = make_game(random.Random(seed))
    for ply, move in enumerate(moves):
        try:
            state = referee.apply(state, move)
        except IllegalMove as exc:
            _fail(seed, ply, f"replaying {move!r} failed: {exc}")
    if referee.outcome(state) != outcome:
        _fail(seed, len(moves), "replaying the moves gave a different outcome")
