"""``hub match GAME ...`` for every declared game: the `TournamentKit` derived from a declaration.

Players are the seat specs of `hub.declared.seats` that need no person (``ai:N``,
``random``, a program speaking the JSON bot protocol). Settings are the game's options plus
``--tc``; each opening is drawn by the rules (`Game.opening`: a seed for the start and a few
random legal plies), recorded as JSON (``{"seed": S, "moves": ["4", "3"]}``) and played from
both sides by the schedule, so that deterministic players still play distinct games.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hub.core.game import Game, SettingsError
from hub.core.plugin import GameSpec, draw_distinct
from hub.declared.options import add_game_options, add_time_control, settings_from, time_control
from hub.declared.seats import SeatMaker, SeatSpecError, parse_seat

if TYPE_CHECKING:
    from hub.core.bus import EventBus
    from hub.core.events import GameRecord

TC_SETTING = "tc"
DEFAULT_TC = "10+0.1"
PEOPLE = ("human", "web", "tcp")


class DeclaredKit:
    """The `hub.core.plugin.TournamentKit` of a declared game."""

    def __init__(self, game: type[Game[Any, Any]]) -> None:
        self.game = game

    @property
    def seats(self) -> tuple[int, int]:
        return self.game.players

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        add_game_options(parser, self.game)
        add_time_control(parser, DEFAULT_TC)

    def settings(self, options: argparse.Namespace) -> dict[str, Any]:
        settings: dict[str, Any] = self.game(settings_from(options, self.game)).settings
        tc = getattr(options, "tc", DEFAULT_TC)
        time_control(tc)  # checked now: a usage error before any game
        return {**settings, TC_SETTING: tc}

    def _game(self, settings: Mapping[str, Any], seats: int = 0) -> Game[Any, Any]:
        rules = {key: value for key, value in settings.items() if key != TC_SETTING}
        return self.game(rules, seats=seats)

    def check_player(self, spec: str, settings: Mapping[str, Any]) -> str | None:
        try:
            parsed = parse_seat(spec, self.game)
        except SeatSpecError as exc:
            return str(exc)
        if parsed.kind in PEOPLE:
            return f"{spec}: a match is played by programs and AIs (ai:N, random, a program)"
        return None

    def openings(self, settings: Mapping[str, Any], count: int, seed: int) -> list[Any]:
        game = self._game(settings)
        rng = random.Random(seed)

        def draw() -> dict[str, Any]:
            start_seed = rng.randrange(2**31)
            first, moves = game.opening(random.Random(start_seed))
            texts, state = [], first
            for move in moves:
                texts.append(game.move_text(state, move))
                state = game.apply(state, move)
            return {"seed": start_seed, "moves": texts}

        return draw_distinct(draw, count)

    def start(self, game: Game[Any, Any], opening: Any) -> Any:
        """The state an opening starts from: the game's start from its seed, then its moves."""
        if not isinstance(opening, Mapping):
            return game.start(random.Random(0))
        state = game.start(random.Random(int(opening.get("seed", 0))))
        for text in opening.get("moves", ()):
            state = game.apply(state, game.parse_move(state, str(text)))
        return state

    async def play(self, spec: GameSpec, events: EventBus) -> GameRecord:
        from hub.core.match import Match

        game = self._game(spec.settings, seats=len(spec.players))
        try:
            control = time_control(str(spec.settings.get(TC_SETTING, DEFAULT_TC)))
            specs = [parse_seat(text, self.game) for text in spec.players]
        except (SettingsError, SeatSpecError) as exc:
            raise ValueError(str(exc)) from None
        seed = random.Random(spec.game_id).randrange(2**31)
        async with SeatMaker(game, seed).seats(specs) as seats:
            match = Match(
                game,
                self.start(game, spec.opening),
                seats,
                notation=game,
                events=events,
                time_control=control,
                settings={**spec.settings, "opening": spec.opening},
                game_id=spec.game_id,
            )
            result = await match.run()
        return result.record
