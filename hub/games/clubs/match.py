"""Clubs for ``hub match``: the pieces the declaration's match hooks use
(`hub.games.clubs.game.ClubsGame`; the kit is every game's, `hub.declared.kit`).

* Bare player specs are clubs programs (`program_seat`): a name found on PATH (or beside
  hub's own interpreter, like the venv's ``clubber``) or a path to an executable file.
  Each game starts them afresh as ``prog N ID``, so a player that crashed in one game is
  restarted for the next.
* Options: ``--deck FILE`` (default: the packaged ``ex.decks``), ``--winscore N``
  (default 20) and ``--time-ms MS``, each player's time for one card (default 10000; 0: no
  limit). The settings carry the decks themselves (`ClubsSettings`), so a game can be
  played on another machine.
* Openings (`draw_openings`): each is ``{"order": [...], "cut": k}``: the decks are played in
  that order (round r is dealt from ``decks[order[r mod len]]``) and each deck is cut at
  card k before dealing (``deck[k:] + deck[:k]``), so even a one-deck file gives 52
  different deals. They are drawn from the seed, distinct while there are enough of them.
* A player that cannot start, crashes, hangs past its time or sends garbage loses that game
  (the others win) and the record says how (`FaultInfo`); a player that does not start
  ends the game before any card, with no word to the others; every child is sent ``end``
  and reaped before the game's seats are done, even when it is cancelled. ``json:PROGRAM``
  is a program speaking the JSON bot protocol instead, and ``ai:1``/``random`` play too.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from importlib.resources import as_file, files
from typing import Any

import trio

from hub.core.io.lines import LineError, LineStream
from hub.core.io.process import ChildProcess
from hub.core.io.programs import resolve_program
from hub.core.model.identity import program_identity
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.game import Game
from hub.core.play.kit import draw_distinct
from hub.core.play.vocabulary import SeatFailure
from hub.declared.seats import ProgramSeat
from hub.games.clubs.cards import DECK_SIZE, Card, DeckError
from hub.games.clubs.codec import ClubsCodec, ClubsSettings
from hub.games.clubs.launch import read_deck_file
from hub.games.clubs.protocol import LABELS, MAX_PLAY_LINE, READY
from hub.games.clubs.rules import ClubsState
from hub.games.clubs.table import DEFAULT_START_TIMEOUT, END_GRACE, end_players

DEFAULT_DECK = "ex.decks"
OPENING_TRIES = 20
"""Draws per opening before accepting a repeat (a one-deck file has only 52 openings)."""


def read_decks(path: str) -> tuple[tuple[Card, ...], ...]:
    """Every deck of the file at ``path``; raises `ValueError` with a readable message."""
    try:
        return tuple(read_deck_file(path))
    except OSError as exc:
        raise ValueError(f"cannot read deck file {path}: {exc.strerror or exc}") from None
    except DeckError as exc:
        raise ValueError(f"deck file {path}: {exc}") from None


def default_decks() -> tuple[tuple[Card, ...], ...]:
    """The decks of the packaged `DEFAULT_DECK` file."""
    with as_file(files("hub.games.clubs") / "decks" / DEFAULT_DECK) as path:
        return read_decks(str(path))


def opening_decks(
    decks: Sequence[Sequence[Card]], opening: Mapping[str, Any] | None
) -> list[tuple[Card, ...]]:
    """``decks`` as ``opening`` arranges them (None: as they are); raises `ValueError`."""
    if opening is None:
        return [tuple(deck) for deck in decks]
    order, cut = opening.get("order"), opening.get("cut", 0)
    if not isinstance(order, list) or sorted(order) != list(range(len(decks))):
        raise ValueError(f"opening: 'order' must list the decks 0..{len(decks) - 1} once each")
    if not isinstance(cut, int) or isinstance(cut, bool) or not 0 <= cut < DECK_SIZE:
        raise ValueError(f"opening: 'cut' must be a card position 0..{DECK_SIZE - 1}")
    return [tuple(decks[index][cut:]) + tuple(decks[index][:cut]) for index in order]


class ClubsProgram(ProgramSeat[ClubsState, Card]):
    """A clubs player program (the clubs seat kind, `program_seat`): started as ``prog N
    ID``, it must send its ``-`` within `DEFAULT_START_TIMEOUT`; it plays over `ClubsCodec`
    and is sent ``end`` and reaped within `END_GRACE` when its game is over."""

    async def hello(self, lines: LineStream) -> SeatFailure | None:
        timeout = DEFAULT_START_TIMEOUT
        with trio.move_on_after(timeout):
            try:
                first = await lines.receive_exactly(len(READY))
            except LineError:
                return SeatFailure(Termination.DISCONNECT, "ended before sending '-'")
            if first != READY:
                return SeatFailure(Termination.MALFORMED, f"sent {first!r}, not '-'")
            return None
        return SeatFailure(Termination.TIMEOUT, f"sent no '-' within {timeout:g} s")

    async def stop(self, child: ChildProcess) -> None:
        await end_players([child], END_GRACE)


def program_seat(
    game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int = 0
) -> ClubsProgram:
    """The clubs seat kind (`hub.games.clubs.game.ClubsGame`'s `Programs.program_kind`): the program
    ``command`` names (a path, or a name beside hub's interpreter or on PATH), recorded
    as ``spec``. Each game starts it afresh."""
    program = resolve_program(command) or command
    player = PlayerInfo(spec, "program", spec, program_identity(program))
    argv = [program, str(game.seat_count), LABELS[seat]]
    return ClubsProgram(argv, ClubsCodec(), player, max_line=MAX_PLAY_LINE)


def draw_openings(decks: int, count: int, seed: int) -> list[Any]:
    """``count`` openings ``{"order": [...], "cut": k}`` for ``decks`` decks, drawn from
    ``seed``, distinct while there are enough of them."""
    rng = random.Random(seed)

    def draw() -> dict[str, Any]:
        return {"order": rng.sample(range(decks), decks), "cut": rng.randrange(DECK_SIZE)}

    return draw_distinct(draw, count, OPENING_TRIES)


def match_settings(deck: str | None, winscore: int, time_ms: int) -> dict[str, Any]:
    """The recorded settings of a match: the decks themselves (`ClubsSettings`), so that
    a game can be played on another machine; raises `ValueError`."""
    if deck is None:
        decks, name = default_decks(), DEFAULT_DECK
    else:
        decks, name = read_decks(deck), os.path.basename(deck)
    return ClubsSettings(decks, winscore, time_ms, name).to_json()
