"""Kalah, declared: the `hub.core.play.game.Game` over Kalah's pure pieces.

The rules are `hub.games.kalah.rules`' pure functions, the notation is the
protocol's (``4 3``: a whole turn, several holes when a sowing ends in one's own store;
``P``: the pie swap), the view is `hub.games.kalah.codec.state_view` (docs/architecture.md,
"State views"), the pictures are `hub.games.kalah.pictures` and the AI is
`hub.games.kalah.ai`'s search. hub derives from it what every declared game gets: ``hub
play kalah SEAT SEAT`` (people, AIs, JSON bots), the pictures of ``hub games show`` and the
web view, and its facets give the rest: `KalahPictures`, the AI (`kalah_ai`), agent programs
and Kalah's own terminal person on ``hub match`` (`Programs`), layouts as a match's
openings (`KalahSetup`) and random sowings for the general player's playouts (`Search`).
The spec-fixed programs (``hub serve kalah``, ``hub play kalah --connect``) are
Kalah's own (hub/games/kalah/plugin.py), built from this declaration: their games are
played by it (`hub.games.kalah.seats.new_match`). The settings are decided and checked
once, by `hub.games.kalah.settings.KalahSettings`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hub.core.model.referee import Outcome
from hub.core.model.values import JSON
from hub.core.play.game import (
    Ai,
    BadMove,
    Game,
    MatchPlan,
    MatchSetup,
    Option,
    Pictures,
    Programs,
    Search,
    SettingsError,
)
from hub.games.kalah import ai as alphabeta
from hub.games.kalah import pictures
from hub.games.kalah.protocol import MAX_TIME_MS, BadLine, format_move, parse_move
from hub.games.kalah.rules import (
    MAX_HOLES,
    MAX_SEEDS,
    MIN_HOLES,
    MIN_SEEDS,
    KalahState,
    Move,
    candidate_moves,
    legal_moves,
    outcome,
    play,
    random_layout,
    random_playout,
)
from hub.games.kalah.settings import DEFAULT_TIME_MS, KalahSettings, parse_layout

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from hub.core.model.bus import EventBus
    from hub.core.play.kit import GameSpec
    from hub.core.play.threads import StopFlag
    from hub.core.play.vocabulary import Fault, Seat


class KalahPictures(Pictures):
    """Kalah's board (`hub.games.kalah.pictures`): the sides named by who sits there now."""

    def text(self, view: JSON, names: Sequence[str] = ()) -> str:
        if not names:
            names = [pictures.side_name(s, view) for s in (0, 1)]
        return "\n".join(pictures.text_lines(view, names))

    def html(self, view: JSON, names: Sequence[str] = ()) -> str:
        return pictures.board_html(view)

    def html_after(self, view: JSON, names: Sequence[str], move: str, before: JSON) -> str:
        """The board with the last turn's holes sown and the pit of its last seed marked."""
        sown, landed = pictures.last_move_marks(before, move)
        return pictures.board_html(view, sown, landed)


def kalah_ai(
    game: Game[KalahState, Move], state: KalahState, level: int, seconds: float, stop: StopFlag
) -> Move:
    """The search at ``level`` for ``seconds`` (the core's budget from the seat's clocks;
    without a limit, as ``hub serve kalah``'s AI without one); the greedy turn is offered
    first, for the seat's hard stop."""
    from hub.games.kalah.players import KalahAi

    budget = seconds if math.isfinite(seconds) else alphabeta.budget_seconds(0)
    stop.offer(alphabeta.greedy(state))  # the seat's hard stop plays it (well under a ms)
    return KalahAi(level).search(state, budget, stop)


def program_seat(
    game: Game[Any, Any], command: str, *, seat: int, spec: str, seed: int, detail: Any = None
) -> Seat[Any, Any]:
    """``kalah:PROGRAM``, and a bare program on ``hub match kalah``: an agent program of
    kalah.md over pipes (`hub.games.kalah.match.program_seat`)."""
    from hub.games.kalah.match import program_seat as agent

    return agent(game, command, seat=seat, spec=spec, seed=seed, detail=detail)


