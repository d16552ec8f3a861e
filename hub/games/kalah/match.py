"""Kalah for ``hub match``: the `TournamentKit` (`kit`) that plays one game between any players.

* Players: ``ai:N`` (our AI at level N, 1..9, searching in a worker thread; ``ai`` is level
  9), ``human`` (the person at this terminal, through `open_keyboard`, which drops what was
  typed before each turn; refused when stdin is not a terminal), or a program:
  a path to an executable or a name found beside hub's interpreter or on PATH. A program is
  a Kalah agent that speaks the *client* side of kalah.md on its stdin/stdout: the hub is
  its server, handshake included (``WELCOME``, ``INFO``, ``READY``, ``BEGIN``), with the same
  `hub.games.kalah.codec.KalahCodec` as for TCP clients. Each game starts it afresh.
  ``json:PROGRAM`` (``json:./players/json_bot.py``, arguments allowed) is a program speaking
  the JSON bot protocol of every declared game instead (docs/bots.md), seated as
  `hub.declared.seats` seats it (`JSON_PREFIX`); a plain program is a Kalah agent, as
  before, since nothing a program says before its first turn tells the two apart.
* Options: ``--holes``, ``--seeds``, ``--pie``, ``--time-ms`` (every player's limit per
  whole turn, default 5000; 0: none), ``--random`` (a random layout per opening) or
  ``--layout C,C,..`` (one given layout); the same parsing as ``hub serve kalah``.
* Openings (`KalahKit.openings`): seeded random layouts (distinct while there are enough),
  each a list of hole counts, so that a match of deterministic players plays distinct games
  (``hub match --openings fixed`` plays every game from the standard layout instead); with
  ``--layout`` none (every game from that layout).
* A program that cannot be started, does not say ``READY`` within `START_TIMEOUT`, crashes,
  hangs past its time or sends garbage loses that game, with the reason in the record;
  every child is reaped before `KalahKit.play` returns, even when it is cancelled.
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import trio

from hub.core.bus import EventBus
from hub.core.events import GameRecord
from hub.core.identity import program_identity
from hub.core.local_seats import Keys, open_keyboard
from hub.core.match import FailedSeat, SeatFailure
from hub.core.output import Output
from hub.core.plugin import GameSpec, draw_distinct
from hub.core.process import ChildProcess, SpawnFailed, stop_all
from hub.core.programs import resolve_program
from hub.core.referee import Termination
from hub.core.text import parse_whole_number
from hub.core.values import PlayerInfo
from hub.games.kalah.ai import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL
from hub.games.kalah.options import OptionsError, add_board_options, board
from hub.games.kalah.players import ai_seat, person_seat
from hub.games.kalah.printer import GameView
from hub.games.kalah.protocol import max_line
from hub.games.kalah.rules import new_game, random_layout
from hub.games.kalah.seats import KalahSeat, client_seat, greet, new_match, welcome
from hub.games.kalah.settings import DEFAULT_TIME_MS, KalahSettings

if TYPE_CHECKING:
    import argparse

AI_PREFIX = "ai"
HUMAN = "human"
JSON_PREFIX = "json:"
"""A player spec ``json:PROGRAM``: a program speaking the JSON bot protocol."""
START_TIMEOUT = 10.0
"""Seconds the programs have, together, to be started and say ``READY``."""
END_GRACE = 2.0
"""Seconds the programs have, together, to exit once their stdin is closed (then SIGKILL)."""


def ai_level(spec: str) -> int | None:
    """The level of an ``ai`` or ``ai:N`` spec; None if ``spec`` names no AI (or a bad one)."""
    name, colon, level = spec.partition(":")
    if name != AI_PREFIX:
        return None
    if not colon:
        return DEFAULT_LEVEL
    number = parse_whole_number(level, max_digits=2)
    return number if number is not None and MIN_LEVEL <= number <= MAX_LEVEL else None


class KalahKit:
    """`hub.core.plugin.TournamentKit` for Kalah."""

    seats = (2, 2)

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        add_board_options(parser.add_argument_group("kalah"))

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        """Raises `ValueError` for options that do not fit together."""
        try:
            holes, seeds, layout = board(options)
        except OptionsError as exc:
            raise ValueError(str(exc)) from None
        time_ms = DEFAULT_TIME_MS if options.time_ms is None else options.time_ms
        chosen = KalahSettings(holes, seeds, options.pie, time_ms, options.random, layout)
        return chosen.to_json()

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        if spec.partition(":")[0] == AI_PREFIX:
            if ai_level(spec) is None:
                return f"{spec}: the AI is ai:N with a level N of {MIN_LEVEL}..{MAX_LEVEL}"
            return None
        if spec == HUMAN:
            return None if sys.stdin.isatty() else "human: a person needs a terminal as stdin"
        if spec.startswith(JSON_PREFIX):
            return _json_spec_error(spec)
        if resolve_program(spec) is not None:
            return None
        return (
            f"{spec}: no such program (give ai:N, human, a path or a program on PATH, or "
            "json:PROGRAM for a program of the JSON bot protocol)"
        )

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        """Seeded random layouts (distinct while there are enough), whether or not
        ``--random`` was given: the protocol cannot start a program's game after a few
        plies, so a layout is how a Kalah match varies its games. A given ``--layout``
        is the user's start: no openings (every game from it)."""
        chosen = KalahSettings.from_json(settings)
        if chosen.layout is not None:
            return []
        rng = random.Random(seed)
        return draw_distinct(lambda: list(random_layout(chosen.holes, chosen.seeds, rng)), count)

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        """One game of ``spec`` through the core `Match`; seat 0 moves first."""
        settings = KalahSettings.from_json(spec.settings)
        layout = settings.start_layout(spec.opening)
        if layout is None and settings.random:  # no opening drawn: one from the game's id
            layout = random_layout(settings.holes, settings.seeds, random.Random(spec.game_id))
        children: list[ChildProcess] = []
        try:
            async with contextlib.AsyncExitStack() as stack:
                keyboard = None
                if HUMAN in spec.players:
                    keyboard = await stack.enter_async_context(open_keyboard())
                    stack.callback(events.listen(_person_view(spec)))
                seats = await _seats(spec.players, settings, layout, children, keyboard)
                match = new_match(
                    new_game(settings.holes, settings.seeds, pie=settings.pie, layout=layout),
                    seats,
                    [settings.time_ms] * 2,
                    events=events,
                    settings={**spec.settings, "opening": spec.opening},
                    game_id=spec.game_id,
                )
                result = await match.run()
        finally:
            await end_programs(children)
        return result.record


