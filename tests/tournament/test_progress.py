"""The progress line (in place on a terminal, occasional plain lines otherwise) and the
final table and JSON, from a report built by hand."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from hub.tournament.elo import Sprt
from hub.tournament.progress import ProgressLine, duration, format_table, report_json
from hub.tournament.runner import Aborted, MatchReport
from hub.tournament.tally import GameOutcome, Tally
from tests.tournament.helpers import schedule


def report(
    wins: int, draws: int, losses: int, *, games: int = 20, paired: bool = False
) -> MatchReport:
    """A's results in that order; ``paired``: games 2r and 2r + 1 are a pair with the seats
    swapped, as a match plays them."""
    results = [(0,)] * wins + [(0, 1)] * draws + [(1,)] * losses
    return report_of([(index // 2 if paired else None, won) for index, won in enumerate(results)],
                     games=games)  # fmt: skip


def report_of(
    results: list[tuple[int | None, tuple[int, ...]]], *, games: int = 20, **outcome: Any
) -> MatchReport:
    """A report of games given as (round or None, the winning players)."""
    plan = schedule(["a", "b"], games)
    tally = Tally(("a", "b"))
    for index, (round_, winners) in enumerate(results):
        seating = (1, 0) if round_ is not None and index % 2 else (0, 1)
        seats = tuple(seating.index(player) for player in winners)
        tally.add(GameOutcome(seating, winners=seats, round=round_, **outcome))
    result = MatchReport(plan, tally, backend="in-process", planned=games, done=len(results))
    result.started, result.finished_at = 100.0, 110.0
    return result


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def read_all(fd: int) -> str:
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 65536).decode()
    except BlockingIOError:
        return ""


def test_plain_lines_are_occasional() -> None:
    read, write = os.pipe()
    clock = Clock()
    line = ProgressLine(write, tty=False, clock=clock)
    line.update(report(1, 0, 0))
    clock.now = 5.0
    line.update(report(2, 0, 0))  # too soon: kept for later
    clock.now = 10.0
    line.update(report(3, 1, 0))
    clock.now = 11.0
    line.update(report(3, 1, 1))
    line.close()  # the last state is always shown
    text = read_all(read)
    os.close(read)
    os.close(write)
    assert text.splitlines() == [
        "games 1/20  +1 -0 =0  0.10 games/s  ETA 3:10",
        "games 4/20  +3 -0 =1  0.40 games/s  ETA 0:40",
        "games 5/20  +3 -1 =1  0.50 games/s  ETA 0:30",
    ]


def test_a_terminal_line_is_redrawn_in_place() -> None:
    read, write = os.pipe()
    clock = Clock()
    line = ProgressLine(write, tty=True, clock=clock)
    line.update(report(1, 0, 0))
    clock.now = 1.0
    line.update(report(2, 0, 0))
    line.close()
    text = read_all(read)
    os.close(read)
    os.close(write)
    assert text == (
        "\rgames 1/20  +1 -0 =0  0.10 games/s  ETA 3:10\x1b[K"
        "\rgames 2/20  +2 -0 =0  0.20 games/s  ETA 1:30\x1b[K\n"
    )


HEADER = ["rank", "player", "games", "W", "D", "L", "points", "score",
          "timeouts", "illegal", "crashes", "aborted"]  # fmt: skip


def test_the_table() -> None:
    result = report(12, 5, 3)
    result.aborted.append(Aborted(7, "the worker died (exit status 9)"))
    result.sprt = Sprt(0, 5)
    result.sprt_state = result.sprt.state(12, 5, 3)
    lines = format_table(result).splitlines()
    assert lines[0] == (
        f"match {result.schedule.match_id}: tests.examples.tictactoe_kit:kit, 20 of 20 games "
        "scored, 1 aborted, complete (0:10, in-process)"
    )
    assert lines[1].split() == HEADER
    assert lines[2].split() == ["1", "a", "20", "12", "5", "3", "14.5", "72.5%", "±", "16.2%",
                                "0", "0", "0", "0"]  # fmt: skip
    assert lines[3].split() == ["2", "b", "20", "3", "5", "12", "5.5", "27.5%", "±", "16.2%",
                                "0", "0", "0", "0"]  # fmt: skip
    # without game pairs (not a match's schedule): the games as independent (trinomial)
    assert lines[4] == (
        "Elo difference (a vs b): +168.4 ± 157.1, nElo +211.3 ± 152.3, LOS 99.0%, "
        "draws 25.0% of games (20 games, no complete game pair)"
    )
    assert lines[5].startswith("SPRT (elo0=0,elo1=5,alpha=0.05,beta=0.05,model=normalized): LLR ")
    assert lines[5].endswith("(-2.94, 2.94): no decision yet (games)")
    assert lines[6] == "aborted: game 7: the worker died (exit status 9)"


PAIRS = {"LL": 34, "LD": 54, "WL": 31, "DD": 32, "WD": 64, "WW": 75}
"""fastchess's test "EloPentanomial 1" (app/tests/elo_test.cpp): 55.58 +/- 27.65, LOS 100 %."""
GAMES_OF = {"LL": [(1,), (1,)], "LD": [(1,), (0, 1)], "WL": [(0,), (1,)],
            "DD": [(0, 1), (0, 1)], "WD": [(0,), (0, 1)], "WW": [(0,), (0,)]}  # fmt: skip


