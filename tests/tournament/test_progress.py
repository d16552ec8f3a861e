"""The progress line (in place on a terminal, occasional plain lines otherwise) and the
final table and JSON, from a report built by hand."""

from __future__ import annotations

import json
import os

from hub.tournament.progress import ProgressLine, duration, format_table, report_json
from hub.tournament.runner import Aborted, MatchReport
from hub.tournament.stats import GameOutcome, Sprt, Tally
from tests.tournament.helpers import schedule


def report(wins: int, draws: int, losses: int, *, games: int = 20) -> MatchReport:
    plan = schedule(["a", "b"], games)
    tally = Tally(("a", "b"))
    for winners in [(0,)] * wins + [(0, 1)] * draws + [(1,)] * losses:
        tally.add(GameOutcome((0, 1), winners=winners))
    done = wins + draws + losses
    result = MatchReport(plan, tally, backend="in-process", planned=games, done=done)
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
    assert lines[2].split() == ["1", "a", "20", "12", "5", "3", "14.5", "72.5%", "±", "16.2%"]
    assert lines[3].split() == ["2", "b", "20", "3", "5", "12", "5.5", "27.5%", "±", "16.2%"]
    assert lines[4] == "Elo difference (a vs b): +168.4 ± 157.1, LOS 99.0%, draws 25.0%"
    assert lines[5].startswith("SPRT (elo0=0,elo1=5,alpha=0.05,beta=0.05): LLR ")
    assert lines[5].endswith("(-2.94, 2.94): no decision yet")
    assert lines[6] == "aborted: game 7: the worker died (exit status 9)"


def test_the_json_has_the_same_content() -> None:
    data = json.loads(json.dumps(report_json(report(12, 5, 3))))
    assert [line["player"] for line in data["standings"]] == ["a", "b"]
    assert data["standings"][0] | {"score_margin": 0} == {
        "rank": 1, "player": "a", "games": 20, "wins": 12, "draws": 5, "losses": 3,
        "points": 14.5, "game_score": 0.0, "score": 0.725, "score_margin": 0,
    }  # fmt: skip
    assert round(data["elo"]["diff"], 1) == 168.4
    assert data["sprt"] is None and data["stopped"] is None


def test_durations() -> None:
    assert [duration(s) for s in (0, 59.6, 61, 3725)] == ["0:00", "1:00", "1:01", "1:02:05"]