def _json_spec(spec: str) -> Any:
    """The `hub.declared.seats.SeatSpec` of a ``json:PROGRAM`` player; raises ValueError."""
    from hub.declared.seats import parse_seat
    from hub.games.kalah.game import KalahGame

    parsed = parse_seat(spec.removeprefix(JSON_PREFIX), KalahGame)
    if parsed.kind != "program":
        raise ValueError(f"{spec}: json: names a program speaking the JSON bot protocol")
    return parsed


def _json_spec_error(spec: str) -> str | None:
    try:
        _json_spec(spec)
    except ValueError as exc:
        return str(exc)
    return None


def _declared_game(settings: KalahSettings, layout: tuple[int, ...] | None) -> Any:
    """The declaration with this game's settings (what a JSON bot is told at its start)."""
    from hub.games.kalah.game import KalahGame

    return KalahGame(settings.declared(layout))


def _person_view(spec: GameSpec) -> GameView:
    """What the person sees of the game, besides the board at each of their turns."""
    names = (spec.players[0], spec.players[1])
    return GameView(Output(1), names, names.index(HUMAN), False, game_id=spec.game_id)


async def _seats(
    specs: Sequence[str],
    settings: KalahSettings,
    layout: tuple[int, ...] | None,
    children: list[ChildProcess],
    keyboard: Keys | None,
) -> list[KalahSeat]:
    """A seat per player spec; programs are started (appended to ``children`` at once, for
    the caller to reap) and greeted together; one that fails is a `FailedSeat`."""
    seats: list[KalahSeat | None] = []
    programs: list[tuple[int, ChildProcess]] = []
    bots: list[tuple[int, str, ChildProcess]] = []
    infos: dict[int, PlayerInfo] = {}
    longest = max_line(settings.holes, settings.seeds)
    for seat, spec in enumerate(specs):
        if spec.startswith(JSON_PREFIX):
            seats.append(await _start_bot(seat, spec, children, bots))
            continue
        level = ai_level(spec)
        if level is not None:
            seats.append(ai_seat(level, name=spec, spec=spec))
            continue
        if spec == HUMAN:
            assert keyboard is not None
            labels = ("you", "opponent")
            seats.append(person_seat(keyboard, Output(1), labels, name=HUMAN, spec=spec))
            continue
        program = resolve_program(spec) or spec
        info = infos[seat] = PlayerInfo(spec, "program", spec, program_identity(program))
        try:
            child = await ChildProcess.spawn([program], max_line=longest)
        except SpawnFailed as exc:
            seats.append(FailedSeat(info, Termination.DISCONNECT, f"not started: {exc}"))
            continue
        children.append(child)
        programs.append((seat, child))
        seats.append(None)
    failures: dict[int, SeatFailure | None] = {}

    async def greet_program(seat: int, child: ChildProcess) -> None:
        await welcome(child.lines)
        info = settings.info(seat == 0, layout)
        failures[seat] = await greet(child.lines, info, max_line=longest, timeout=START_TIMEOUT)

    bot_seats: dict[int, KalahSeat] = {}

    async def hello(seat: int, spec: str, child: ChildProcess) -> None:
        from hub.declared.seats import bot_seat

        game = _declared_game(settings, layout)
        parsed = _json_spec(spec)
        identity = program_identity(_script(parsed))
        name = _bot_name(parsed)
        bot_seats[seat] = await bot_seat(game, child.lines, name, "program", spec, identity)

    async with trio.open_nursery() as nursery:
        for seat, child in programs:
            nursery.start_soon(greet_program, seat, child)
        for seat, spec, child in bots:
            nursery.start_soon(hello, seat, spec, child)
    for seat, seated in bot_seats.items():
        seats[seat] = seated
    for seat, child in programs:
        info = infos[seat]
        failure = failures[seat]
        if failure is None:
            seats[seat] = client_seat(child.lines, info, longest)
        else:
            seats[seat] = FailedSeat(info, failure.termination, failure.detail)
    return [seat for seat in seats if seat is not None]


