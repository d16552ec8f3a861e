"""What a person or a bot may choose for a game on ``hub serve``: a time control from the
operator's list and the game's offered options within their ranges (issue 27 item 1).

Pure values, no I/O: the operator's limits are an `Offer` (``--tc-choices`` and ``--offer``
on the command line, `offer_from`), a request's choice is checked by `Offer.terms` into
`Terms` (the key of its own "next to arrive" queue, the clock and settings of its game), and
everything outside the limits is a `TermsError` whose words say what is allowed.

Which options may be offered at all (`offerable`) is decided here, for every game alike:
a yes/no switch, a number with both bounds, or a text with a list of choices. Free text (a
deck file, a Kalah layout, an opening file) stays the operator's: a request never names a
file on the server.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

import attrs

from hub.core.model.clock import TimeControl
from hub.core.play.game import Game, Option, SettingsError, Value, parse_time_control

TC_CHOICES = ("60+0", "180+2", "600+5")
"""The time controls offered beside the server's ``--tc`` when ``--tc-choices`` is not given
(seconds: one minute; three minutes and 2 s a move; ten minutes and 5 s a move)."""
MAX_TC_CHOICES = 12
"""At most this many time controls in ``--tc-choices`` (a select, not a free field)."""
MAX_QUEUES = 64
"""At most this many choices wait at once in "next to arrive" (each is its own queue):
a request for a new one beyond them is refused (`TermsError`)."""


class TermsError(ValueError):
    """A choice outside the operator's limits; the words say what is allowed."""


def offerable(option: Option) -> bool:
    """Whether people may be offered ``option``: a switch, a bounded number, or a text with
    choices (never free text: it could name a file on the server)."""
    if isinstance(option.default, bool):
        return True
    if isinstance(option.default, int | float):
        return option.low is not None and option.high is not None
    return bool(option.choices)


@attrs.frozen
class Terms:
    """One choice of a game: its clock and the offered settings chosen (sorted by name; the
    others are the server's). Equal terms wait in the same queue."""

    control: TimeControl
    settings: tuple[tuple[str, Value], ...] = ()

    def describe(self) -> str:
        """``180+2`` or ``180+2, holes 5, pie yes`` (logs and refusals)."""
        words = [self.control.describe()]
        for name, value in self.settings:
            shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
            words.append(f"{name} {shown}")
        return ", ".join(words)


@attrs.frozen
class Offer:
    """The operator's limits: ``controls`` (the first is the default) and the ``options``
    people may set (each within its own range), over the server's ``settings``."""

    controls: tuple[TimeControl, ...]
    options: tuple[Option, ...] = ()
    settings: Mapping[str, Any] = attrs.field(factory=dict, eq=False)
    """The server's settings of the game (the defaults shown, and the ones not offered)."""

    @property
    def default(self) -> Terms:
        """The server's own choice: its ``--tc`` and settings."""
        return Terms(self.controls[0], self._chosen({}))

    def _chosen(self, given: Mapping[str, Value]) -> tuple[tuple[str, Value], ...]:
        return tuple(
            sorted(
                (o.name, given.get(o.name, self.settings.get(o.name, o.default)))
                for o in self.options
            )
        )

    def terms(self, tc: object = None, settings: object = None) -> Terms:
        """The `Terms` of a request: ``tc`` (text; None or "": the default) and ``settings``
        (a mapping of offered option names to values or their text; None: the defaults).
        `TermsError` for anything outside the limits."""
        control = self.controls[0]
        if tc is not None and tc != "":
            if not isinstance(tc, str) or len(tc) > 40:
                raise TermsError("tc must be a time control's text, e.g. " + self.tc_words())
            try:
                control = parse_time_control(tc)
            except SettingsError:
                raise TermsError(f"no time control {tc!r} here: {self.tc_words()}") from None
            if control not in self.controls:
                raise TermsError(f"the time control {tc} is not offered here: {self.tc_words()}")
        if settings is None:
            settings = {}
        if not isinstance(settings, Mapping):
            raise TermsError("settings must be an object of option names and values")
        known = {option.name: option for option in self.options}
        given: dict[str, Value] = {}
        for name, value in settings.items():
            option = known.get(name) if isinstance(name, str) else None
            if option is None:
                offered = ", ".join(known) or "none"
                raise TermsError(
                    f"the option {str(name)[:40]!r} is not offered (offered: {offered})"
                )
            if isinstance(value, str) and len(value) > 40:
                raise TermsError(f"{name}: too long")
            try:
                given[name] = option.convert(value)
            except SettingsError as exc:
                raise TermsError(str(exc)) from None
        return Terms(control, self._chosen(given))

    def tc_words(self) -> str:
        return "one of " + ", ".join(control.describe() for control in self.controls)

    def json(self) -> dict[str, Any]:
        """The limits as the lobby page draws them: ``{"tc": [...], "options": [...]}``."""
        options = []
        for option in self.options:
            kind = type(option.default).__name__ if not option.choices else "choice"
            options.append(
                {
                    "name": option.name,
                    "kind": kind,
                    "default": self.settings.get(option.name, option.default),
                    "low": option.low,
                    "high": option.high,
                    "choices": list(option.choices),
                    "help": option.help,
                }
            )
        return {"tc": [control.describe() for control in self.controls], "options": options}


