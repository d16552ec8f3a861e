"""Chess for ``hub match``: the pieces the declaration's match hooks use
(`hub.games.chess.game.ChessMatchGame`; the kit is every game's, `hub.declared.kit`).

Players (one spec per seat; seat 0 plays white):

* ``ai:N``: the built-in level N (1-4, as in ``hub play chess``), thinking in a worker
  thread; level 4 budgets its search from its clock.
* a UCI engine: ``uci:COMMAND`` or a bare program name or path (``stockfish``,
  ``/usr/games/stockfish``, ``uci:hub engine``; ``hub-engine`` is short for hub's own
  engine). COMMAND is split like a shell line; its program is looked up beside hub's
  interpreter, on PATH, then in /usr/games (where Debian puts Stockfish). UCI options follow
  a ``?``, separated by ``&``: ``stockfish?Skill Level=3&Threads=1`` (`engine_seat`).
  `check_seat` starts the engine once to see that it speaks UCI and has those options.
* ``json:COMMAND``: a program speaking the JSON bot protocol (docs/bots.md) over pipes, as
  every game's bots do (``json:./players/json_bot.py``; COMMAND is a seat spec of
  `hub.declared.seats`: a path or a name on PATH with its arguments, a ``.py`` file that is
  not executable runs under this Python). Its turns carry the chess view and the legal
  moves in UCI (`hub.chess.game.ChessGame`).
* ``human``: a person at this terminal (`person_seat`; refused when standard input is not
  a terminal).

Options: ``--tc`` (`hub.core.model.clock.TimeControl.parse`: ``10+0.1`` a game clock of 10 s plus
0.1 s a move, ``100ms`` or ``2s`` per move, ``none``; default `DEFAULT_TC`),
``--opening-file FILE`` (`hub.games.chess.openings`; default the built-in list; ``hub
match --openings N`` says how many of them a match uses) and ``--max-plies N`` (default
`DEFAULT_MAX_PLIES`; 0: no cap).

Rules (the declaration's, `hub.chess.game.ChessGame` with `Draws.ARBITER` and ``max_plies``,
in the plan of `hub.games.chess.game.ChessSetup`): chess as engine testers
adjudicate it. Checkmate wins; stalemate,
insufficient material, the fifty-move rule and threefold repetition draw at once (engines
cannot claim a draw, so the arbiter does, as cutechess and fastchess do); a game that reaches
``max_plies`` plies (opening moves included) is adjudicated a draw. Each is
`Termination.NORMAL` with its reason in the record's ``detail``. A win scores 2, a draw 1
each (half points, like the console's score). The console itself plays on through
repetitions, as its spec says; a match must end.

Each game starts its engines (in parallel, before the clocks start), and stops and reaps them
before the game's seats are done, even when it is cancelled; inside a session (the kit's
``session()``, `hub.core.play.session`: each slot of ``hub match`` opens one) an engine that
ended its game alive and idle is kept for the slot's next game instead (``ucinewgame`` and
``isready`` start every game), and the session stops them all when it ends.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import attrs

from hub.chess.rules import ChessState
from hub.chess.seats import START_TIMEOUT, ChessPersonSeat, EngineShelf, UciSeat
from hub.chess.seats import level_seat as chess_level_seat
from hub.chess.uci import HandshakeReader
from hub.core.io.output import Output
from hub.core.io.programs import which_program
from hub.core.io.stdin import open_line_input
from hub.core.io.text import parse_whole_number
from hub.core.model.clock import TimeControl
from hub.core.model.identity import ai_identity, person_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.session import current as current_session
from hub.core.play.threads import ThreadSeat
from hub.core.play.vocabulary import FailedSeat, Seat
from hub.games.chess.openings import BUILTIN, load_openings

DEFAULT_TC = "10+0.1"
DEFAULT_MAX_PLIES = 300
RULES = "console"
JSON_BOT = "json:"
"""The prefix of a player speaking the JSON bot protocol (the rest is its command)."""
HUB_ENGINE = "hub-engine"
"""Short for ``uci:hub engine``: hub's own UCI engine (its level-4 search)."""
PROBE_TIMEOUT = START_TIMEOUT
GAMES_DIR = "/usr/games"
"""Where Debian installs engines (``stockfish``), often not on a program's PATH."""
SHELF = "chess-engines"
"""The name of the `EngineShelf` in a session's resources: the engines kept between games."""


# -- players -------------------------------------------------------------------------------


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


# -- the kit -------------------------------------------------------------------------------


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


def _terminal_output(lines: Sequence[str]) -> None:
    out = Output(1)
    for line in lines:
        out.line(line)
    out.flush()


# -- the seats of the declaration's kinds (hub.games.chess.game.ChessMatchGame) ----------------


def engine_seat(game: object, command: str, *, seat: int, spec: str, seed: int = 0) -> UciSeat:
    """The ``uci`` seat kind, and a bare program spec in ``hub match chess``: the UCI engine
    ``spec`` names (`parse_player`: options after ``?``, ``hub-engine``, engines found in
    /usr/games). Inside a session (`hub.core.play.session`, each slot of ``hub match``) the
    engine is kept for the slot's next game."""
    player = parse_player(spec)
    argv = resolve_command(player.command) or list(player.command)
    session = current_session()
    shelf = None if session is None else session.resource(SHELF, EngineShelf)
    return UciSeat(argv=tuple(argv), options=player.options, player=player.player, shelf=shelf)


def level_seat(
    game: object, command: str, *, seat: int, spec: str, seed: int = 0
) -> ThreadSeat[ChessState, str]:
    """``ai:N``: level N of `hub.chess.search` (level 4 budgets its search from its clock),
    its choices seeded by the game and the seat."""
    level = int(command)
    player = parse_player(f"ai:{level}").player
    return chess_level_seat(level, random.Random(seed), player=player, process=True)


def check_seat(spec: str) -> str | None:
    """None if ``spec`` names an engine that starts, speaks UCI and has the options given."""
    try:
        player = parse_player(spec)
    except ValueError as exc:
        return str(exc)
    return check_engine(player) if player.kind == "engine" else None


@contextlib.asynccontextmanager
async def person_seat(
    game: object, spec: object, events: object
) -> AsyncIterator[Seat[ChessState, str]]:
    """``human``: a person typing moves (UCI or SAN) at this terminal; in a process without
    one (a worker of ``hub match --concurrency`` reads its requests on standard input) the
    game ends before the first move with this seat at fault."""
    player = parse_player("human").player
    if not sys.stdin.isatty():
        yield FailedSeat(
            player,
            Termination.DISCONNECT,
            "no terminal to type moves on (play a person's games without --concurrency)",
        )
        return
    async with open_line_input(0) as lines:
        yield ChessPersonSeat(lines.receive, _terminal_output, player=player)
