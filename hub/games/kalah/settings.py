"""Kalah's settings as one value: `KalahSettings` (attrs, frozen, validated, to and from JSON).

The one place where Kalah's settings are decided and checked: `KalahSettings.given` takes
what a user gave (``hub serve kalah``'s and ``hub play kalah``'s options, the declaration's
settings, ``hub match kalah``'s options), fills in the holes and seeds a layout implies and
says what does not fit; `parse_layout` reads a layout's text; `KalahSettings.layout_for`
decides between the given layout, a random one and the standard start. Everyone else takes
the value.

Every other shape is derived from it in one place: ``INFO`` for a client (`KalahSettings.info`,
the wire's `hub.games.kalah.protocol.Info`), a served game's recorded settings
(`KalahSettings.record_json`), the declaration's settings for a JSON bot
(`KalahSettings.declared`). ``hub serve kalah``/``hub play kalah``'s `GameOptions` hold one
(``settings``) beside only the server's own choices (its limit, opponent, level, script, who
moves first); a served game's `hub.games.kalah.server.GameSetup` holds only what is drawn
per game (its number, layout, who moves first); ``hub match kalah`` records
`KalahSettings.to_json`.
"""

from __future__ import annotations

import random as _random
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub.core.model.values import JSON
from hub.games.kalah.protocol import MAX_TIME_MS, Info
from hub.games.kalah.rules import (
    MAX_HOLES,
    MAX_SEEDS,
    MIN_HOLES,
    MIN_SEEDS,
    KalahState,
    check_settings,
    new_game,
    random_layout,
)

DEFAULT_TIME_MS = 5000
"""A turn's limit when none is given (ms)."""
DEFAULT_HOLES, DEFAULT_SEEDS = 6, 4