def tc_choices(text: str | None, default: TimeControl) -> tuple[TimeControl, ...]:
    """``--tc-choices``' list (comma-separated; None: `TC_CHOICES`), the server's ``--tc``
    (``default``) first, each once; `SettingsError` for a bad one or too many."""
    words = TC_CHOICES if text is None else [w for w in text.split(",") if w.strip()]
    controls = [default]
    for word in words:
        control = parse_time_control(word)
        if control not in controls:
            controls.append(control)
    if len(controls) > MAX_TC_CHOICES:
        raise SettingsError(f"--tc-choices: at most {MAX_TC_CHOICES} time controls")
    return tuple(controls)


def offered_options(text: str | None, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
    """``--offer``'s options (comma-separated names, ``none``; None: every `offerable` one);
    `SettingsError` for a name that is not one of the game's offerable options."""
    can = {option.name: option for option in game.options if offerable(option)}
    if text is None:
        return tuple(can.values())
    names = [name.strip().replace("-", "_") for name in text.split(",") if name.strip()]
    if names == ["none"]:
        return ()
    wrong = [name for name in names if name not in can]
    if wrong:
        raise SettingsError(
            f"--offer: {game.name} cannot offer {wrong[0]!r} (it can offer: "
            f"{', '.join(can) or 'none'})"
        )
    return tuple(can[name] for name in dict.fromkeys(names))


def offer_from(
    game: Game[Any, Any], control: TimeControl, tc_text: str | None, offer_text: str | None
) -> Offer:
    """The `Offer` of ``game`` (its settings the server's) from the command line's texts."""
    return Offer(
        tc_choices(tc_text, control), offered_options(offer_text, type(game)), dict(game.settings)
    )


def settings_of(terms: Terms, offer: Offer) -> dict[str, Any]:
    """The settings of a game played on ``terms``: the server's, with the chosen ones."""
    return {**offer.settings, **dict(terms.settings)}


def add_terms_options(parser: argparse.ArgumentParser, *, per_game: bool = False) -> None:
    """``--tc-choices`` and ``--offer`` (``per_game``: ``hub serve``'s, each ``[GAME=]`` and
    repeatable)."""
    game = "[GAME=]" if per_game else ""
    more = "; GAME=... for one game, repeat it" if per_game else ""
    parser.add_argument(
        "--tc-choices",
        metavar=f"{game}TCS",
        action="append" if per_game else "store",
        default=[] if per_game else None,
        help="the time controls people and bots may choose, comma-separated (the --tc is "
        f"always one, and the default){more} (default {','.join(TC_CHOICES)}: seconds)",
    )
    parser.add_argument(
        "--offer",
        metavar=f"{game}OPTIONS",
        action="append" if per_game else "store",
        default=[] if per_game else None,
        help="the game's options people and bots may choose, comma-separated names, or none "
        f"(each within its range; a file or free text is never offered){more} (default: "
        "every switch, bounded number and option with choices)",
    )
