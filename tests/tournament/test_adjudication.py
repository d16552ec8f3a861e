"""Adjudication (``hub match --resign/--draw/--max-plies``, `hub.declared.adjudication`): the
rules on scripted scores, UCI scores read from an engine's ``info`` lines, chess games against a
scripted UCI engine ended early (record, PGN, table, JSON), and a ply cap on Connect Four."""

from __future__ import annotations

import argparse
import json
import random
import shlex
import subprocess
from typing import Any

import pytest
import trio

from hub.chess.pgn import pgn_text
from hub.chess.uci import MATE_SCORE, BestMoveReader, parse_score
from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord
from hub.core.model.referee import Termination
from hub.core.play.kit import GameSpec
from hub.core.play.vocabulary import Moved
from hub.declared.adjudication import (
    Adjudication,
    Adjudicator,
    add_adjudication_options,
    adjudication_of,
    parse_draw,
    parse_resign,
)
from hub.declared.kit import DeclaredKit
from hub.games.chess.game import ChessMatchGame
from hub.games.connect4 import ConnectFour
from tests.chesslib.helpers import TIMEOUT, fake_engine_argv
from tests.conftest import program


def engine(score: str) -> str:
    """A fake UCI engine that reports ``score`` for every move (it plays its first legal
    move: two of them repeat a position three times at ply 15)."""
    return "uci:" + shlex.join(fake_engine_argv("--score", score))


LOSING, WINNING, LEVEL = engine("cp -700"), engine("cp 700"), engine("cp 5")


# -- the rules, on scripted scores -------------------------------------------------------------


