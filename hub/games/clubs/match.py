"""Clubs for ``hub match``: the `TournamentKit` (`kit`) that plays one game between programs.

* Players are programs: a name found on PATH (or beside hub's own interpreter, like the
  venv's ``clubber``) or a path to an executable file. Each game starts them afresh as
  ``prog N ID``, so a player that crashed in one game is restarted for the next.
* Options: ``--deck FILE`` (default: the packaged ``ex.decks``), ``--winscore N``
  (default 20) and ``--time-ms MS``, each player's time for one card (default 10000; 0: no
  limit). The settings carry the decks themselves (`ClubsSettings`), so a game can be
  played on another machine.
* Openings (`openings`): each is ``{"order": [...], "cut": k}``: the decks are played in
  that order (round r is dealt from ``decks[order[r mod len]]``) and each deck is cut at
  card k before dealing (``deck[k:] + deck[:k]``), so even a one-deck file gives 52
  different deals. They are drawn from the seed, distinct while there are enough of them.
* A player that cannot start, crashes, hangs past its time or sends garbage loses that game
  (the others win) and the record says how (`FaultInfo`); every child is sent ``end`` and
  reaped before `play` returns, even when it is cancelled.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from importlib.resources import as_file, files
from typing import TYPE_CHECKING, Any

import attrs

from hub.core.bus import EventBus
from hub.core.clock import TimeControl
from hub.core.events import GameRecord
from hub.core.identity import program_identity
from hub.core.match import BaseSeat, Match, Seat, SeatFailure, Start
from hub.core.plugin import GameSpec, draw_distinct
from hub.core.process import ChildProcess
from hub.core.programs import resolve_program
from hub.core.text import parse_whole_number
from hub.core.values import PlayerInfo
from hub.games.clubs.cards import DECK_SIZE, Card, DeckError
from hub.games.clubs.codec import (
    DEFAULT_TIME_MS,
    DEFAULT_WINSCORE,
    ClubsNotation,
    ClubsSettings,
    clubs_forfeit,
)
from hub.games.clubs.launch import read_deck_file
from hub.games.clubs.protocol import MAX_PLAYERS, MIN_PLAYERS
from hub.games.clubs.rules import ClubsReferee, ClubsState, new_game
from hub.games.clubs.table import (
    DEFAULT_START_TIMEOUT,
    END_GRACE,
    StartFailure,
    end_players,
    program_seats,
    start_players,
)

if TYPE_CHECKING:
    import argparse

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


@attrs.define(eq=False)
class NotStarted(BaseSeat[ClubsState, Card]):
    """A seat of a game whose players did not all start: it says nothing to anyone, and
    the seat of ``failure`` raises it at ``begin``, so the game ends with that player at
    fault before any card is dealt."""

    player: PlayerInfo
    failure: StartFailure

    async def begin(self, start: Start[ClubsState]) -> None:
        if start.seat == self.failure.seat:
            raise SeatFailure(self.failure.termination, self.failure.detail)


class ClubsKit:
    """`hub.core.plugin.TournamentKit` for clubs."""

    seats = (MIN_PLAYERS, MAX_PLAYERS)

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("clubs")
        group.add_argument(
            "--deck",
            metavar="FILE",
            help=f"deck file to play (default: the packaged {DEFAULT_DECK})",
        )
        numbers = (
            ("--winscore", "N", DEFAULT_WINSCORE, "a game ends after the round in which "
             "someone reaches N"),
            ("--time-ms", "MS", DEFAULT_TIME_MS, "each player's time for one card, in ms; "
             "0 is no limit"),
        )  # fmt: skip
        for flag, metavar, default, text in numbers:
            group.add_argument(
                flag, metavar=metavar, default=str(default), help=f"{text} (default {default})"
            )

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        """Raises `ValueError` for a bad deck file, score or time."""
        winscore = parse_whole_number(str(options.winscore))
        if winscore is None or winscore < 1:
            raise ValueError(f"--winscore must be a positive whole number, not {options.winscore}")
        time_ms = parse_whole_number(str(options.time_ms))
        if time_ms is None:
            raise ValueError(f"--time-ms must be a whole number of ms, not {options.time_ms}")
        if options.deck is None:
            decks, name = default_decks(), DEFAULT_DECK
        else:
            decks, name = read_decks(options.deck), os.path.basename(options.deck)
        return ClubsSettings(decks, winscore, time_ms, name).to_json()

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        if resolve_program(spec) is not None:
            return None
        if os.sep in spec:
            return f"{spec}: not an executable file"
        return f"{spec}: no such program on PATH (or give a path to an executable)"

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        decks = len(ClubsSettings.from_json(settings).decks)
        rng = random.Random(seed)

        def draw() -> dict[str, Any]:
            return {"order": rng.sample(range(decks), decks), "cut": rng.randrange(DECK_SIZE)}

        return draw_distinct(draw, count, OPENING_TRIES)

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        """One game of ``spec`` through `Match`; the recorded settings add its opening."""
        settings = ClubsSettings.from_json(spec.settings)
        decks = opening_decks(settings.decks, spec.opening)
        specs = spec.players
        programs = [resolve_program(name) or name for name in specs]
        players = [
            PlayerInfo(name, "program", name, program_identity(program))
            for name, program in zip(specs, programs, strict=True)
        ]
        children: list[ChildProcess] = []
        try:
            failure = await start_players(programs, children, DEFAULT_START_TIMEOUT)
            seats: Sequence[Seat[ClubsState, Card]]
            if failure is None:
                seats = program_seats(children, players)
            else:
                seats = [NotStarted(player, failure) for player in players]
            match = Match(
                ClubsReferee(),
                new_game(decks, len(specs), settings.winscore),
                seats,
                notation=ClubsNotation(),
                events=events,
                time_control=TimeControl.per_move_ms(settings.time_ms),
                settings={**spec.settings, "opening": spec.opening},
                game_id=spec.game_id,
                forfeit=clubs_forfeit,
            )
            result = await match.run()
        finally:
            await end_players(children, END_GRACE)
        return result.record


kit = ClubsKit()
