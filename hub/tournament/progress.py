"""What ``hub match`` shows: a live progress line on stderr, the final table (or JSON) on stdout.

The progress line (`ProgressLine`) says games done of the total, the running score (``+W -L
=D`` of the first player for two, points for more), games per second and the ETA. On a
terminal it is redrawn in place (``\\r`` and clear-to-end-of-line) at most every
`TTY_INTERVAL` seconds; otherwise (a log file, a pipe) it is a plain line at most every
`PLAIN_INTERVAL` seconds, plus the last one.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

from hub.core.io.output import write_all
from hub.tournament.elo import NO_SPREAD, TOO_FEW, EloEstimate, Interval
from hub.tournament.formats import GAUNTLET, KNOCKOUT, ROUND_ROBIN, SWISS, TABLES
from hub.tournament.runner import MatchReport
from hub.tournament.standings import Crosstable, Rating
from hub.tournament.tally import Tally

RUNNING_LEADERS = 3
"""Players the progress line names in a field of more than one more than this."""
TTY_INTERVAL = 0.1
PLAIN_INTERVAL = 10.0


def duration(seconds: float) -> str:
    """``1:02:03``, ``2:03`` or ``0:05``."""
    if not math.isfinite(seconds):
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def completed(report: MatchReport) -> int:
    """Games of the schedule that have been played (by earlier runs too), aborted included."""
    return len(report.schedule) - report.planned + report.done


def running_score(report: MatchReport) -> str:
    tally = report.tally
    if len(tally.names) == 2:
        first = tally.players[0]
        return f"+{first.wins} -{first.losses} ={first.draws}"
    scores = list(zip(tally.names, tally.players, strict=True))
    if len(scores) > RUNNING_LEADERS + 1:  # (a field: its leaders, so the line stays one line)
        scores = sorted(scores, key=lambda score: -score[1].points)[:RUNNING_LEADERS]
        return "leaders " + ", ".join(f"{name} {player.points:g}" for name, player in scores)
    return " ".join(f"{name} {player.points:g}" for name, player in scores)


def progress_text(report: MatchReport) -> str:
    elapsed = report.elapsed
    rate = report.done / elapsed if elapsed > 0 else 0.0
    left = report.planned - report.done
    eta = left / rate if rate > 0 else math.inf
    parts = [
        f"games {completed(report)}/{len(report.schedule)}",
        running_score(report),
        f"{rate:.2f} games/s",
        f"ETA {duration(eta) if left else '0:00'}",
    ]
    if report.running:
        parts.append(f"{report.running} running")
    if report.aborted:
        parts.append(f"{len(report.aborted)} aborted")
    if report.sprt_state is not None:
        parts.append(f"LLR {report.sprt_state.llr:.2f}")
    return "  ".join(parts)


class ProgressLine:
    """The live progress line on ``fd`` (stderr)."""

    def __init__(
        self,
        fd: int = 2,
        *,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fd = fd
        self.tty = os.isatty(fd) if tty is None else tty
        self.clock = clock
        self.interval = TTY_INTERVAL if self.tty else PLAIN_INTERVAL
        self._last = -math.inf
        self._drawn = False
        self._pending = ""

    def update(self, report: MatchReport, *, force: bool = False) -> None:
        now = self.clock()
        text = progress_text(report)
        if not force and now - self._last < self.interval:
            self._pending = text
            return
        self._write(text)
        self._last = now

    def _write(self, text: str) -> None:
        self._pending = ""
        if self.tty:
            write_all(self.fd, f"\r{text}\x1b[K".encode())
            self._drawn = True
        else:
            write_all(self.fd, f"{text}\n".encode())

    def close(self) -> None:
        """Show the last state, then end the line (so later output starts afresh)."""
        if self._pending:
            self._write(self._pending)
        if self._drawn:
            write_all(self.fd, b"\n")
            self._drawn = False


# -- the final table ------------------------------------------------------------------------------


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _score_text(score: Interval | None) -> str:
    if score is None:
        return "-"
    if score.degenerate:  # every game the same: the Wilson interval, not "± 0.0%"
        return f"{_percent(score.mean)} ({100 * score.low:.1f}-{_percent(score.high)})"
    return f"{_percent(score.mean)} ± {_percent(score.margin)}"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def stop_text(report: MatchReport) -> str:
    return {
        None: "complete",
        "sprt": "stopped by the SPRT",
        "interrupted": "interrupted",
        "error": "stopped by an error",
        "incomplete": "stopped: a stage has an aborted game (--resume plays it again)",
    }.get(report.stopped, report.stopped or "")


SCORE_WIDTH = 20
FAULT_COLUMNS = (("timeouts", "timeouts"), ("illegal", "illegal"), ("crashes", "crashes"),
                 ("aborted", "aborted"))  # fmt: skip
"""The per-player columns after the score: (header, `Standing` attribute)."""
ADJUDICATED_COLUMN = ("adjud.", "adjudicated")
"""The column of games decided by adjudication, shown after those when a game was."""


def _columns(tally: Tally) -> tuple[tuple[str, str], ...]:
    """The columns after the score for this tally: the faults', and adjudicated games' when
    there are any (a match without adjudication keeps its table as it was)."""
    if tally.adjudications:
        return (*FAULT_COLUMNS, ADJUDICATED_COLUMN)
    return FAULT_COLUMNS


def elo_text(elo: EloEstimate) -> str:
    """The Elo difference and its 95% interval, or a bound when there is no win or no loss."""
    if elo.bound is None:
        return f"{_signed(elo.elo)} ± {elo.margin:.1f}"
    if elo.bound in (NO_SPREAD, TOO_FEW):
        return (
            f"{_signed(elo.elo)}, between {_signed(elo.low)} and {_signed(elo.high)} "
            f"(95%, {elo.bound})"
        )
    if math.isinf(elo.low):
        return f"{elo.bound}: at most {_signed(elo.high)} (95%)"
    if math.isinf(elo.high):
        return f"{elo.bound}: at least {_signed(elo.low)} (95%)"
    return f"{elo.bound}: between {_signed(elo.low)} and {_signed(elo.high)} (95%)"


def nelo_text(elo: EloEstimate) -> str:
    """``, nElo +12.3 ± 4.5`` (fastchess's normalized Elo); empty when it is infinite."""
    if elo.nelo is None:
        return ""
    if elo.nelo_margin is None:
        return f", nElo {_signed(elo.nelo)}"
    return f", nElo {_signed(elo.nelo)} ± {elo.nelo_margin:.1f}"


def draws_text(elo: EloEstimate) -> str:
    """fastchess's draw ratio: of the games, or of the game pairs that scored one point of
    two (WL + DD) when the figures are the pairs'."""
    of = "pairs" if elo.model == "pentanomial" else "games"
    return f"draws {_percent(elo.draw_ratio)} of {of}"


def _counted(elo: EloEstimate) -> str:
    if elo.model == "pentanomial":
        return f"{elo.pairs} game pair{'s' if elo.pairs != 1 else ''}"
    return f"{elo.games} game{'s' if elo.games != 1 else ''}, no complete game pair"


def pairs_text(tally: Tally) -> str:
    counts = tally.pentanomial.counts()
    text = f"Game pairs of {tally.names[0]}: " + ", ".join(f"{k} {n}" for k, n in counts.items())
    if tally.unpaired:
        games = "game" if tally.unpaired == 1 else "games"
        text += f"; {tally.unpaired} {games} without its pair (in W/D/L only)"
    return text


def adjudicated_text(tally: Tally) -> str:
    """``Adjudicated: 3 of 10 games (resign score: 2, draw score: 1)``."""
    count = sum(tally.adjudications.values())
    how = ", ".join(f"{kind}: {n}" for kind, n in tally.adjudications.items())
    return f"Adjudicated: {count} of {tally.games} games ({how})"


def repeated_warning(tally: Tally) -> str | None:
    """The warning when some games were the same game again, None when all were distinct."""
    repeats = tally.compared - tally.distinct
    if repeats <= 0:
        return None
    return (
        f"warning: {repeats} of {tally.compared} games repeated an earlier game move for move, "
        "so the games are not independent and the figures above overstate what they show "
        "(play distinct openings: the default, or a larger --openings N)"
    )


def notes(report: MatchReport) -> list[str]:
    """The table's lines after the standings (and a tournament's crosstable): the Elo
    difference, game pairs and SPRT of two players, distinct games, warnings, aborted games."""
    schedule, tally = report.schedule, report.tally
    lines: list[str] = []
    elo = tally.head_to_head()
    if elo is not None and schedule.field is None:
        lines.append(
            f"Elo difference ({tally.names[0]} vs {tally.names[1]}): {elo_text(elo)}"
            f"{nelo_text(elo)}, LOS {_percent(elo.los)}, {draws_text(elo)} ({_counted(elo)})"
        )
    if len(tally.names) == 2 and (tally.pair_kinds or tally.unpaired):
        lines.append(pairs_text(tally))
    if report.sprt is not None and report.sprt_state is not None:
        state = report.sprt_state
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}
        lines.append(
            f"SPRT ({report.sprt.describe()}): LLR {state.llr:.2f} "
            f"({state.lower:.2f}, {state.upper:.2f}): {verdict[state.verdict]} "
            f"({'game pairs' if state.model == 'pentanomial' else 'games'})"
        )
    if tally.adjudications:
        lines.append(adjudicated_text(tally))
    if tally.compared:
        lines.append(f"Distinct games: {tally.distinct} of {tally.compared}")
    warning = repeated_warning(tally)
    if warning is not None:
        lines.append(warning)
    for aborted in report.aborted:
        lines.append(f"aborted: game {aborted.index}: {aborted.reason}")
    if report.error:
        lines.append(f"error: {report.error}")
    return lines