def _tuple_or_none(value: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if value is None else tuple(value)


def parse_layout(text: str) -> tuple[int, ...] | None:
    """``"6,4,7,6,5,8"`` (commas or spaces) as counts; an empty text is None; raises
    `ValueError` for anything else."""
    words = text.replace(",", " ").split()
    if not words:
        return None
    if not all(word.isdigit() and len(word) <= 4 for word in words):
        raise ValueError(f"layout must be seed counts separated by commas, not {text!r}")
    return tuple(int(word) for word in words)


@attrs.frozen
class KalahSettings:
    """What a game of a match is played with; validated on construction (`ValueError`)."""

    holes: int
    seeds: int
    pie: bool = False
    time_ms: int = DEFAULT_TIME_MS
    """Every player's limit per whole turn in ms (0: none)."""
    random: bool = False
    """Each opening is a random layout."""
    layout: tuple[int, ...] | None = attrs.field(default=None, converter=_tuple_or_none)
    """The layout of every game when not random (None: ``seeds`` in every hole)."""

    def __attrs_post_init__(self) -> None:
        check_settings(self.holes, self.seeds)
        if not 0 <= self.time_ms <= MAX_TIME_MS:
            raise ValueError(f"the time per move must be 0..{MAX_TIME_MS} ms, not {self.time_ms}")
        if self.layout is not None:
            if self.random:
                raise ValueError("a random layout and a given one exclude each other")
            new_game(self.holes, self.seeds, layout=self.layout)  # raises if it does not fit

    @classmethod
    def given(
        cls,
        holes: int | None = None,
        seeds: int | None = None,
        *,
        pie: bool = False,
        time_ms: int = DEFAULT_TIME_MS,
        random: bool = False,
        layout: tuple[int, ...] | None = None,
    ) -> KalahSettings:
        """The settings from what a user gave (None: not given): a layout sets the holes
        (its length) and, unless given, the seeds (its mean); the defaults are 6 holes of 4
        seeds. Raises `ValueError` saying what does not fit."""
        if layout is not None:
            if holes is not None and holes != len(layout):
                raise ValueError(f"the layout has {len(layout)} counts for {holes} holes")
            holes = len(layout)
            if not MIN_HOLES <= holes <= MAX_HOLES:
                raise ValueError(f"a layout needs {MIN_HOLES}..{MAX_HOLES} counts")
            total = sum(layout)
            if seeds is None:
                if total % holes:
                    raise ValueError(f"a layout of {holes} holes must hold a multiple of {holes}")
                seeds = total // holes
            if total != holes * seeds:
                raise ValueError(f"a layout must hold {holes * seeds} seeds, not {total}")
            if not MIN_SEEDS <= seeds <= MAX_SEEDS:
                raise ValueError(f"a layout needs {MIN_SEEDS}..{MAX_SEEDS} seeds per hole")
            if random:
                raise ValueError("a random layout and a given one exclude each other")
        holes = DEFAULT_HOLES if holes is None else holes
        seeds = DEFAULT_SEEDS if seeds is None else seeds
        return cls(holes, seeds, pie, time_ms, random, layout)

    def layout_for(self, rng: _random.Random) -> tuple[int, ...] | None:
        """The layout of a game: the given one, else (``random``) one drawn from ``rng``,
        else None (``seeds`` in every hole). The one place this is decided."""
        if self.layout is None and self.random:
            return random_layout(self.holes, self.seeds, rng)
        return self.layout

    def new_game(self, layout: tuple[int, ...] | None) -> KalahState:
        """The first state of a game from ``layout`` (`layout_for`)."""
        return new_game(self.holes, self.seeds, pie=self.pie, layout=layout)

    def to_json(self) -> dict[str, JSON]:
        layout = None if self.layout is None else list(self.layout)
        return {
            "holes": self.holes,
            "seeds": self.seeds,
            "pie": self.pie,
            "time_ms": self.time_ms,
            "random": self.random,
            "layout": layout,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> KalahSettings:
        """The inverse of `to_json`; raises `ValueError` saying what is wrong."""
        fields: dict[str, Any] = {}
        for name, kind in (("holes", int), ("seeds", int), ("time_ms", int)):
            value = data.get(name)
            if type(value) is not kind:
                raise ValueError(f"settings: {name!r} must be a whole number, not {value!r}")
            fields[name] = value
        for name in ("pie", "random"):
            value = data.get(name, False)
            if type(value) is not bool:
                raise ValueError(f"settings: {name!r} must be true or false, not {value!r}")
            fields[name] = value
        fields["layout"] = check_layout(data.get("layout"), "settings: 'layout'")
        return cls(**fields)

    def info(self, first: bool, layout: tuple[int, ...] | None) -> Info:
        """``INFO`` for a client who moves first (``first``) in a game from ``layout``."""
        return Info(self.holes, self.seeds, self.time_ms, first, layout)

    def record_json(self, layout: tuple[int, ...] | None) -> dict[str, JSON]:
        """What a game of ``hub serve kalah`` is recorded with (its limits are in its time
        controls; ``layout``: the game's own, drawn or given)."""
        drawn = None if layout is None else list(layout)
        return {"holes": self.holes, "seeds": self.seeds, "pie": self.pie, "layout": drawn}

    def declared(self, layout: tuple[int, ...] | None) -> dict[str, object]:
        """The settings of the declaration (`hub.games.kalah.game.KalahGame`) for a game from
        ``layout``: what a JSON bot is told."""
        chosen: dict[str, object] = {"holes": self.holes, "seeds": self.seeds, "pie": self.pie}
        if layout is not None:
            chosen["layout"] = ",".join(map(str, layout))
        return chosen

    def start_layout(self, opening: JSON, game_id: str) -> tuple[int, ...] | None:
        """The layout a match's game starts from: its ``opening``'s (raises `ValueError`),
        else `layout_for` from the game's id."""
        if opening is None:
            return self.layout_for(_random.Random(game_id))
        layout = check_layout(opening, "opening")
        new_game(self.holes, self.seeds, layout=layout)  # raises if it does not fit
        return layout


def check_layout(value: JSON, what: str) -> tuple[int, ...] | None:
    """``value`` as a layout (a list of whole numbers) or None; raises `ValueError`."""
    if value is None:
        return None
    if not isinstance(value, list) or any(type(count) is not int for count in value):
        raise ValueError(f"{what} must be a list of seed counts, not {value!r}")
    return tuple(value)
