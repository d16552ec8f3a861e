"""Kalah for ``hub match``: the pieces the declaration's match hooks use
(`hub.games.kalah.game.KalahSetup`; the kit is every game's, `hub.declared.kit`).

* Players: ``ai:N`` (the AI at level N, 1..9, searching in a worker thread; ``ai`` is level
  9), ``human`` (the person at this terminal, `person_seat`, through `open_keyboard`, which
  drops what was typed before each turn; refused when stdin is not a terminal), ``random``,
  or a program: a path to an executable or a name found beside hub's interpreter or on
  PATH. A program is a Kalah agent that speaks the *client* side of kalah.md on its
  stdin/stdout (`program_seat`): the hub is its server, handshake included (``WELCOME``,
  ``INFO``, ``READY``, ``BEGIN``), with the same `hub.games.kalah.codec.KalahCodec` as for
  TCP clients. Each game starts it afresh. ``json:PROGRAM`` (``json:./players/json_bot.py``,
  arguments allowed) is a program speaking the JSON bot protocol of every declared game
  instead (docs/bots.md); a plain program is a Kalah agent, since nothing a program says
  before its first turn tells the two apart.
* Options: ``--holes``, ``--seeds``, ``--pie``, ``--time-ms`` (every player's limit per
  whole turn, default 5000; 0: none), ``--random`` (a random layout per opening) or
  ``--layout C,C,..`` (one given layout), checked together as ``hub serve kalah`` does
  (`KalahSettings.given`, through the declaration's set-up, `KalahSetup.settings`); the
  settings recorded are `KalahSettings`.
* Openings (`KalahSetup.openings`): seeded random layouts (distinct while there are
  enough), each a list of hole counts, so that a match of deterministic players plays
  distinct games (``hub match --openings fixed`` plays every game from the standard layout
  instead); with ``--layout`` none (every game from that layout).
* A program that cannot be started, does not say ``READY`` within `START_TIMEOUT`, crashes,
  hangs past its time or sends garbage loses that game, with the reason in the record;
  every child is reaped before the game's seats are done, even when it is cancelled.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from hub.core.io.lines import LineStream
from hub.core.io.output import Output
from hub.core.io.programs import resolve_program
from hub.core.model.identity import program_identity
from hub.core.model.values import PlayerInfo
from hub.core.play.kit import GameSpec
from hub.core.play.person import open_keyboard
from hub.core.play.vocabulary import SeatFailure
from hub.declared.seats import ProgramSeat
from hub.games.kalah.codec import KalahCodec
from hub.games.kalah.players import person_seat as terminal_seat
from hub.games.kalah.printer import GameView
from hub.games.kalah.protocol import Info, max_line
from hub.games.kalah.rules import KalahState, Move
from hub.games.kalah.seats import KalahSeat, greet, welcome
from hub.games.kalah.settings import KalahSettings

if TYPE_CHECKING:
    from hub.core.model.bus import EventBus

HUMAN = "human"
START_TIMEOUT = 10.0
"""Seconds a program has to be started and say ``READY``."""


class KalahAgent(ProgramSeat[KalahState, Move]):
    """A Kalah agent program (the Kalah seat kind, `program_seat`): told ``WELCOME`` and
    ``INFO``, it must say ``READY`` within `START_TIMEOUT`; it plays as a client over
    `KalahCodec`; when its game is over its stdin is closed (the server closing the
    connection) and it is reaped within 2 s."""

    not_started = "not started"

    def __init__(self, program: str, info: Info, player: PlayerInfo) -> None:
        longest = max_line(info.holes, info.seeds)
        super().__init__([program], KalahCodec(longest), player, max_line=longest)
        self.info = info

    async def hello(self, lines: LineStream) -> SeatFailure | None:
        await welcome(lines)
        return await greet(lines, self.info, max_line=self.max_line, timeout=START_TIMEOUT)


def program_seat(
    game: object, command: str, *, seat: int, spec: str, seed: int = 0, detail: Any = None
) -> KalahAgent:
    """The Kalah seat kind (`hub.games.kalah.game.KalahGame`'s programs): the agent program
    ``command`` names, told the game's settings and layout (``detail``, from the match's
    plan, `hub.games.kalah.game.KalahSetup`); seat 0 moves first."""
    settings, layout = detail if detail is not None else (KalahSettings(6, 4), None)
    program = resolve_program(command) or command
    player = PlayerInfo(spec, "program", spec, program_identity(program))
    return KalahAgent(program, settings.info(seat == 0, layout), player)


@contextlib.asynccontextmanager
async def person_seat(game: object, spec: GameSpec, events: EventBus) -> AsyncIterator[KalahSeat]:
    """``human``: the person at this terminal, reading `open_keyboard` and seeing the game as
    ``hub play kalah`` shows it (`GameView`)."""
    names = (spec.players[0], spec.players[1])
    view = GameView(Output(1), names, names.index(HUMAN), False, game_id=spec.game_id)
    async with open_keyboard() as keyboard:
        stop = events.listen(view)
        try:
            labels = ("you", "opponent")
            yield terminal_seat(keyboard, Output(1), labels, name=HUMAN, spec=HUMAN)
        finally:
            stop()