def summary_line(report: MatchReport, *, running: bool = False) -> str:
    """The table's first line: the match, its games, how it ended (or ``running``)."""
    schedule, tally = report.schedule, report.tally
    state = "running" if running else stop_text(report)
    return (
        f"match {schedule.match_id}: {schedule.game}, {tally.games} of {len(schedule)} games "
        f"scored, {len(report.aborted)} aborted, {state} "
        f"({duration(report.elapsed)}, {report.backend})"
    )


def format_table(report: MatchReport) -> str:
    """The final table (two players: with Elo, LOS, the game pairs and the SPRT)."""
    schedule, tally = report.schedule, report.tally
    lines = [summary_line(report)]
    many = len(tally.names) > 2
    cross = report.crosstable if schedule.field is not None else None
    ratings = cross.ratings() if cross is not None else None
    width = max([len("player"), *(len(name) for name in tally.names)])
    header = f"{'rank':>4}  {'player':<{width}}  {'games':>5}  {'W':>4}  {'D':>4}  {'L':>4}  "
    header += f"{'points':>7}  {'score':<{SCORE_WIDTH}}"
    if many:
        header += f"  {'game score':>10}"
    if ratings is not None:
        header += f"  {'Elo':>14}"
    columns = _columns(tally)
    header += "".join(f"  {title:>8}" for title, _ in columns)
    lines.append(header.rstrip())
    for line in tally.standings():
        row = (
            f"{line.rank:>4}  {line.name:<{width}}  {line.wins + line.draws + line.losses:>5}  "
            f"{line.wins:>4}  {line.draws:>4}  {line.losses:>4}  {line.points:>7g}  "
            f"{_score_text(line.score):<{SCORE_WIDTH}}"
        )
        if many:
            row += f"  {line.game_score:>10g}"
        if ratings is not None:
            row += f"  {rating_text(ratings[line.player]):>14}"
        row += "".join(f"  {getattr(line, name):>8}" for _, name in columns)
        lines.append(row.rstrip())
    if cross is not None:
        lines.extend(crosstable_lines(cross, report))
    lines.extend(notes(report))
    return "\n".join(lines) + "\n"


