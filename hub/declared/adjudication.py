"""Adjudication as engine testers use it (fastchess's and cutechess-cli's ``-resign``,
``-draw`` and a ply cap): ``hub match``'s ``--resign``, ``--draw`` and ``--max-plies``.

* `Adjudication` is the value the options give, recorded with every game in its settings
  (``"adjudication": {...}``, only when an option is given), so a resumed match adjudicates
  alike;
* `Adjudicator` is one game's adjudicator, the core match loop's ``adjudicate`` hook
  (`hub.core.play.vocabulary.Adjudicate`): after every move it reads the score the mover's seat
  reported for it (a seat's ``last_score``: centipawns from its own side, which a UCI engine's
  seat takes from its ``info ... score cp|mate`` lines, `hub.chess.seats.UciSeat`; a mate is
  ``hub.chess.uci.MATE_SCORE`` less its distance) and returns the outcome that ends the game,
  or None to play on. Seats that report no score (built-in AIs, people, most programs) never
  trigger ``--resign`` or ``--draw``: a game "can judge" when its players say what they think.

The rules (fastchess's, with the resignation two-sided as the opponent must agree):

* resign ``movecount=N score=CP`` (two-player games): a loss for the side whose last N moves
  each reported a score of at least CP against itself (``<= -CP``, or being mated) while the
  opponent's last N moves each reported at least CP for itself (``>= CP``, or mating);
* draw ``movenumber=K movecount=M score=CP``: a draw once at least K moves (2K plies for two
  players) were made and the last M moves of every seat each reported a score within CP of
  zero (a mate never is);
* max plies ``N``: a game that reaches N moves is adjudicated a draw (every seat shares the
  point); the scores the game keeps so far (Kalah's stores, clubs' points) stay in the record,
  but do not decide it, since nothing tells the core whether a game's score is better high or
  low (clubs' points are penalties). Chess has its own ``--max-plies`` (its opening's plies
  counted, ``adjudicated: N plies``), which the generic one then leaves alone.

The moves are counted from where the match began the game (an opening's plies are not
counted). An adjudicated outcome's termination is ``normal`` (nobody is at fault) and its
``detail`` starts with `ADJUDICATED` (``adjudicated: resign score``, ``adjudicated: draw
score``, ``adjudicated: 200 plies``): what the standings count, records keep and PGN tags as
``Termination "adjudication"``.
"""

from __future__ import annotations

import argparse
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub.core.model.referee import ADJUDICATED, Outcome, Termination
from hub.core.play.vocabulary import Fault, Moved

__all__ = [
    "ADJUDICATED",
    "Adjudication",
    "Adjudicator",
    "add_adjudication_options",
    "adjudication_of",
    "parse_draw",
    "parse_resign",
]

SETTING = "adjudication"
"""The key of a game's settings that holds its `Adjudication` (as `Adjudication.to_json`)."""
RESIGN_DETAIL = f"{ADJUDICATED}resign score"
DRAW_DETAIL = f"{ADJUDICATED}draw score"


def _words(text: str | Sequence[str]) -> dict[str, int]:
    """``movecount=3 score=600`` (or ``movecount=3,score=600``) as ``{"movecount": 3, ...}``;
    raises `ValueError` saying what is wrong."""
    if not isinstance(text, str):
        text = " ".join(text)
    found: dict[str, int] = {}
    for word in text.replace(",", " ").split():
        key, equals, value = word.partition("=")
        if not equals:
            raise ValueError(f"{word!r} is not KEY=VALUE")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{key}={value!r} is not a whole number") from None
        if number < 0:
            raise ValueError(f"{key}={number} is negative")
        found[key] = number
    return found


def _take(found: dict[str, int], allowed: Sequence[str], what: str) -> list[int]:
    unknown = sorted(set(found) - set(allowed))
    if unknown:
        raise ValueError(f"{what}: unknown {', '.join(unknown)} (takes {', '.join(allowed)})")
    missing = [key for key in allowed if key not in found]
    if missing:
        raise ValueError(f"{what}: missing {', '.join(missing)}")
    return [found[key] for key in allowed]


def parse_resign(text: str | Sequence[str]) -> tuple[int, int]:
    """``movecount=N score=CP`` as ``(N, CP)``, both at least 1; raises `ValueError`."""
    moves, score = _take(_words(text), ("movecount", "score"), "--resign")
    if moves < 1 or score < 1:
        raise ValueError("--resign: movecount and score must be at least 1")
    return moves, score


def parse_draw(text: str | Sequence[str]) -> tuple[int, int, int]:
    """``movenumber=K movecount=M score=CP`` as ``(K, M, CP)`` (M at least 1); raises
    `ValueError`."""
    number, moves, score = _take(_words(text), ("movenumber", "movecount", "score"), "--draw")
    if moves < 1:
        raise ValueError("--draw: movecount must be at least 1")
    return number, moves, score


@attrs.frozen
class Adjudication:
    """What ``--resign``, ``--draw`` and ``--max-plies`` ask (0: that rule is off)."""

    resign_moves: int = 0
    resign_score: int = 0
    draw_from: int = 0
    """``movenumber``: the moves (of every seat) made before a draw may be adjudicated."""
    draw_moves: int = 0
    draw_score: int = 0
    max_plies: int = 0

    @property
    def active(self) -> bool:
        return bool(self.resign_moves or self.draw_moves or self.max_plies)

    def to_json(self) -> dict[str, int]:
        """The rules that are on, as recorded in a game's settings."""
        data: dict[str, int] = {}
        if self.resign_moves:
            data.update(resign_movecount=self.resign_moves, resign_score=self.resign_score)
        if self.draw_moves:
            data.update(
                draw_movenumber=self.draw_from,
                draw_movecount=self.draw_moves,
                draw_score=self.draw_score,
            )
        if self.max_plies:
            data["max_plies"] = self.max_plies
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Adjudication:
        def get(key: str) -> int:
            return int(data.get(key, 0) or 0)

        return cls(
            get("resign_movecount"),
            get("resign_score"),
            get("draw_movenumber"),
            get("draw_movecount"),
            get("draw_score"),
            get("max_plies"),
        )

    @classmethod
    def of_settings(cls, settings: Mapping[str, Any]) -> Adjudication:
        """The adjudication a game's settings record (none: every rule off)."""
        data = settings.get(SETTING)
        return cls.from_json(data) if isinstance(data, Mapping) else cls()


