"""``hub games ratings``: maximum-likelihood Elo (the BayesElo model) from recorded games.

Games are simulated from known ratings and a known draw parameter with a seeded
`random.Random`, written as records, and rated through the command: the ratings come back
within their own 95% margins, and agree to 1 Elo with an independent fit written here (plain
coordinate ascent on the log-posterior, derivatives by finite differences).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

from hub.core.values import PlayerInfo
from hub.records.elo import PRIOR_ELO, RatingError, fit
from hub.records.results import PairTally, pair_results
from hub.records.store import RecordStore
from tests.records.helpers import chess_record
from tests.records.test_cli import Capture, run

TRUE = {"alpha": 0.0, "bravo": 120.0, "charlie": -180.0, "delta": 260.0, "echo": -60.0}
DRAW = 110.0
GAMES_PER_PAIR = 240


def expected(x: float) -> float:
    return 1 / (1 + 10 ** (-x / 400))


def simulate(seed: int, advantage: float = 0.0) -> list[tuple[tuple[str, str], tuple[int, ...]]]:
    """Round-robin games between the `TRUE` players, colours alternating; the first seat
    has ``advantage`` Elo."""
    rng = random.Random(seed)
    names = sorted(TRUE)
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for number in range(GAMES_PER_PAIR):
                seats = (a, b) if number % 2 == 0 else (b, a)
                d = TRUE[seats[0]] - TRUE[seats[1]] + advantage
                p_win, p_loss = expected(d - DRAW), expected(-d - DRAW)
                u = rng.random()
                winners = (0,) if u < p_win else (1,) if u < p_win + p_loss else (0, 1)
                games.append((seats, winners))
    return games


def write(path: Path, games: Sequence[tuple[tuple[str, str], tuple[int, ...]]]) -> None:
    base = chess_record()
    with RecordStore.open(path) as store:
        store.add_all(
            attrs.evolve(
                base,
                game_id=f"g{number:05d}",
                players=[PlayerInfo(name, "engine", name, f"uci:{name}") for name in seats],
                winners=winners,
                ended_at=base.ended_at + number,
            )
            for number, (seats, winners) in enumerate(games)
        )


def independent_fit(
    games: Sequence[tuple[tuple[str, str], tuple[int, ...]]], prior: float
) -> tuple[dict[str, float], float]:
    """The same log-posterior, maximised one variable at a time (Newton's method along each
    coordinate, derivatives by central differences), ratings shifted to a mean of 0."""
    names = sorted(TRUE)
    counts: dict[tuple[str, str, str], int] = {}
    for (a, b), winners in games:
        outcome = "draw" if len(winners) == 2 else "win" if winners == (0,) else "loss"
        counts[(a, b, outcome)] = counts.get((a, b, outcome), 0) + 1

    def log_posterior(ratings: dict[str, float], draw: float) -> float:
        total = -sum(r * r for r in ratings.values()) / (2 * prior * prior)
        for (a, b, outcome), count in counts.items():
            d = ratings[a] - ratings[b]
            p_win, p_loss = expected(d - draw), expected(-d - draw)
            p = {"win": p_win, "loss": p_loss, "draw": 1 - p_win - p_loss}[outcome]
            total += count * math.log(p)
        return total

    ratings = dict.fromkeys(names, 0.0)
    draw = 50.0
    h = 1e-3
    for _ in range(500):
        largest = 0.0
        for key in [*names, "draw"]:

            def at(value: float, key: str = key, draw: float = draw) -> float:
                if key == "draw":
                    return log_posterior(ratings, value)
                return log_posterior({**ratings, key: value}, draw)

            x = draw if key == "draw" else ratings[key]
            first = (at(x + h) - at(x - h)) / (2 * h)
            second = (at(x + h) - 2 * at(x) + at(x - h)) / (h * h)
            step = -first / second if second < 0 else first
            step = max(-50.0, min(50.0, step))
            if key == "draw":
                draw = x + step
            else:
                ratings[key] = x + step
            largest = max(largest, abs(step))
        if largest < 1e-4:
            break
    mean = sum(ratings.values()) / len(ratings)
    return {name: rating - mean for name, rating in ratings.items()}, draw


def test_known_ratings_come_back_within_their_margins(capfd: Capture, tmp_path: Path) -> None:
    games = simulate(seed=2024)
    db = tmp_path / "games.db"
    write(db, games)
    status, out, err = run(
        capfd, "ratings", "chess", "--json", "--anchor", "alpha", "--db", str(db)
    )
    assert status == 0, err
    result = json.loads(out)
    assert result["games"] == len(games) and result["anchor"] == "uci:alpha"
    players = {player["name"]: player for player in result["players"]}
    assert set(players) == set(TRUE)
    for name, player in players.items():
        assert player["games"] == 4 * GAMES_PER_PAIR
        assert abs(player["rating"] - TRUE[name]) <= player["margin"], name
        if name != "alpha":
            assert 15 < player["margin"] < 60  # a real margin, not a token one
    assert players["alpha"]["rating"] == 0 and players["alpha"]["margin"] == 0
    assert abs(result["draw"] - DRAW) <= result["draw_margin"]
    assert [player["name"] for player in result["players"]] == sorted(
        TRUE, key=lambda name: -TRUE[name]
    )


ADVANTAGE = 80.0


def test_a_first_move_advantage_is_fitted_and_the_players_recovered(
    capfd: Capture, tmp_path: Path
) -> None:
    """BayesElo's ``advantage``: simulated with 80 Elo for the first seat, the fit finds it
    and every player within their margins; told there is none, it says so."""
    games = simulate(seed=11, advantage=ADVANTAGE)
    db = tmp_path / "games.db"
    write(db, games)
    status, out, err = run(capfd, "ratings", "--json", "--anchor", "alpha", "--db", str(db))
    assert status == 0, err
    result = json.loads(out)
    assert result["advantage_fitted"] is True
    assert abs(result["advantage"] - ADVANTAGE) <= result["advantage_margin"] < 40
    for player in result["players"]:
        assert abs(player["rating"] - TRUE[player["name"]]) <= player["margin"], player["name"]
    assert abs(result["draw"] - DRAW) <= result["draw_margin"]
    status, out, _ = run(capfd, "ratings", "--db", str(db))
    assert "first-move advantage " in out.splitlines()[0] and "(fitted)" in out.splitlines()[0]
    status, out, _ = run(capfd, "ratings", "--advantage", "0", "--json", "--db", str(db))
    given = json.loads(out)
    assert (given["advantage"], given["advantage_fitted"], given["advantage_given"]) == (
        0.0, False, True
    )  # fmt: skip
    status, out, _ = run(capfd, "ratings", "--advantage", "0", "--db", str(db))
    assert ", first-move advantage 0.0 Elo (given), " in out.splitlines()[0]


def test_an_advantage_the_seats_cannot_tell_is_not_fitted() -> None:
    # a always first, b always second: a's edge and the first seat's are one number
    games = [(("a", "b"), (0,))] * 6 + [(("a", "b"), (1,))] * 3
    rated = fit(games)
    assert not rated.advantage_fitted and not rated.advantage_given
    assert rated.advantage == 0.0
    # once b has been first too, it is
    assert fit([*games, (("b", "a"), (0,)), (("b", "a"), (1,))]).advantage_fitted


def test_groups_that_never_met_are_listed_apart(capfd: Capture, tmp_path: Path) -> None:
    games = [
        (("alpha", "bravo"), (0,)), (("bravo", "alpha"), (0, 1)), (("alpha", "bravo"), (1,)),
        (("bravo", "charlie"), (0,)), (("charlie", "bravo"), (1,)),
        (("delta", "echo"), (0,)), (("echo", "delta"), (0,)), (("delta", "echo"), (0,)),
    ]  # fmt: skip
    rated = fit(games)
    assert rated.groups == 2
    groups = {player.identity: player.group for player in rated.players}
    assert groups == {"alpha": 0, "bravo": 0, "charlie": 0, "delta": 1, "echo": 1}
    # each group is centred on its own mean
    for number in (0, 1):
        ratings = [p.rating for p in rated.players if p.group == number]
        assert sum(ratings) == pytest.approx(0, abs=1e-6)
    db = tmp_path / "games.db"
    write(db, games)
    status, out, _ = run(capfd, "ratings", "chess", "--db", str(db))
    assert status == 0
    lines = out.splitlines()
    assert "mean rating 0 in each group" in lines[0]
    assert lines[1].startswith("  group 1 of 2: 3 player(s) who never met the other groups'")
    assert [line.split()[1] for line in lines[3:6]] == ["bravo", "alpha", "charlie"]
    assert lines[6].startswith("  group 2 of 2: 2 player(s)")
    assert [line.split()[:2] for line in lines[8:10]] == [["1", "delta"], ["2", "echo"]]
    status, out, _ = run(capfd, "ratings", "chess", "--json", "--db", str(db))
    data = json.loads(out)
    assert data["groups"] == 2
    assert [(p["group"], p["rank"]) for p in data["players"]] == [
        (0, 1), (0, 2), (0, 3), (1, 1), (1, 2)
    ]  # fmt: skip
    # the anchor's group is the first; the others keep their own mean
    status, out, _ = run(capfd, "ratings", "chess", "--anchor", "echo", "--json", "--db", str(db))
    data = json.loads(out)
    assert data["players"][0]["group"] == 0 and {p["name"] for p in data["players"][:2]} == {
        "delta", "echo"
    }  # fmt: skip
    status, out, _ = run(capfd, "stats", "--db", str(db))
    assert "2 groups of players never met one another" in out


def test_the_fit_agrees_with_an_independent_one_to_one_elo(capfd: Capture, tmp_path: Path) -> None:
    games = simulate(seed=7)
    db = tmp_path / "games.db"
    write(db, games)
    status, out, _ = run(capfd, "ratings", "--json", "--db", str(db))
    assert status == 0
    result = json.loads(out)
    mine, draw = independent_fit(games, PRIOR_ELO)
    for player in result["players"]:
        assert abs(player["rating"] - mine[player["name"]]) < 1.0, player["name"]
    assert abs(sum(player["rating"] for player in result["players"])) < 1e-6  # mean 0
    assert abs(result["draw"] - draw) < 1.0
    # The text table says the same.
    status, out, _ = run(capfd, "ratings", "chess", "--db", str(db))
    lines = out.splitlines()
    assert lines[0].startswith(f"chess: {len(games)} game(s), 5 player(s), draw parameter ")
    assert lines[1].split() == ["rank", "player", "Elo", "±", "games", "score", "identity"]
    assert lines[2].split()[:3] == ["1", "delta", f"{round(result['players'][0]['rating']):+d}"]


def test_multi_player_games_are_pairs_of_seats() -> None:
    # Seat 0 won a 3-seat game: it beat both others; the two losers are not compared.
    assert pair_results([(("a", "b", "c"), (0,))]) == {
        ("a", "b"): PairTally(1, 0, 0),
        ("a", "c"): PairTally(1, 0, 0),
    }
    # A shared win draws the winners and beats the rest; nobody winning draws everyone.
    # Pairs are kept in seat order (the first-move advantage), from the first's side.
    assert pair_results([(("c", "b", "a"), (0, 1)), (("a", "b"), ())]) == {
        ("c", "b"): PairTally(0, 1, 0),
        ("c", "a"): PairTally(1, 0, 0),
        ("b", "a"): PairTally(1, 0, 0),
        ("a", "b"): PairTally(0, 1, 0),
    }


def test_perfect_scores_need_the_prior() -> None:
    games = [(("a", "b"), (0,))] * 3
    rated = fit(games)
    assert rated.players[0].identity == "a" and math.isfinite(rated.players[0].rating)
    assert rated.players[0].rating > 0 > rated.players[1].rating
    with pytest.raises(RatingError, match="a, b won or lost every result"):
        fit(games, prior=0)


def test_without_a_prior_it_is_pure_maximum_likelihood() -> None:
    # Two players, no draws: the ML difference is 400 log10(wins / losses) exactly.
    games = [(("a", "b"), (0,))] * 30 + [(("b", "a"), (0,))] * 10
    rated = fit(games, prior=0, advantage=0, anchor="b", anchor_rating=1000)
    ratings = {player.identity: player.rating for player in rated.players}
    assert ratings["b"] == 1000
    assert ratings["a"] - 1000 == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert rated.draw == 0 and rated.draw_margin == 0


def test_ratings_usage_and_errors(capfd: Capture, tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    write(db, [(("alpha", "bravo"), (0,))])
    status, _, err = run(capfd, "ratings", "--prior", "0", "--db", str(db))
    assert status == 1 and "cannot rate the games" in err
    status, _, err = run(capfd, "ratings", "--anchor", "nobody", "--db", str(db))
    assert status == 1 and "no anchor" in err
    status, _, err = run(capfd, "ratings", "--draw", "-5", "--db", str(db))
    assert status == 2 and "not above 0" in err
    status, out, _ = run(capfd, "ratings", "kalah", "--db", str(db))
    assert status == 0 and out.startswith("no games recorded")


def test_players_who_never_met_the_others_do_not_widen_their_margins() -> None:
    games = [(("a", "b"), (0,)), (("b", "a"), (0,)), (("a", "b"), (0, 1)), (("b", "c"), (1,))]
    alone = {p.identity: p.margin for p in fit(games, draw=100, advantage=0).players}
    apart = [(("x", "y"), (0,)), (("y", "x"), (0, 1)), (("x", "x"), (1,))]
    both = fit(games + apart, draw=100, advantage=0)
    margins = {player.identity: player.margin for player in both.players}
    for name in ("a", "b", "c"):
        assert margins[name] == pytest.approx(alone[name], rel=1e-3)
    assert both.groups == 2 and both.self_play == 1


def test_a_first_mover_who_won_every_game_leaves_the_advantage_undetermined_not_the_list() -> None:
    """Two games, each won by its first mover: the games cannot tell the first-move advantage
    from the players' strengths, so the list is the one without it and says so."""
    from hub.records.elo import fit

    games = [(("g/a", "g/b"), (0,)), (("g/b", "g/a"), (0,))]
    rated = fit(games)
    assert not rated.advantage_fitted and not rated.advantage_given
    assert [round(player.rating) for player in rated.players] == [0, 0]