def paired_report() -> MatchReport:
    results: list[tuple[int | None, tuple[int, ...]]] = []
    for kind, count in PAIRS.items():
        for _ in range(count):
            results += [(len(results) // 2, winners) for winners in GAMES_OF[kind]]
    return report_of(results, games=len(results))


def test_the_table_of_game_pairs() -> None:
    result = paired_report()
    result.sprt = Sprt(0, 5)
    result.sprt_state = result.tally.sprt_state(result.sprt)
    lines = format_table(result).splitlines()
    wins = 2 * PAIRS["WW"] + PAIRS["WD"] + PAIRS["WL"]
    draws = PAIRS["LD"] + 2 * PAIRS["DD"] + PAIRS["WD"]
    assert lines[2].split()[:6] == ["1", "a", "580", str(wins), str(draws), str(580 - wins - draws)]
    assert lines[4] == (
        "Elo difference (a vs b): +55.6 ± 27.7, nElo +57.9 ± 28.3, LOS 100.0%, "
        "draws 21.7% of pairs (290 game pairs)"
    )
    assert lines[5] == "Game pairs of a: LL 34, LD 54, WL 31, DD 32, WD 64, WW 75"
    assert lines[6].endswith("LLR 1.30 (-2.94, 2.94): no decision yet (game pairs)")
    data = report_json(result)
    assert data["pairs"] == {**PAIRS, "unpaired": 0}
    assert data["elo"]["model"] == "pentanomial" and data["elo"]["pairs"] == 290
    assert (round(data["elo"]["diff"], 2), round(data["elo"]["margin"], 2)) == (55.58, 27.65)
    assert (data["elo"]["nelo"], data["elo"]["draw_ratio"]) == (
        pytest.approx(57.94, abs=0.005),
        pytest.approx(63 / 290),
    )
    assert (data["sprt"]["model"], data["sprt"]["counted"]) == ("normalized", "pentanomial")
    # the logistic model, as hub used by default before: the same pairs, another LLR
    result.sprt = Sprt(0, 5, model="logistic")
    result.sprt_state = result.tally.sprt_state(result.sprt)
    assert (
        format_table(result)
        .splitlines()[6]
        .endswith("LLR 1.34 (-2.94, 2.94): no decision yet (game pairs)")
    )


def test_an_incomplete_pair_is_counted_in_the_games_only() -> None:
    result = report_of([(0, (0,)), (0, (0, 1)), (1, (1,))], games=4)
    lines = format_table(result).splitlines()
    assert lines[2].split()[:6] == ["1", "a", "3", "1", "1", "1"]
    assert lines[5] == (
        "Game pairs of a: LL 0, LD 0, WL 0, DD 0, WD 1, WW 0; 1 game without its pair "
        "(in W/D/L only)"
    )
    assert report_json(result)["pairs"]["unpaired"] == 1


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "elo"),
    [
        # Wilson: no point in 6 games is a score of at most z^2 / (6 + z^2) = 0.3903, an
        # Elo of at most -400 log10(1 / 0.3903 - 1) = -77.5
        (0, 0, 6, "no win yet: at most -77.5 (95%)"),
        (6, 0, 0, "no loss yet: at least +77.5 (95%)"),
        # 6 draws: 0.5 -+ z / (1 + z^2 / 6) sqrt(1/24 + z^2 / 144) = 0.1876 .. 0.8124
        (0, 6, 0, "no win or loss yet: between -254.6 and +254.6 (95%)"),
        (0, 2, 4, "no win yet: between -603.5 and +44.4 (95%)"),
    ],
)
def test_no_win_or_no_loss_is_a_finite_labelled_bound(
    wins: int, draws: int, losses: int, elo: str
) -> None:
    for paired in (False, True):
        result = report(wins, draws, losses, games=6, paired=paired)
        text = format_table(result)
        assert "inf" not in text and "± 0.0%" not in text and "nan" not in text
        line = text.splitlines()[4]
        assert line.startswith("Elo difference (a vs b): ")
        if not paired:  # the figures of 6 independent games (of 3 pairs: wider)
            assert line.startswith(f"Elo difference (a vs b): {elo}, ")
        label = elo.partition(":")[0]
        assert f": {label}: " in line
        data = json.loads(json.dumps(report_json(result)))
        assert data["elo"]["bound"] == label
        assert data["elo"]["margin"] is None
    # no win, but a finite normal interval (the 0 wins, 19 draws, 5 losses): kept
    line = format_table(report(0, 19, 5, games=24)).splitlines()[4]
    assert line.startswith("Elo difference (a vs b): -73.5 ± 59.7, nElo -178.2 ± 139.0, LOS ")
    # the score column gives the Wilson interval when every game scored the same
    rows = format_table(report(0, 0, 6, games=6)).splitlines()[2:4]
    assert rows[0].split()[7:9] == ["100.0%", "(61.0-100.0%)"]
    assert rows[1].split()[7:9] == ["0.0%", "(0.0-39.0%)"]


