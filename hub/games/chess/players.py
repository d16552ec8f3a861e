"""Chess's players and settings on ``hub match``, as the match's own process needs them:
parsing a player spec (`parse_player`), checking an engine before any game (`check_seat`
starts it once: it must speak UCI and have the options given), and the recorded settings
(`ChessSettings`). Kept apart from `hub.games.chess.match` (the seats: engines, levels,
a person), which the games' processes import, so that ``hub match chess`` checks its players
without importing the search or the seats (docs/performance.md, "Start-up and the time
between games"); that module re-exports these names.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hub.chess.engine_client import HANDSHAKE_TIMEOUT
from hub.chess.uci import HandshakeReader
from hub.core.io.programs import which_program
from hub.core.io.text import parse_whole_number
from hub.core.model.clock import TimeControl
from hub.core.model.identity import ai_identity, person_identity
from hub.core.model.values import PlayerInfo
from hub.games.chess.openings import BUILTIN, load_openings

DEFAULT_TC = "10+0.1"
DEFAULT_MAX_PLIES = 300
RULES = "console"
JSON_BOT = "json:"
"""The prefix of a player speaking the JSON bot protocol (the rest is its command)."""
HUB_ENGINE = "hub-engine"
"""Short for ``uci:hub engine``: hub's own UCI engine (its C search where it is built, else
its level-4 search)."""
PROBE_TIMEOUT = HANDSHAKE_TIMEOUT
GAMES_DIR = "/usr/games"
"""Where Debian installs engines (``stockfish``), often not on a program's PATH."""


@attrs.frozen
class PlayerSpec:
    """A parsed player spec: ``kind`` is ``ai``, ``engine``, ``bot`` or ``person``."""

    text: str
    kind: str
    level: int = 0
    command: tuple[str, ...] = ()
    """An engine's command line, its program not yet looked up."""
    options: tuple[tuple[str, str], ...] = ()

    @property
    def player(self) -> PlayerInfo:
        """The seat's player; an engine's identity comes from its handshake (`UciSeat`)."""
        identity = ""
        if self.kind == "ai":
            identity = ai_identity("chess", self.level)
        elif self.kind == "person":
            identity = person_identity(self.text)
        return PlayerInfo(self.text, self.kind, self.text, identity)


def _check_uci_text(text: str, what: str) -> str:
    if not text or not text.isprintable() or not text.isascii():
        raise ValueError(f"{what} {text!r}: printable ASCII, not empty")
    return text


def parse_player(text: str) -> PlayerSpec:
    """The player ``text`` names (see the module's docstring); raises `ValueError`."""
    spec = text.strip()
    if spec == "human":
        return PlayerSpec(spec, "person")
    if spec.startswith("ai:"):
        level = parse_whole_number(spec[3:])
        if level is None or not 1 <= level <= 4:
            raise ValueError(f"{text}: the built-in levels are ai:1 to ai:4")
        return PlayerSpec(spec, "ai", level=level)
    if spec.startswith(JSON_BOT):
        bot = spec.removeprefix(JSON_BOT).strip()
        if not bot:
            raise ValueError(f"{text!r}: no program after {JSON_BOT} (json:./players/json_bot.py)")
        return PlayerSpec(spec, "bot", command=(bot,))
    command, _, query = spec.removeprefix("uci:").partition("?")
    if command.strip() == HUB_ENGINE:
        command = "hub engine"
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise ValueError(f"{text}: {exc}") from None
    if not words:
        raise ValueError(f"{text!r}: no engine command (ai:N, human, or a UCI engine)")
    options = []
    for pair in query.split("&") if query else ():
        name, equals, value = pair.partition("=")
        if not equals:
            raise ValueError(f"{text}: UCI options are NAME=VALUE, joined by &, not {pair!r}")
        options.append(
            (_check_uci_text(name.strip(), "option name"), _check_uci_text(value.strip(), "value"))
        )
    return PlayerSpec(spec, "engine", command=words, options=tuple(options))


def resolve_command(command: Sequence[str]) -> list[str] | None:
    """``command`` with its program found (a path with a slash must be executable; a name is
    looked up beside hub's interpreter, on PATH, then in `GAMES_DIR`), or None."""
    program = command[0]
    if os.sep in program:
        found = program if os.path.isfile(program) and os.access(program, os.X_OK) else None
    else:
        found = which_program(program) or shutil.which(program, path=GAMES_DIR)
    return None if found is None else [found, *command[1:]]


def probe_engine(argv: Sequence[str], timeout: float = PROBE_TIMEOUT) -> list[str]:
    """Start ``argv`` once, send ``uci``: the names of the options it offers. Raises
    `ValueError` when it does not answer ``uciok``."""
    try:
        done = subprocess.run(
            list(argv),
            input=b"uci\nquit\n",
            capture_output=True,
            timeout=timeout,
            check=False,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise ValueError(f"no uciok within {timeout:g} s") from None
    except OSError as exc:
        raise ValueError(f"cannot be started: {exc.strerror or exc}") from None
    reader = HandshakeReader(ready=True)
    for line in done.stdout.decode("latin-1").splitlines():
        if reader.feed(line):
            return reader.options
    raise ValueError("does not speak UCI (no uciok after uci)")


def check_engine(spec: PlayerSpec) -> str | None:
    argv = resolve_command(spec.command)
    if argv is None:
        program = spec.command[0]
        if os.sep in program:
            return f"{spec.text}: {program} is not an executable file"
        return f"{spec.text}: no program {program!r} (give ai:1-4, human, or a UCI engine)"
    try:
        offered = probe_engine(argv)
    except ValueError as exc:
        return f"{spec.text}: {exc}"
    known = {name.lower() for name in offered}
    for name, _ in spec.options:
        if name.lower() not in known:
            return f"{spec.text}: the engine has no option {name!r} (it has: {', '.join(offered)})"
    return None


@attrs.frozen
class ChessSettings:
    """The match's settings, as recorded with each game."""

    tc: str = DEFAULT_TC
    openings: str = BUILTIN
    max_plies: int = DEFAULT_MAX_PLIES

    @property
    def control(self) -> TimeControl:
        return TimeControl.parse(self.tc)

    def to_json(self) -> dict[str, Any]:
        return {"rules": RULES, **attrs.asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChessSettings:
        return cls(
            str(data.get("tc", DEFAULT_TC)),
            str(data.get("openings", BUILTIN)),
            int(data.get("max_plies", DEFAULT_MAX_PLIES)),
        )


def match_settings(tc: str, opening_file: str, max_plies: int) -> dict[str, Any]:
    """The recorded settings (`ChessSettings`); raises `ValueError` for a bad time control
    or openings file."""
    control = TimeControl.parse(tc)
    source = opening_file or BUILTIN
    load_openings(source)
    return ChessSettings(control.describe(), source, max_plies).to_json()


def check_seat(spec: str) -> str | None:
    """None if ``spec`` names an engine that starts, speaks UCI and has the options given."""
    try:
        player = parse_player(spec)
    except ValueError as exc:
        return str(exc)
    return check_engine(player) if player.kind == "engine" else None