def rating_text(rating: Rating) -> str:
    return f"{rating.elo:+.0f} ± {rating.margin:.0f}"


def _points(value: float) -> str:
    whole, half = divmod(round(2 * value), 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def format_text(report: MatchReport) -> str:
    """The tournament's format and stages, one line."""
    schedule = report.schedule
    field = schedule.field
    if field is None:
        return ""
    plan = field.plan
    rounds, many = plan.rounds, plan.rounds != 1
    words = {
        ROUND_ROBIN: f"every pair meets {rounds} time{'s' if many else ''} (game pairs)",
        GAUNTLET: f"{plan.seeds} seed{'s' if plan.seeds != 1 else ''} against the rest, "
        f"{rounds} game pair{'s' if many else ''} each",
        SWISS: f"{rounds} round{'s' if many else ''} (game pairs)",
        KNOCKOUT: f"{rounds} game pair{'s' if many else ''} a match",
        TABLES: f"{rounds} stage{'s' if many else ''} of tables of {plan.table}",
    }
    if field.per_table:  # (the operator's round-robin: any number of games a pair)
        games = field.per_table * rounds
        words[plan.format] = f"every pair plays {games} game{'s' if games != 1 else ''}"
    text = f"Format: {plan.format}, {words[plan.format]}"
    winner = knockout_winner(report)
    if winner is not None:
        text += f"; the winner: {report.tally.names[winner]}"
    return text


def knockout_winner(report: MatchReport) -> int | None:
    """A finished knockout's winner."""
    field = report.schedule.field
    if field is None or field.plan.format != KNOCKOUT:
        return None
    return field.winner(report.points)


def crosstable_lines(cross: Crosstable, report: MatchReport) -> list[str]:
    """The format line and the crosstable: each player's points against each other player
    (of the games they played), the players in the order of the standings."""
    order = [line.player for line in report.tally.standings()]
    lines = [
        format_text(report),
        "Crosstable (points of the row's player against the column's, of games):",
    ]
    width = max([len("player"), *(len(name) for name in cross.names)])
    cells: list[list[str]] = []
    for player in order:
        row = []
        for other in order:
            cell = cross.cell(player, other)
            row.append(
                "-"
                if other == player
                else (f"{_points(cell.points)}/{cell.games}" if cell.games else ".")
            )
        cells.append(row)
    column = max([3, *(len(text) for row in cells for text in row)])
    lines.append(
        f"{'':>3}  {'player':<{width}}" + "".join(f"  {n + 1:>{column}}" for n in range(len(order)))
    )
    for n, (player, row) in enumerate(zip(order, cells, strict=True)):
        lines.append(
            f"{n + 1:>3}  {cross.names[player]:<{width}}"
            + "".join(f"  {text:>{column}}" for text in row)
        )
    return lines


def _ratings_by_rank(report: MatchReport) -> list[Rating]:
    assert report.crosstable is not None
    ratings = report.crosstable.ratings()
    return [ratings[line.player] for line in report.tally.standings()]


CELL_GAMES = 50
"""Games listed (with their ids) in one cell of the crosstable's JSON; the first ones."""


def tournament_json(report: MatchReport, cross: Crosstable) -> dict[str, Any]:
    """A tournament's part of ``--json``: its format, crosstable (by player, in the order
    given) and knockout winner."""
    field = report.schedule.field
    assert field is not None
    plan = field.plan
    names = cross.names
    winner = knockout_winner(report)
    stages = field.stages(report.points)
    return {
        "format": {
            "name": plan.format,
            "rounds": plan.rounds,
            "seeds": plan.seeds if plan.format == GAUNTLET else None,
            "table": plan.table,
            "stages": len(stages),
            "winner": None if winner is None else names[winner],
            "reached": None
            if (reached := field.reached(report.points)) is None
            else dict(zip(names, reached, strict=True)),
        },
        "crosstable": {
            "names": list(names),
            "order": [line.player for line in report.tally.standings()],
            "cells": [
                [
                    None
                    if other == player or not cross.cell(player, other).games
                    else {
                        "points": cross.cell(player, other).points,
                        "games": cross.cell(player, other).games,
                        "results": [
                            {"id": game, "points": points}
                            for game, points in cross.cell(player, other).results[:CELL_GAMES]
                        ],
                    }
                    for other in range(len(names))
                ]
                for player in range(len(names))
            ],
        },
    }


def history_json(report: MatchReport) -> dict[str, Any]:
    """The standings as games came in (the web page's chart): each point's games, every
    player's points, and the SPRT's LLR and bounds when one runs."""
    cross = report.crosstable
    sprt = report.sprt_state
    return {
        "names": list(report.tally.names),
        "history": []
        if cross is None
        else [
            {"games": point.games, "points": list(point.points), "llr": point.llr}
            for point in cross.history
        ],
        "llr_bounds": None if sprt is None else [sprt.lower, sprt.upper],
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def report_json(report: MatchReport) -> dict[str, Any]:
    """``--json``: one object with the same content as the table."""
    schedule, tally = report.schedule, report.tally
    data: dict[str, Any] = {
        "match_id": schedule.match_id,
        "game": schedule.game,
        "players": list(schedule.players),
        "settings": dict(schedule.settings),
        "seed": schedule.seed,
        "games": len(schedule),
        "scored": tally.games,
        "aborted": [{"index": a.index, "reason": a.reason} for a in report.aborted],
        "stopped": report.stopped,
        "error": report.error or None,
        "backend": report.backend,
        "seconds": round(report.elapsed, 3),
        "standings": [
            {
                "rank": line.rank,
                "player": line.name,
                "games": line.wins + line.draws + line.losses,
                "wins": line.wins,
                "draws": line.draws,
                "losses": line.losses,
                "points": line.points,
                "game_score": line.game_score,
                "score": None if line.score is None else line.score.mean,
                "score_margin": None
                if line.score is None or line.score.degenerate
                else line.score.margin,
                "score_low": None if line.score is None else line.score.low,
                "score_high": None if line.score is None else line.score.high,
                "timeouts": line.timeouts,
                "illegal": line.illegal,
                "crashes": line.crashes,
                "aborted": line.aborted,
                "adjudicated": line.adjudicated,
            }
            for line in tally.standings()
        ],
        "adjudicated": dict(tally.adjudications),
        "elo": None,
        "pairs": None,
        "sprt": None,
        "distinct_games": tally.distinct if tally.compared else None,
        "compared_games": tally.compared,
        "warnings": [text for text in (repeated_warning(tally),) if text is not None],
    }
    if schedule.field is not None and report.crosstable is not None:
        data.update(tournament_json(report, report.crosstable))
        for row, rating in zip(data["standings"], _ratings_by_rank(report), strict=True):
            row["elo"], row["elo_margin"] = round(rating.elo, 1), round(rating.margin, 1)
    elo = tally.head_to_head()
    if elo is not None and schedule.field is None:
        data["elo"] = {
            "player": tally.names[0],
            "opponent": tally.names[1],
            "diff": _finite(elo.elo),
            "margin": None if elo.bound is not None else _finite(elo.margin),
            "low": _finite(elo.low),
            "high": _finite(elo.high),
            "bound": elo.bound,
            "nelo": None if elo.nelo is None else _finite(elo.nelo),
            "nelo_margin": elo.nelo_margin,
            "los": elo.los,
            "draw_ratio": elo.draw_ratio,
            "model": elo.model,
            "games": elo.games,
            "pairs": elo.pairs,
        }
    if len(tally.names) == 2 and (tally.pair_kinds or tally.unpaired):
        data["pairs"] = {**tally.pentanomial.counts(), "unpaired": tally.unpaired}
    if report.sprt is not None and report.sprt_state is not None:
        data["sprt"] = {
            "elo0": report.sprt.elo0,
            "elo1": report.sprt.elo1,
            "alpha": report.sprt.alpha,
            "beta": report.sprt.beta,
            "llr": report.sprt_state.llr,
            "lower": report.sprt_state.lower,
            "upper": report.sprt_state.upper,
            "verdict": report.sprt_state.verdict,
            "model": report.sprt.model,
            "counted": report.sprt_state.model,
        }
    return data