def test_options_parse_as_fastchess_writes_them() -> None:
    assert parse_resign(["movecount=3", "score=600"]) == (3, 600)
    assert parse_resign("movecount=3,score=600") == (3, 600)
    assert parse_draw("movenumber=34 movecount=8 score=20") == (34, 8, 20)
    for bad, words in [
        ("movecount=3", "missing score"),
        ("movecount=3 score=600 twosided=1", "unknown twosided"),
        ("movecount=x score=600", "not a whole number"),
        ("movecount=0 score=600", "at least 1"),
        ("movecount 3", "not KEY=VALUE"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_resign(bad)
    parser = argparse.ArgumentParser()
    add_adjudication_options(parser)
    options = parser.parse_args(["--resign", "movecount=3", "score=600", "--max-plies", "40"])
    rules = adjudication_of(options)
    assert rules == Adjudication(3, 600, max_plies=40)
    assert Adjudication.from_json(rules.to_json()) == rules
    assert not adjudication_of(parser.parse_args([])).active


def test_uci_scores_are_read_from_the_last_info_line() -> None:
    assert parse_score("info depth 12 score cp -35 nodes 900 pv e2e4") == -35
    assert parse_score("info depth 9 score mate 3 pv e2e4") == MATE_SCORE - 3
    assert parse_score("info depth 9 score mate -2 pv e2e4") == -(MATE_SCORE - 2)
    assert parse_score("info score cp 20 lowerbound") == 20
    for garbage in (
        "info depth 3",
        "info score",
        "info score cp",
        "info score cp x",
        "info score wdl 1",
    ):
        assert parse_score(garbage) is None
    reader = BestMoveReader()
    for line in ["info depth 1 score cp 10", "info string x", "info depth 2 score cp -400"]:
        assert not reader.feed(line)
    assert reader.feed("bestmove e2e4") and reader.result == "e2e4"
    assert reader.score == -400
    silent = BestMoveReader()
    assert silent.feed("bestmove e2e4") and silent.score is None


class Scored:
    """A seat as the adjudicator sees it: the score it reported for its last move."""

    def __init__(self) -> None:
        self.last_score: int | None = None


def judge(rules: Adjudication, scores: list[int | None]) -> tuple[int, Any]:
    """Moves alternating between two seats, each reporting its score in turn: the ply at
    which the adjudicator ended the game (0: never) and its outcome."""
    game = ConnectFour()
    state = game.start(random.Random(1))
    seats = [Scored(), Scored()]
    adjudicator = Adjudicator(rules, game, seats)
    for ply, score in enumerate(scores, 1):
        mover = (ply - 1) % 2
        seats[mover].last_score = score
        moved: Moved[Any, Any] = Moved(mover, 4, "4", state, state, 1 - mover, (None, None))
        outcome = adjudicator(moved, ply)
        if outcome is not None:
            return ply, outcome
    return 0, None


def test_resign_needs_the_opponent_to_agree_for_as_many_moves() -> None:
    rules = Adjudication(resign_moves=3, resign_score=600)
    # seat 0 thinks it is lost from its first move, seat 1 agrees from its second
    ply, outcome = judge(rules, [-700, 0, -700, 650, -800, 700, -600, 900])
    assert ply == 8  # seat 0's moves 2-4 and seat 1's moves 2-4
    assert outcome.winners == frozenset({1}) and outcome.termination is Termination.NORMAL
    assert outcome.detail == "adjudicated: resign score"
    # one side alone, a score short of the bound, or a missing score: play on
    assert judge(rules, [-700, 0] * 6)[0] == 0
    assert judge(rules, [-700, 599] * 6)[0] == 0
    assert judge(rules, [-700, 700, None, 700, -700, 700, -700, 700])[0] == 0
    # a mate counts as beyond any bound
    mated, mating = -(MATE_SCORE - 2), MATE_SCORE - 1
    assert judge(rules, [700, mated, 700, mated, 700, mated])[1].winners == frozenset({0})
    assert judge(rules, [mating, -700, mating, -700, mating, -700])[0] == 6


def test_draw_after_the_move_number_when_both_stay_near_zero() -> None:
    rules = Adjudication(draw_from=4, draw_moves=2, draw_score=20)
    ply, outcome = judge(rules, [5, -5] * 10)
    assert ply == 8  # not before move 4 of each side
    assert outcome.winners == frozenset({0, 1}) and outcome.detail == "adjudicated: draw score"
    assert judge(rules, [5, 21] * 10)[0] == 0
    assert judge(rules, [300, 0, 300, 0, 20, 0, -20, 0, 0])[0] == 8
    assert judge(rules, [MATE_SCORE - 1, 0] * 10)[0] == 0


def test_max_plies_is_a_draw_for_any_game() -> None:
    ply, outcome = judge(Adjudication(max_plies=5), [None] * 10)
    assert ply == 5 and outcome.winners == frozenset({0, 1})
    assert outcome.detail == "adjudicated: 5 plies"


# -- chess against a scripted UCI engine ----------------------------------------------------------

chess_kit = DeclaredKit(ChessMatchGame)


async def chess_game(players: tuple[str, str], *args: str) -> GameRecord:
    parser = argparse.ArgumentParser()
    chess_kit.add_options(parser)
    add_adjudication_options(parser)
    options = parser.parse_args(["--tc", "10+0.1", *args])
    settings = chess_kit.settings(options)
    settings["adjudication"] = adjudication_of(options).to_json()
    with trio.fail_after(TIMEOUT * 2):
        async with chess_kit.session():
            return await chess_kit.play(GameSpec("game-1", settings, players, None), EventBus())


@pytest.mark.system
async def test_a_lost_engine_resigns_when_the_other_agrees() -> None:
    record = await chess_game((WINNING, LOSING), "--resign", "movecount=3", "score=600")
    assert len(record.moves) == 6  # both engines' third move
    assert record.winners == (0,) and record.fault is None
    assert record.termination is Termination.NORMAL
    assert record.detail == "adjudicated: resign score"
    pgn = pgn_text(record)
    assert '[Termination "adjudication"]' in pgn and '[Result "1-0"]' in pgn
    # the loser's opponent does not agree (it thinks the game level): played to the ply cap
    record = await chess_game(
        (LEVEL, LOSING), "--resign", "movecount=3", "score=600", "--max-plies", "12"
    )
    assert len(record.moves) == 12 and record.detail == "adjudicated: 12 plies"


@pytest.mark.system
async def test_a_level_game_is_drawn_after_the_move_number() -> None:
    record = await chess_game((LEVEL, LEVEL), "--draw", "movenumber=4", "movecount=2", "score=20")
    assert len(record.moves) == 8
    assert record.winners == (0, 1) and record.detail == "adjudicated: draw score"
    assert '[Result "1/2-1/2"]' in pgn_text(record)
    # without --draw the same game goes on to the cap
    record = await chess_game((LEVEL, LEVEL), "--max-plies", "12")
    assert len(record.moves) == 12 and record.detail == "adjudicated: 12 plies"


# -- hub match as a user runs it ------------------------------------------------------------------


def match(*args: str) -> tuple[str, dict[str, Any]]:
    """``hub match ARGS``'s table, and its ``--json``."""
    answers = []
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [program("hub"), "match", *args, *extra, "--no-record"],
            capture_output=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        answers.append(done.stdout)
    return answers[0], json.loads(answers[1])


@pytest.mark.e2e
def test_hub_match_chess_resigns_and_draws_show_in_the_table_and_json() -> None:
    table, data = match(
        "chess", WINNING, LOSING, "--games", "2", "--tc", "10+0.1", "--openings", "fixed",
        "--resign", "movecount=3", "score=600",
    )  # fmt: skip
    rows = {row["player"]: row for row in data["standings"]}
    assert [row["wins"] for row in data["standings"]] == [2, 0]
    assert all(row["adjudicated"] == 2 for row in rows.values())
    assert data["adjudicated"] == {"resign score": 2}
    assert "Adjudicated: 2 of 2 games (resign score: 2)" in table
    assert table.splitlines()[1].split()[-1] == "adjud."
    table, data = match(
        "chess", LEVEL, LEVEL, "--games", "2", "--tc", "10+0.1", "--openings", "fixed",
        "--draw", "movenumber=4", "movecount=2", "score=20",
    )  # fmt: skip
    assert data["adjudicated"] == {"draw score": 2}
    assert [row["draws"] for row in data["standings"]] == [2, 2]


@pytest.mark.e2e
def test_hub_match_connect4_max_plies() -> None:
    # six plies cannot win Connect Four: every game is adjudicated a draw at the cap
    table, data = match(
        "connect4", "random:1", "random:2", "--games", "4", "--openings", "fixed",
        "--max-plies", "6",
    )  # fmt: skip
    assert [row["draws"] for row in data["standings"]] == [4, 4]
    assert data["adjudicated"] == {"6 plies": 4}
    assert "Adjudicated: 4 of 4 games (6 plies: 4)" in table
    # without the option, no column and no line: the table is as it was
    table, data = match("connect4", "random:1", "random:2", "--games", "2")
    assert "adjud." not in table and "Adjudicated" not in table
    assert data["adjudicated"] == {}


def test_the_web_standings_show_adjudicated_games_only_when_there_are_some() -> None:
    from hub.web.standings import standings_table

    row = {"rank": 1, "player": "a", "games": 2, "wins": 2, "draws": 0, "losses": 0,
           "points": 2, "score": 1.0, "score_margin": None, "timeouts": 0, "illegal": 0,
           "crashes": 0, "aborted": 0, "adjudicated": 2}  # fmt: skip
    shown = standings_table({"standings": [row], "adjudicated": {"resign score": 2}})
    assert "adjud&shy;icated</th>" in shown and shown.count("<td") == 12
    plain = standings_table({"standings": [row], "adjudicated": {}})
    assert "adjud" not in plain and plain.count("<td") == 11
