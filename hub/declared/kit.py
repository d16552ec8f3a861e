"""``hub match GAME ...`` for every game: the one `TournamentKit`, derived from a declaration.

Everything a game does differently in a match is its declaration's `setup` facet
(`hub.core.play.game.MatchSetup`), each method with a default that suits most games, and its
`programs` facet (`hub.core.play.game.Programs`):

* options: `MatchSetup.options` (default: the game's options and ``--tc``), turned into the
  settings recorded with each game by `MatchSetup.settings`;
* openings: `MatchSetup.openings` (JSON values, drawn from a seed, each played from both sides by
  the schedule, so that deterministic players still play distinct games; default: a seed
  for the start and a few random legal plies, ``{"seed": S, "moves": ["4", "3"]}``);
* one game: `MatchSetup.plan` returns its `hub.core.play.game.MatchPlan`, a value: the game that
  referees it (chess: with an arbiter's draws and a ply cap), its clocks, its first state
  and what the game's own seats are told; a fault scores `Game.forfeit`;
* adjudication: ``--resign``, ``--draw`` and ``--max-plies`` (`hub.declared.adjudication`),
  recorded in the settings, give each game an adjudicator the match loop asks after each move;
* players: the seat specs of `hub.declared.seats` that need no person (``ai:N``,
  ``random``, a program), plus ``human`` (the person at this terminal, or the game's own,
  `Programs.person`) when the kit is run at one. A bare program spec is a seat of the
  game's `Programs.program_kind` (Kalah's and clubs' own protocols, a UCI engine for chess;
  the JSON bot protocol by default) and ``json:PROGRAM`` the JSON bot protocol for every
  game. `Programs.check` checks a spec of the game's own kinds before any game (chess
  starts a UCI engine once).

A seat of a game's own kind may launch what it needs before the clocks start and keep it
in the slot's session (`session`, `hub.core.play.session`) from one game to the next: chess's
engines get ``ucinewgame`` instead of a new process.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from hub.core.play.game import Game, Option, SettingsError, Value
from hub.core.play.kit import RECORD_SEEDS, GameSpec
from hub.declared.options import option_help
from hub.declared.seats import SeatFactory, SeatMaker, SeatSpec, SeatSpecError, parse_seat

if TYPE_CHECKING:
    from hub.core.model.bus import EventBus
    from hub.core.model.events import GameRecord
    from hub.core.play.session import Session
    from hub.core.play.vocabulary import Seat

HUMAN = "human"
REFUSED = ("web", "tcp")
GENERIC_WORDS = ("ai", "mcts", "random", HUMAN, "web", "tcp", "json")
"""The first words of the specs that are not a bare program."""


def _dest(option: Option) -> str:
    return f"match_{option.name}"


class DeclaredKit:
    """The `hub.core.play.kit.TournamentKit` of a declared game."""

    def __init__(self, game: type[Game[Any, Any]]) -> None:
        self.game = game

    @property
    def seats(self) -> tuple[int, int]:
        return self.game.players

    # -- options and settings ------------------------------------------------------------------

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        options = self.game.setup.options(self.game)
        if not options:
            return
        group = parser.add_argument_group(f"{self.game.name} settings")
        for option in options:
            if option.switch:
                group.add_argument(
                    option.flag, dest=_dest(option), action="store_true", default=None,
                    help=option_help(option),
                )  # fmt: skip
            else:
                group.add_argument(
                    option.flag, dest=_dest(option), metavar="VALUE", help=option_help(option)
                )

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        """The recorded settings (`MatchSetup.settings`); raises `ValueError` saying which
        option is wrong."""
        given: dict[str, Value] = {}
        for option in self.game.setup.options(self.game):
            text = getattr(options, _dest(option), None)
            if text is None:
                continue
            try:
                given[option.name] = option.convert(text)
            except SettingsError as exc:
                raise SettingsError(f"{option.flag}: {exc}") from None
        return self.game.setup.settings(self.game, given)

    # -- players -------------------------------------------------------------------------------

    def seat_spec(self, text: str) -> SeatSpec:
        """The seat ``text`` names in a match; raises `SeatSpecError`."""
        word = text.strip().partition(":")[0]
        programs = self.game.programs
        kind = programs.program_kind
        if kind != "program" and word not in GENERIC_WORDS and word not in programs.kinds:
            if not text.strip():
                raise SeatSpecError("an empty seat spec")
            return SeatSpec(kind, text)
        return parse_seat(text, self.game)

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        try:
            parsed = self.seat_spec(spec)
        except SeatSpecError as exc:
            return str(exc)
        if parsed.kind in REFUSED:
            return f"{spec}: a match is played by programs and AIs (ai:N, random, a program)"
        if parsed.kind == HUMAN and not sys.stdin.isatty():
            return f"{spec}: standard input is not a terminal, so nobody can type moves"
        programs = self.game.programs
        if parsed.kind in programs.kinds:
            command = spec.partition(":")[2] if spec.startswith(f"{parsed.kind}:") else spec
            return programs.check(parsed.kind, command.strip(), spec)
        return None

    # -- openings and games --------------------------------------------------------------------

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        return self.game.setup.openings(self.game, settings, count, seed)

    def fixed_openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        """``--openings fixed`` (`hub.core.play.game.MatchSetup.fixed_openings`): none, or deals."""
        return self.game.setup.fixed_openings(self.game, settings, count, seed)

    def deals(self) -> bool:
        """Whether an opening is a deal (`hub.core.play.game.MatchSetup.deals`): each game is
        then dealt its own unless ``--duplicate``."""
        return self.game.setup.deals(self.game)

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[Session]:
        """Games played inside may keep what their seats started (a chess engine) for the
        next (`hub.core.play.session`; each slot of ``hub match`` opens one); leaving stops it."""
        from hub.core.play.session import open_session

        async with open_session() as session:
            yield session

    def warm(self) -> None:
        """Import what `play` will need (and the seats', `hub.core.play.game.Programs.warm`):
        a match's worker does this before its first game arrives."""
        import hub.core.play.match
        import hub.core.play.session
        import hub.declared.adjudication  # noqa: F401

        self.game.programs.warm()

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        from hub.core.play.match import Match
        from hub.declared.adjudication import adjudicator_of

        try:
            plan = self.game.setup.plan(
                self.game, spec.settings, len(spec.players), spec.opening, spec.game_id
            )
            specs = [self.seat_spec(text) for text in spec.players]
        except (SettingsError, SeatSpecError) as exc:
            raise ValueError(str(exc)) from None
        game = plan.game
        setup = self.game.setup
        seed = spec.seed if spec.seed is not None else random.Random(spec.game_id).randrange(2**31)
        async with contextlib.AsyncExitStack() as stack:
            extra: dict[str, SeatFactory] = {}
            if any(parsed.kind == HUMAN for parsed in specs):
                extra[HUMAN] = await stack.enter_async_context(_person(game, spec, events))
            maker = SeatMaker(game, seed, extra, plan.detail)
            seats = await stack.enter_async_context(maker.seats(specs))
            adjudicate = adjudicator_of(spec.settings, game, seats)
            match = Match(
                game,
                plan.state,
                seats,
                events=events,
                time_control=plan.clock,
                settings={
                    **spec.settings,
                    "opening": setup.public_opening(self.game, spec.opening),
                },
                record_settings=secret_settings(spec),
                game_id=spec.game_id,
                adjudicate=adjudicate,
            )
            if spec.chance_seed is not None:
                match.chance_rng = random.Random(spec.chance_seed)
            result = await match.run()
        return result.record


def secret_settings(spec: GameSpec) -> dict[str, Any]:
    """What reproduces a game and stays out of every event until it is over (the finished
    record's settings): the whole opening (a deal) and the seeds of its players and its
    chance."""
    seeds = {"players": spec.seed, "chance": spec.chance_seed}
    known = {key: value for key, value in seeds.items() if value is not None}
    return {"opening": spec.opening, **({RECORD_SEEDS: known} if known else {})}


@contextlib.asynccontextmanager
async def _person(
    game: Game[Any, Any], spec: GameSpec, events: EventBus
) -> AsyncIterator[SeatFactory]:
    """The factory of the seat of a person at this terminal (standard input, when it is a
    terminal: a worker process of ``hub match --concurrency`` reads its requests there);
    the game's own person (`hub.core.play.game.Programs.person`) if it has one."""
    from hub.core.io.output import Output
    from hub.core.model.referee import Termination
    from hub.core.model.values import PlayerInfo
    from hub.core.play.vocabulary import FailedSeat

    own = game.programs.person
    if own is not None:

        def its_own(
            seat: SeatSpec, number: int
        ) -> contextlib.AbstractAsyncContextManager[Seat[Any, Any]]:
            return own(game, spec, events)

        yield its_own
        return
    if not sys.stdin.isatty():

        @contextlib.asynccontextmanager
        async def nobody(seat: SeatSpec, number: int) -> AsyncIterator[Seat[Any, Any]]:
            player = PlayerInfo(HUMAN, "person", HUMAN)
            yield FailedSeat(
                player,
                Termination.DISCONNECT,
                "no terminal to type moves on (play a person's games without --concurrency)",
            )

        yield nobody
        return
    from hub.core.io.stdin import open_line_input
    from hub.core.play.person import PersonSeat
    from hub.declared.terminal import PersonWords

    async with open_line_input() as keyboard:

        @contextlib.asynccontextmanager
        async def person(seat: SeatSpec, number: int) -> AsyncIterator[Seat[Any, Any]]:
            player = PlayerInfo(HUMAN, "person", HUMAN)
            yield PersonSeat(keyboard, Output(1), PersonWords(game), player)

        yield person