def person_seat(
    game: Game[Any, Any], spec: GameSpec, events: EventBus
) -> AbstractAsyncContextManager[Seat[Any, Any]]:
    """``human`` on ``hub match kalah``: Kalah's own board and words at the terminal."""
    from hub.games.kalah.match import person_seat as person

    return person(game, spec, events)


def check_program(kind: str, command: str, spec: str) -> str | None:
    from hub.core.io.programs import program_problem

    return program_problem(command)


class KalahSetup(MatchSetup):
    """``hub match kalah`` (docs/kalah.md): Kalah's options and settings, layouts as
    openings (the protocol cannot start a program's game after a few plies), a limit per
    whole turn; the plan's detail is (`KalahSettings`, the game's layout), its agents'
    ``INFO``."""

    opening_plies = 0
    """A Kalah opening is a layout (``--random``), as in ``hub match kalah``."""

    def options(self, game: type[Game[Any, Any]]) -> tuple[Option, ...]:
        holes, seeds, pie, randomly, layout = game.options
        time_ms = Option("time_ms", DEFAULT_TIME_MS, "every player's limit per whole turn, in "
                         "ms; 0 is none", low=0, high=MAX_TIME_MS)  # fmt: skip
        switches = (attrs.evolve(pie, switch=True), attrs.evolve(randomly, switch=True))
        return (holes, seeds, *switches, layout, time_ms)

    def settings(self, game: type[Game[Any, Any]], given: Mapping[str, Any]) -> dict[str, Any]:
        """The recorded settings (`KalahSettings`) from the options given; raises
        `ValueError` for options that do not fit together."""
        chosen = KalahSettings.given(
            given.get("holes"),
            given.get("seeds"),
            pie=bool(given.get("pie", False)),
            time_ms=int(given.get("time_ms", DEFAULT_TIME_MS)),
            random=bool(given.get("random", False)),
            layout=parse_layout(str(given.get("layout", ""))),
        )
        return chosen.to_json()

    def openings(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], count: int, seed: int
    ) -> list[Any]:
        """Seeded random layouts (distinct while there are enough), whether or not
        ``--random`` was given: the protocol cannot start a program's game after a few
        plies, so a layout is how a Kalah match varies its games. A given ``--layout`` is
        the user's start: no openings (every game from it)."""
        from hub.core.play.kit import draw_distinct

        chosen = KalahSettings.from_json(settings)
        if chosen.layout is not None:
            return []
        rng = random.Random(seed)
        return draw_distinct(lambda: list(random_layout(chosen.holes, chosen.seeds, rng)), count)

    def plan(
        self, game: type[Game[Any, Any]], settings: Mapping[str, Any], seats: int, opening: Any,
        game_id: str,
    ) -> MatchPlan[Any, Any]:  # fmt: skip
        from hub.core.model.clock import TimeControl

        chosen = KalahSettings.from_json(settings)
        rules = KalahGame(chosen.declared(chosen.layout), seats=seats)
        rules.settings["random"] = chosen.random
        rules.chosen = chosen
        layout = chosen.start_layout(opening, game_id)
        clock = [TimeControl.per_move_ms(chosen.time_ms)] * 2
        return MatchPlan(rules, clock, chosen.new_game(layout), (chosen, layout))