def _script(parsed: Any) -> str:
    """The program a parsed spec runs (its script, for a ``.py`` run under this Python)."""
    return str(parsed.argv[1] if parsed.argv[0] == sys.executable else parsed.argv[0])


def _bot_name(parsed: Any) -> str:
    from hub.declared.seats import short_name

    return str(short_name(parsed))


async def _start_bot(
    seat: int, spec: str, children: list[ChildProcess], bots: list[tuple[int, str, ChildProcess]]
) -> KalahSeat | None:
    """Start a ``json:PROGRAM`` player (greeted later with the others); a `FailedSeat` if
    it does not start."""
    from hub.core.jsonbot import MAX_LINE

    parsed = _json_spec(spec)
    script = _script(parsed)
    try:
        child = await ChildProcess.spawn(list(parsed.argv), max_line=MAX_LINE, stderr=None)
    except SpawnFailed as exc:
        info = PlayerInfo(_bot_name(parsed), "program", spec, program_identity(script))
        return FailedSeat(info, Termination.DISCONNECT, f"not started: {exc}")
    children.append(child)
    bots.append((seat, spec, child))
    return None


async def end_programs(children: Sequence[ChildProcess]) -> None:
    """Close every program's stdin (the server closing the connection) and reap them all
    within `END_GRACE` in total (SIGKILL after it); shielded, so a cancelled game still
    leaves no child behind."""
    with trio.CancelScope(shield=True):
        for child in children:
            await child.close_stdin()
        await stop_all(children, grace=END_GRACE)


kit = KalahKit()
