"""Chess for ``hub match``: the seats the declaration's match hooks make
(`hub.games.chess.game.ChessMatchGame`; the kit is every game's, `hub.declared.kit`); the
player specs, their checks and the settings are in `hub.games.chess.players`, which the
match's own process imports without these seats.

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
import random
import sys
from collections.abc import AsyncIterator, Sequence

from hub.chess.rules import ChessState
from hub.chess.seats import ChessPersonSeat, EngineShelf, UciSeat
from hub.chess.seats import level_seat as chess_level_seat
from hub.core.io.output import Output
from hub.core.io.stdin import open_line_input
from hub.core.model.referee import Termination
from hub.core.play.session import current as current_session
from hub.core.play.threads import ThreadSeat
from hub.core.play.vocabulary import FailedSeat, Seat
from hub.games.chess.players import parse_player, resolve_command

SHELF = "chess-engines"
"""The name of the `EngineShelf` in a session's resources: the engines kept between games."""


# -- the kit -------------------------------------------------------------------------------


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