@attrs.define(eq=False)
class Adjudicator:
    """One game's adjudicator: call it after each move (`hub.core.play.vocabulary.Adjudicate`).

    ``seats`` are the game's seats (read for their ``last_score``), ``game`` the declaration
    (its `forfeit` keeps the game's scores so far in an adjudicated outcome)."""

    rules: Adjudication
    game: Any
    seats: Sequence[object]
    recent: list[deque[int | None]] = attrs.field(init=False)
    """Each seat's scores of its last moves (as many as a rule looks at)."""

    def __attrs_post_init__(self) -> None:
        keep = max(self.rules.resign_moves, self.rules.draw_moves, 1)
        self.recent = [deque(maxlen=keep) for _ in self.seats]

    def __call__(self, moved: Moved[Any, Any], plies: int) -> Outcome | None:
        rules = self.rules
        seat = moved.seat
        if 0 <= seat < len(self.recent):
            score = getattr(self.seats[seat], "last_score", None)
            self.recent[seat].append(score if isinstance(score, int) else None)
        if rules.resign_moves and len(self.seats) == 2:
            loser = self._resigning()
            if loser is not None:
                outcome: Outcome = self.game.forfeit(
                    moved.after, Fault(loser, Termination.RESIGNATION, RESIGN_DETAIL)
                )
                return attrs.evolve(outcome, termination=Termination.NORMAL, detail=RESIGN_DETAIL)
        if rules.draw_moves and plies >= rules.draw_from * len(self.seats) and self._drawn():
            return self._draw(moved, DRAW_DETAIL)
        if rules.max_plies and plies >= rules.max_plies:
            return self._draw(moved, f"{ADJUDICATED}{rules.max_plies} plies")
        return None

    def _last(self, seat: int, count: int) -> list[int] | None:
        """The seat's last ``count`` scores, None unless it reported all of them."""
        recent = list(self.recent[seat])[-count:]
        if len(recent) < count or any(score is None for score in recent):
            return None
        return [score for score in recent if score is not None]

    def _resigning(self) -> int | None:
        """The seat that loses by the resign rule now, or None."""
        count, bound = self.rules.resign_moves, self.rules.resign_score
        for loser in (0, 1):
            own, other = self._last(loser, count), self._last(1 - loser, count)
            if own is None or other is None:
                continue
            if all(score <= -bound for score in own) and all(score >= bound for score in other):
                return loser
        return None

    def _drawn(self) -> bool:
        count, bound = self.rules.draw_moves, self.rules.draw_score
        for seat in range(len(self.seats)):
            last = self._last(seat, count)
            if last is None or any(abs(score) > bound for score in last):
                return False
        return True

    def _draw(self, moved: Moved[Any, Any], detail: str) -> Outcome:
        """A draw (every seat shares the point) with the game's scores so far."""
        kept: Outcome = self.game.forfeit(moved.after, Fault(None, Termination.ABORTED, detail))
        return Outcome(kept.scores, range(len(self.seats)), Termination.NORMAL, detail)


def adjudicator_of(
    settings: Mapping[str, Any], game: Any, seats: Sequence[object]
) -> Adjudicator | None:
    """The adjudicator a game's settings ask for, None when they ask none."""
    rules = Adjudication.of_settings(settings)
    return Adjudicator(rules, game, seats) if rules.active else None


# -- hub match's options ------------------------------------------------------------------


def add_adjudication_options(parser: argparse.ArgumentParser) -> None:
    """``--resign``, ``--draw`` and, unless the game's own options have one, ``--max-plies``
    (add the game's options first)."""
    group = parser.add_argument_group("adjudication")
    group.add_argument(
        "--resign",
        nargs="+",
        metavar="KEY=N",
        help="movecount=N score=CP: a side loses when its last N moves each scored at least "
        "CP centipawns against it and the opponent's last N at least CP for itself, as its "
        "engines reported (UCI score cp|mate; default: off)",
    )
    group.add_argument(
        "--draw",
        nargs="+",
        metavar="KEY=N",
        help="movenumber=K movecount=M score=CP: a draw after move K when every side's last "
        "M moves each scored within CP of zero (default: off)",
    )
    if "--max-plies" not in parser._option_string_actions:  # the game's own, as chess's
        group.add_argument(
            "--max-plies",
            dest="adjudicate_max_plies",
            type=int,
            metavar="N",
            help="a game reaching N moves (plies) is adjudicated a draw (default: none)",
        )


def adjudication_of(options: argparse.Namespace) -> Adjudication:
    """The `Adjudication` of parsed options; raises `ValueError` saying what is wrong."""
    resign_moves = resign_score = draw_from = draw_moves = draw_score = 0
    if getattr(options, "resign", None):
        resign_moves, resign_score = parse_resign(options.resign)
    if getattr(options, "draw", None):
        draw_from, draw_moves, draw_score = parse_draw(options.draw)
    plies = getattr(options, "adjudicate_max_plies", None) or 0
    if plies < 0:
        raise ValueError(f"--max-plies: {plies} is negative")
    return Adjudication(resign_moves, resign_score, draw_from, draw_moves, draw_score, plies)
