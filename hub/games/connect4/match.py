"""``hub match connect4``'s setup (`hub.core.play.game.MatchSetup`): the game's options and
``--tc`` as for any game, and ``--opening-plies``: how many random plies make an opening.
Two (the default) give 49 distinct starts on the usual grid, so deterministic levels play at
most 98 distinct games; three give 238 (the ladder of docs/matches.md, measured on more
independent game pairs)."""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping
from typing import Any

from hub.core.play.game import Game, MatchSetup, Option

OPENING_PLIES = Option(
    "opening_plies", MatchSetup.opening_plies,
    "random plies from the empty grid that make each opening (2: 49 distinct starts on 6x7, "
    "3: 238)", low=1, high=8,
)  # fmt: skip


class ConnectFourSetup(MatchSetup):
    """`MatchSetup` with ``--opening-plies``, recorded in the settings only when it is not
    the default (so matches recorded before the option resume as they were)."""

    def options(self, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
        return (*super().options(game), OPENING_PLIES)

    def settings(self, game: type[Game[Any, Any]], given: Mapping[str, Any]) -> dict[str, Any]:
        settings = super().settings(game, given)
        plies = int(given.get(OPENING_PLIES.name, OPENING_PLIES.default))
        if plies != OPENING_PLIES.default:
            settings[OPENING_PLIES.name] = plies
        return settings

    def openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        """`MatchSetup.openings` of the settings' ``opening_plies`` random plies, distinct by
        the discs and the side to move: the last move's column, which the state keeps for
        its picture, does not make a position of its own (three plies reach one grid in two
        orders; the levels play it alike)."""
        plies = int(settings.get(OPENING_PLIES.name, OPENING_PLIES.default))
        if plies == OPENING_PLIES.default:
            return super().openings(game, settings, count, seed)
        from hub.core.play.kit import draw_distinct

        drawer = MatchSetup()
        drawer.opening_plies = plies
        rules = self.rules(game, settings, game.players[0])
        rng = random.Random(seed)

        def draw() -> tuple[dict[str, Any], Hashable]:
            start_seed = rng.randrange(2**31)
            state, moves = drawer.opening(rules, random.Random(start_seed))
            texts = []
            for move in moves:
                texts.append(rules.move_text(state, move))
                state = rules.apply(state, move)
            return {"seed": start_seed, "moves": texts}, (state.columns, state.mover)

        return [opening for opening, _ in draw_distinct(draw, count, key=lambda pair: pair[1])]
