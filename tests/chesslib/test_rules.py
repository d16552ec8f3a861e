"""The chess rules (the declaration, `ChessGame`, over hub.chess.rules): the conformance
suite, Stockfish's reading of moves, endings under each draw policy."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import chess
import pytest

from hub.chess.game import ChessGame
from hub.chess.rules import (
    MAX_STACK,
    ChessState,
    Draws,
    _child,
    initial,
    normalise,
    parse,
    position_command,
    render_board,
)
from hub.core.model.referee import IllegalMove, Outcome
from hub.testing import check_game

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
# Sam Loyd's ten-move stalemate.
LOYD_STALEMATE = [
    *("e2e3", "a7a5", "d1h5", "a8a6", "h5a5", "h7h5", "h2h4", "a6h6", "a5c7", "f7f6"),
    *("c7d7", "e8f7", "d7b7", "d8d3", "b7b8", "d3h7", "b8c8", "f7g6", "c8e6"),
]


def play(moves: list[str], referee: ChessGame | None = None):  # type: ignore[no-untyped-def]
    referee = referee or ChessGame()
    state = initial()
    for move in moves:
        state = referee.apply(state, move)
    return referee, state


def test_conformance() -> None:
    referee = ChessGame()
    outcomes = check_game(lambda rng: (referee, initial()), playouts=4)
    assert len(outcomes) == 4


def test_checkmate_and_stalemate() -> None:
    referee, state = play(FOOLS_MATE)
    outcome = referee.outcome(state)
    assert outcome == Outcome((0, 2), {1}, detail="checkmate")  # half points
    assert referee.to_move(state) is None
    referee, state = play(LOYD_STALEMATE)
    outcome = referee.outcome(state)
    # A draw as the core records one: both seats share it (GameRecord.result_text 1/2-1/2).
    assert outcome == Outcome((1, 1), {0, 1}, detail="stalemate")


def test_automatic_draws_say_which() -> None:
    referee = ChessGame()
    bare = initial("8/8/4k3/8/8/4K3/8/8 w - - 0 1")
    assert referee.outcome(bare) == Outcome((1, 1), {0, 1}, detail="insufficient material")
    rooks = initial("r3k3/8/8/8/8/8/8/R3K3 w - - 150 90")
    assert referee.outcome(rooks) == Outcome((1, 1), {0, 1}, detail="seventy-five-move rule")
    assert ChessGame(draws=Draws.NONE).outcome(rooks) is None


def test_moves_read_as_stockfish_reads_them() -> None:
    referee = ChessGame()
    promotion = initial("8/6P1/8/8/8/8/k7/7K w - - 0 1")
    assert referee.apply(promotion, "g7g8Q").moves == ("g7g8q",)  # upper-case promotion ok
    for bad in ("g7g8", "G7G8q", "g7g8k", "0000", "g7g8qq"):
        with pytest.raises(IllegalMove):
            referee.apply(promotion, bad)
    castle = initial("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    referee.apply(castle, "e1g1")
    with pytest.raises(IllegalMove):
        referee.apply(castle, "e1h1")  # python-chess would take it as castling; Stockfish not


def test_no_automatic_draws_for_uqchess() -> None:
    bare = "8/8/8/4k3/8/8/8/4K3 w - - 0 1"
    drawn = Outcome((1, 1), {0, 1}, detail="insufficient material")
    assert ChessGame().outcome(initial(bare)) == drawn
    uq = ChessGame(draws=Draws.NONE)
    assert uq.outcome(initial(bare)) is None
    assert uq.to_move(initial(bare)) == 0


def test_the_arbiters_draws_and_the_ply_cap() -> None:
    arbiter = ChessGame(draws=Draws.ARBITER)
    fifty = initial("r3k3/8/8/8/8/8/8/R3K3 w - - 100 60")
    assert arbiter.outcome(fifty) is not None and arbiter.outcome(fifty).detail == "fifty-move rule"
    assert ChessGame().outcome(fifty) is None  # FIDE: 75 moves, not 50
    _, state = play(["g1f3", "g8f6", "f3g1", "f6g8"] * 2, arbiter)
    assert arbiter.outcome(state) is not None
    assert arbiter.outcome(state).detail == "threefold repetition"
    assert ChessGame().outcome(state) is None
    capped = ChessGame(draws=Draws.NONE, max_plies=2)
    _, state = play(["e2e4", "e7e5"], capped)
    assert capped.outcome(state) == Outcome((1, 1), {0, 1}, detail="adjudicated: 2 plies")
    assert capped.to_move(state) is None and capped.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        capped.apply(state, "g1f3")


def test_states_are_values() -> None:
    referee, state = play(["e2e4"])
    again = ChessGame().apply(initial(), "e2e4")
    assert state == again
    assert hash(state) == hash(again)
    with pytest.raises(IllegalMove):
        referee.apply(state, "e2e4")
    assert state.moves == ("e2e4",)


def test_a_draw_policy_hashes_without_a_python_call() -> None:
    """`outcome` keys its cache by the policy several times a move (a server's hot path):
    the members hash by identity in C, not through `enum.Enum.__hash__`."""
    calls: list[str] = []

    def profile(frame: object, event: str, arg: object) -> None:
        if event == "call":
            calls.append(event)

    sys.setprofile(profile)  # (no comprehension inside: that is a Python call of its own)
    try:
        hashes = {hash(Draws.FIDE), hash(Draws.NONE), hash(Draws.ARBITER)}
    finally:
        sys.setprofile(None)
    assert calls == [] and len(hashes) == len(Draws)
    assert {Draws.FIDE: 1}[Draws("fide")] == 1


def test_position_command_is_bounded() -> None:
    _, state = play(["e2e4", "e7e5"])
    assert position_command(state) == "position startpos moves e2e4 e7e5"
    assert position_command(initial()) == "position startpos"
    referee = ChessGame(draws=Draws.NONE)
    state = initial()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for index in range(700):
        state = referee.apply(state, shuffle[index % 4])
    command = position_command(state)
    assert command.startswith("position fen ")
    assert len(command.split(" moves ")[1].split()) == 100
    board = chess.Board(command.split(" moves ")[0].removeprefix("position fen "))
    for move in command.split(" moves ")[1].split():
        board.push_uci(move)
    assert board.board_fen() == state.board.board_fen()


def test_a_game_from_a_fen_is_sent_from_its_fen_with_every_move() -> None:
    """The start position as python-chess writes it (counters added, an en passant square
    no pawn can take on dropped), then every move since: no board is built for it."""
    referee = ChessGame(draws=Draws.NONE)
    state = initial("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3")
    assert position_command(state) == (
        "position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    )
    for move in ("e7e5", "g1f3"):
        state = referee.apply(state, move)
    assert position_command(state).endswith("KQkq - 0 1 moves e7e5 g1f3")


def test_render_board_startpos() -> None:
    art = render_board(initial())
    assert art[2] == " | r | n | b | q | k | b | n | r | 8"
    assert art[16] == " | R | N | B | Q | K | B | N | R | 1"
    assert len(art) == 20


def _reading_of_every_legal_move(state: ChessState) -> Callable[[str], chess.Move | None]:
    """The plain reading `hub.chess.rules.parse` must agree with: the legal move whose UCI text
    is ``text`` normalised, out of all of the position's legal moves (listed once a position)."""
    legal = {m.uci(): m for m in state.board.generate_legal_moves()}
    return lambda text: legal.get(normalise(text))


def test_parse_agrees_with_reading_every_legal_move() -> None:
    """parse generates only the named piece's moves; over random games (castling either
    way, promotions, checks), every candidate text and some odd ones read the same."""
    referee = ChessGame()
    rng = random.Random(7)
    odd = ["e1g1", "e1c1", "e8g8", "e8c8", "e1h1", "e8a8", "e7e8Q", "b2b1n", "E2e4", "0000", ""]
    compared = 0
    for _ in range(12):
        state = initial()
        for _ in range(100):
            if referee.to_move(state) is None:
                break
            reading = _reading_of_every_legal_move(state)
            for text in [*referee.candidate_moves(state), *odd]:
                try:
                    parsed: chess.Move | None = parse(state, text)
                except IllegalMove:
                    parsed = None
                assert parsed == reading(text), (state, text)
                compared += 1
            state = referee.apply(state, rng.choice(list(state.board.legal_moves)).uci())
    assert compared > 10_000


def test_a_child_board_is_the_parent_copied_then_pushed() -> None:
    """`hub.chess.rules._child` (which shares the parent's history instead of copying each
    move) gives the board ``copy(stack=N)`` then ``push`` gave: the same position, history
    and repetitions, over seeded random games that shuffle pieces and repeat positions."""
    rng = random.Random(5)
    for _ in range(20):
        board = chess.Board()
        for _ply in range(200):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            quiet = [
                m
                for m in moves
                if not board.is_capture(m) and board.piece_type_at(m.from_square) != chess.PAWN
            ]
            move = rng.choice(quiet if quiet and rng.random() < 0.8 else moves)
            expected = board.copy(stack=min(board.halfmove_clock, MAX_STACK))
            expected.push(move)
            child = _child(board, move)
            assert child.fen() == expected.fen()
            assert child.move_stack == expected.move_stack
            for count in (2, 3, 5):
                assert child.is_repetition(count) == expected.is_repetition(count)
            assert child.is_fifty_moves() == expected.is_fifty_moves()
            board = child