def test_time_losses_and_other_faults_show_per_player() -> None:
    results: list[tuple[int | None, tuple[int, ...]]] = [(None, (1,))] * 3
    result = report_of(results, games=3, fault="timeout", fault_seat=0)
    result.tally.add(GameOutcome((1, 0), winners=(1,), fault="illegal move", fault_seat=0))
    result.tally.add(GameOutcome((1, 0), winners=(1,), fault="disconnect", fault_seat=0))
    result.tally.add(GameOutcome((0, 1), aborted=True))
    lines = format_table(result).splitlines()
    rows = {line.split()[1]: line.split() for line in lines[2:4]}
    assert rows["a"][-4:] == ["3", "0", "0", "1"]  # timeouts, illegal, crashes, aborted
    assert rows["b"][-4:] == ["0", "1", "1", "1"]
    data = report_json(result)
    faults = {row["player"]: [row[k] for k in ("timeouts", "illegal", "crashes", "aborted")]
              for row in data["standings"]}  # fmt: skip
    assert faults == {"a": [3, 0, 0, 1], "b": [0, 1, 1, 1]}


def test_repeated_games_are_counted_and_warned_about() -> None:
    result = report_of([(None, (0,))] * 4, games=4, fingerprint="same")
    result.tally.add(GameOutcome((0, 1), winners=(1,), fingerprint="other"))
    lines = format_table(result).splitlines()
    assert "Distinct games: 2 of 5" in lines
    warning = next(line for line in lines if line.startswith("warning: "))
    assert "3 of 5 games repeated an earlier game move for move" in warning
    assert "not independent" in warning
    data = report_json(result)
    assert (data["distinct_games"], data["compared_games"]) == (2, 5)
    assert data["warnings"] == [warning]
    distinct = report_of([(None, (0,))], games=1, fingerprint="one")
    assert "warning" not in format_table(distinct)
    assert report_json(distinct)["warnings"] == []


def test_the_json_has_the_same_content() -> None:
    data = json.loads(json.dumps(report_json(report(12, 5, 3))))
    assert [line["player"] for line in data["standings"]] == ["a", "b"]
    assert data["standings"][0] | {"score_margin": 0, "score_low": 0, "score_high": 0} == {
        "rank": 1, "player": "a", "games": 20, "wins": 12, "draws": 5, "losses": 3,
        "points": 14.5, "game_score": 0.0, "score": 0.725, "score_margin": 0,
        "score_low": 0, "score_high": 0, "timeouts": 0, "illegal": 0, "crashes": 0,
        "aborted": 0, "adjudicated": 0,
    }  # fmt: skip
    assert round(data["elo"]["diff"], 1) == 168.4
    assert data["sprt"] is None and data["stopped"] is None


def test_durations() -> None:
    assert [duration(s) for s in (0, 59.6, 61, 3725)] == ["0:00", "1:00", "1:01", "1:02:05"]
