"""A local game of Kalah at the terminal (``hub play kalah`` without ``--connect``).

The game is refereed by the core match loop like any other, played by the declaration
(`hub.games.kalah.seats.new_match`, two local seats: a person, the AI); what the terminal
shows is a `GameView` listening to its events. A person who quits loses by resignation.
"""

from __future__ import annotations

from hub.core.io.output import Output
from hub.core.model.bus import EventBus
from hub.core.model.events import GameRecord
from hub.core.play.person import Keys, PersonSeat
from hub.games.kalah.options import PlayOptions
from hub.games.kalah.players import ai_seat, person_seat, time_warning
from hub.games.kalah.printer import GameView
from hub.games.kalah.seats import KalahSeat, new_match
from hub.games.kalah.server import setup_game
from hub.records.recording import recording

LOCAL_ADVICE = "give a longer --time-ms, or 0 for no limit"
"""What a person is told to do when the limit is too short to type a move."""


async def play_local(options: PlayOptions, out: Output, keyboard: Keys | None = None) -> GameRecord:
    """A game at the terminal: the local player (person or AI) against --opponent; its record."""
    game = options.game
    setup = setup_game(game, 1)

    def make(human: bool, name: str, other: str) -> KalahSeat:
        if human:
            assert keyboard is not None
            return person_seat(keyboard, out, (name, other), name=name)
        return ai_seat(game.level, name=name)

    me_first = setup.first_seat_first
    two_people = options.human and game.opponent == "human"
    mine = "player 1" if two_people else ("you" if options.human else "AI 1")
    theirs = "player 2" if two_people else ("AI" if options.human else "AI 2")
    names = (mine, theirs) if me_first else (theirs, mine)
    players = [make(options.human, mine, theirs), make(game.opponent == "human", theirs, mine)]
    limits = [game.settings.time_ms, game.server_limit_ms]
    if not me_first:
        players.reverse()
        limits.reverse()
    # A person sees the board at each of their turns (`person_seat`), so the view draws
    # boards only for a game of AIs: the opening board too, else it came out twice.
    no_person = not options.human and game.opponent != "human"
    view = GameView(out, names, 0 if me_first else 1, no_person, options.quiet)
    if not options.quiet:
        out.line(f"Kalah: {names[0]} (South, moves first) vs {names[1]} (North)")
        people = [
            limit
            for player, limit in zip(players, limits, strict=True)
            if limit and isinstance(player, PersonSeat)
        ]
        warning = time_warning(min(people), LOCAL_ADVICE) if people else None
        if warning is not None:
            out.line(warning)
        if not isinstance(players[0], PersonSeat):
            view.draw(setup.state)
        out.flush()
    events = EventBus()
    events.listen(view)
    match = new_match(setup.game, setup.state, players, limits, events=events)
    async with recording(events, options.record, prog="hub play kalah"):
        result = await match.run()
    return result.record
