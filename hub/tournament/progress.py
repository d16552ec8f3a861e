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

from hub.core.output import write_all
from hub.tournament.runner import MatchReport
from hub.tournament.stats import Interval

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
    return " ".join(
        f"{name} {player.points:g}" for name, player in zip(tally.names, tally.players, strict=True)
    )


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
    }.get(report.stopped, report.stopped or "")


def format_table(report: MatchReport) -> str:
    """The final table (two players: with Elo, LOS and the SPRT)."""
    schedule, tally = report.schedule, report.tally
    lines = [
        f"match {schedule.match_id}: {schedule.game}, {tally.games} of {len(schedule)} games "
        f"scored, {len(report.aborted)} aborted, {stop_text(report)} "
        f"({duration(report.elapsed)}, {report.backend})"
    ]
    many = len(tally.names) > 2
    width = max([len("player"), *(len(name) for name in tally.names)])
    header = f"{'rank':>4}  {'player':<{width}}  {'games':>5}  {'W':>4}  {'D':>4}  {'L':>4}  "
    header += f"{'points':>7}  {'score':<16}"
    if many:
        header += f"  {'game score':>10}"
    lines.append(header.rstrip())
    for line in tally.standings():
        row = (
            f"{line.rank:>4}  {line.name:<{width}}  {line.wins + line.draws + line.losses:>5}  "
            f"{line.wins:>4}  {line.draws:>4}  {line.losses:>4}  {line.points:>7g}  "
            f"{_score_text(line.score):<16}"
        )
        if many:
            row += f"  {line.game_score:>10g}"
        lines.append(row.rstrip())
    elo = tally.head_to_head()
    if elo is not None:
        lines.append(
            f"Elo difference ({tally.names[0]} vs {tally.names[1]}): {_signed(elo.elo)} ± "
            f"{elo.margin:.1f}, LOS {_percent(elo.los)}, draws {_percent(elo.draws / elo.games)}"
        )
    if report.sprt is not None and report.sprt_state is not None:
        state = report.sprt_state
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}
        lines.append(
            f"SPRT ({report.sprt.describe()}): LLR {state.llr:.2f} "
            f"({state.lower:.2f}, {state.upper:.2f}): {verdict[state.verdict]}"
        )
    for aborted in report.aborted:
        lines.append(f"aborted: game {aborted.index}: {aborted.reason}")
    if report.error:
        lines.append(f"error: {report.error}")
    return "\n".join(lines) + "\n"


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
                "score_margin": None if line.score is None else line.score.margin,
            }
            for line in tally.standings()
        ],
        "elo": None,
        "sprt": None,
    }
    elo = tally.head_to_head()
    if elo is not None:
        data["elo"] = {
            "player": tally.names[0],
            "opponent": tally.names[1],
            "diff": _finite(elo.elo),
            "margin": _finite(elo.margin),
            "los": elo.los,
        }
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
        }
    return data
