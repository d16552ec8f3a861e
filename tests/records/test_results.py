"""The one rule for results (`hub.records.results`), and `hub games stats` and `hub games
ratings` agreeing on recorded matches because both count with it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.cli import main
from hub.records.results import (
    DRAW,
    LOSS,
    WIN,
    PairTally,
    PlayerRecord,
    pair_results,
    player_records,
    player_results,
)

Capture = pytest.CaptureFixture[str]


def test_each_player_s_result() -> None:
    assert player_results(["a", "b"], [0]) == {"a": WIN, "b": LOSS}
    assert player_results(["a", "b"], [0, 1]) == {"a": DRAW, "b": DRAW}  # a drawn chess game
    assert player_results(["a", "b"], []) == {"a": DRAW, "b": DRAW}  # nobody won
    assert player_results(["a", "b", "c"], [2]) == {"a": LOSS, "b": LOSS, "c": WIN}
    assert player_results(["a", "b", "c", "d"], [0, 3]) == {
        "a": WIN,
        "b": LOSS,
        "c": LOSS,
        "d": WIN,
    }
    # several seats of one identity are one player; a game of one player has no result
    assert player_results(["a", "b", "a"], [2]) == {"a": WIN, "b": LOSS}
    assert player_results(["a", "a"], [0]) == {}


def test_the_losers_of_a_game_someone_else_won_are_not_compared() -> None:
    assert pair_results([(["a", "b", "c"], [1])]) == {
        ("a", "b"): PairTally(losses=1),
        ("b", "c"): PairTally(wins=1),
    }
    # nobody won: everyone drew everyone
    assert pair_results([(["a", "b", "c"], [])]) == {
        ("a", "b"): PairTally(draws=1),
        ("a", "c"): PairTally(draws=1),
        ("b", "c"): PairTally(draws=1),
    }


def test_player_records_count_self_play_in_games_only() -> None:
    records = player_records([(["a", "a"], [0]), (["a", "b"], [1]), (["b", "c", "a"], [])])
    assert records == {
        "a": PlayerRecord("a", games=3, losses=1, draws=1, self_play=1),
        "b": PlayerRecord("b", games=2, wins=1, draws=1),
        "c": PlayerRecord("c", games=1, draws=1),
    }
    assert records["a"].score == 0.25 and PlayerRecord("x").score == 0.0


@given(st.lists(st.tuples(st.booleans(), st.sampled_from([(0,), (1,), (0, 1), ()])), max_size=30))
def test_with_two_players_the_pairs_are_the_players_results(
    games: list[tuple[bool, tuple[int, ...]]],
) -> None:
    """The pair tallies (seat order kept) add up to each player's W/D/L."""
    seated = [(["a", "b"] if a_first else ["b", "a"], winners) for a_first, winners in games]
    records = player_records(seated)
    pairs = pair_results(seated)
    ab, ba = pairs.get(("a", "b"), PairTally()), pairs.get(("b", "a"), PairTally())
    if games:
        a = records["a"]
        assert (a.wins, a.draws, a.losses) == (
            ab.wins + ba.losses, ab.draws + ba.draws, ab.losses + ba.wins
        )  # fmt: skip


def table_rows(out: str) -> dict[str, list[str]]:
    """A table's rows by their last cell (the identity)."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]
    return {row[-1]: row for row in rows if len(row) > 3 and "/" in row[-1]}


@pytest.mark.parametrize(
    "players",
    [("random", "random:3", "ai:1"), ("random", "random:3", "random:4", "ai:1")],
)
def test_stats_and_ratings_agree_on_a_recorded_clubs_match(
    capfd: Capture, tmp_path: Path, players: tuple[str, ...]
) -> None:
    db = str(tmp_path / "games.db")
    assert main(["match", "clubs", *players, "--games", "12", "--seed", "5", "--db", db]) == 0
    capfd.readouterr()
    assert main(["games", "stats", "--db", db]) == 0
    stats = table_rows(capfd.readouterr().out)
    assert main(["games", "ratings", "--json", "--db", db]) == 0
    rated = json.loads(capfd.readouterr().out)
    assert len(stats) == len(rated["players"]) == len(players)
    wins = 0
    for player in rated["players"]:
        row = stats[player["identity"]]
        # player, games, W, D, L, score, Elo, identity: the same figures in both
        assert row[1:7] == [
            str(player["games"]),
            str(player["wins"]),
            str(player["draws"]),
            str(player["losses"]),
            f"{100 * player['score']:.1f}%",
            f"{round(player['rating']):+d}",
        ], player["identity"]
        assert player["games"] == 12
        wins += player["wins"]
    assert wins >= 12  # every game has a winner (two when they tie on points)


def test_stats_and_ratings_agree_on_two_player_games(capfd: Capture, tmp_path: Path) -> None:
    db = str(tmp_path / "games.db")
    args = ["match", "connect4", "random", "random:9", "--games", "10", "--seed", "3"]
    assert main([*args, "--db", db]) == 0
    capfd.readouterr()
    assert main(["games", "stats", "--db", db]) == 0
    stats = table_rows(capfd.readouterr().out)
    assert main(["games", "ratings", "--json", "--db", db]) == 0
    rated = json.loads(capfd.readouterr().out)
    assert {"connect4/random", "connect4/random:9"} == set(stats)
    for player in rated["players"]:
        row = stats[player["identity"]]
        assert row[2:5] == [str(player["wins"]), str(player["draws"]), str(player["losses"])]
        assert row[6] == f"{round(player['rating']):+d}"