class KalahGame(Game[KalahState, Move]):
    name = "kalah"
    summary = "Kalah (mancala) over TCP: server, AI and human clients, pie rule, random layouts"
    options = (
        Option("holes", 6, "holes on each side", low=MIN_HOLES, high=MAX_HOLES),
        Option("seeds", 4, "seeds in each hole at the start", low=MIN_SEEDS, high=MAX_SEEDS),
        Option("pie", False, "the pie rule: the second player may swap sides after the first turn"),
        Option("random", False, "a random layout of the same seeds, the same on both sides"),
        Option("layout", "", "the seeds in each hole of a side, e.g. 6,4,7,6,5,8 (sets holes)"),
    )
    seat_names = ("South", "North")
    pictures = KalahPictures()
    ai = Ai(range(alphabeta.MIN_LEVEL, alphabeta.MAX_LEVEL + 1), kalah_ai, alphabeta.DEFAULT_LEVEL)
    programs = Programs({"kalah": program_seat}, "kalah", person=person_seat, check=check_program)
    """``hub match kalah ai:9 ./agent``: a bare program is an agent of kalah.md, over pipes."""
    setup = KalahSetup()
    search = Search(playout=lambda game, state, rng: random_playout(state, rng))
    """``mcts:N`` plays out by random sowings, not by listing whole turns."""

    def __init__(self, settings: Mapping[str, object] | None = None, seats: int = 0) -> None:
        super().__init__(settings, seats)
        given, chosen = settings or {}, self.settings
        self.chosen: KalahSettings
        """The game's settings as Kalah's one settings value (`KalahSettings.given`)."""
        try:
            layout = parse_layout(str(chosen["layout"]))
        except ValueError as exc:
            raise SettingsError(str(exc)) from None
        try:
            self.chosen = KalahSettings.given(
                chosen["holes"] if "holes" in given else None,
                chosen["seeds"] if "seeds" in given else None,
                pie=bool(chosen["pie"]),
                random=bool(chosen["random"]),
                layout=layout,
            )
        except ValueError as exc:
            raise SettingsError(f"layout: {exc}") from None
        chosen["holes"], chosen["seeds"] = self.chosen.holes, self.chosen.seeds

    def forfeit(self, state: KalahState, fault: Fault) -> Outcome:
        """The other seat wins; the stores are the scores."""
        from hub.core.play.vocabulary import forfeit_outcome

        return attrs.evolve(forfeit_outcome(2, fault), scores=(state.store(0), state.store(1)))

    # -- rules -----------------------------------------------------------------------------

    def start(self, rng: random.Random) -> KalahState:
        return self.chosen.new_game(self.chosen.layout_for(rng))

    def seats(self, state: KalahState) -> int:
        return 2

    def to_move(self, state: KalahState) -> int | None:
        return state.mover

    def legal_moves(self, state: KalahState) -> Sequence[Move]:
        return legal_moves(state)

    def candidate_moves(self, state: KalahState) -> Any:
        """Single holes, the legal turns cut short or run on, and the pie."""
        return candidate_moves(state)

    def apply(self, state: KalahState, move: Move) -> KalahState:
        return play(state, move)

    def outcome(self, state: KalahState) -> Outcome | None:
        return outcome(state)

    # -- notation --------------------------------------------------------------------------

    def move_text(self, state: KalahState, move: Move) -> str:
        return format_move(move)

    def parse_move(self, state: KalahState, text: str) -> Move:
        """Holes separated by spaces or commas (``4 3``), or ``P``/``p``."""
        line = text.replace(",", " ").strip()
        try:
            return parse_move("P" if line.lower() == "p" else line, state.holes)
        except BadLine as exc:
            raise BadMove(f"{text.strip()[:40]!r} is not a Kalah move: {exc}") from None

    # -- views and pictures ----------------------------------------------------------------

    def view(self, state: KalahState, seat: int | None = None) -> JSON:
        """The spectator's view is today's state view; the mover's own view adds
        ``"pie": true`` while the pie swap is its legal move (for its clickable board)."""
        from hub.games.kalah.codec import state_view  # imports the match loop: when needed

        view: dict[str, Any] = state_view(state)
        if seat is not None and seat == state.mover and state.pie_available:
            view["pie"] = True
        return view

    def seat_name(self, seat: int, view: JSON = None) -> str:
        """A seat is named by the side it sits on at ``view`` (the pie swap changes it);
        without a position, by its number (``seat 0``), which does not change."""
        if seat < 2 and isinstance(view, Mapping):
            return pictures.side_name(seat, view)
        return f"seat {seat}"
