"""A returning player of an adjourned game (hub.declared.adjourned): a `GameServer`'s side of
resuming, for TCP clients (a hello's ``resume``) and people in a browser (the lobby page's
"Resume"); and the relay of a TCP client to the process that resumes its game.

`Returning` seats each returning player in its game's `Gathering` (`Resumptions`); the last
to come plays the game on (`play_on`), from its last recorded move under its id, through the
server's `Playing`; until then a TCP client waits while connected, a person while their
page is open. A game another process of the hub resumes
(`hub.declared.adjourned.Elsewhere`; the holds: `hub.records.resuming`): a TCP client is
relayed there with its hello (its ``resume``, name and token), as the shared waiting queue
relays a client to its partner (`hub.declared.relay`).
"""

from __future__ import annotations

import contextlib
import math
import random
from typing import Any

import attrs
import trio

from hub.core.io.lines import LineError, LineStream
from hub.core.model.bus import EventBus
from hub.core.model.referee import Termination
from hub.core.model.values import PlayerInfo
from hub.core.play.game import Game
from hub.core.play.jsonbot import BadHello, Hello, JsonCodec
from hub.core.play.match import Match
from hub.core.play.seats import LineSeat
from hub.declared.adjourned import (
    ADJOURNED,
    ADJOURNED_AT,
    Elsewhere,
    Gathering,
    NotResumable,
    Resumptions,
)
from hub.declared.browser import BrowserSeat, DeskFull, SeatDesk, come, people, who
from hub.declared.hellos import CLOSING
from hub.declared.names import Refused
from hub.declared.playing import Playing
from hub.declared.relay import relay
from hub.declared.seats import SeatMaker


async def relay_resumed(lines: LineStream, hello: Hello, elsewhere: Elsewhere, game: str) -> None:
    """Play the client's resumed game at the process that holds it, then
    `hub.declared.relay.Relayed` is raised (its connection ends); returns if that process
    cannot be reached (the caller then refuses the hello, saying where the game waits)."""
    await relay(lines, hello, elsewhere.address, game, resume=True)


@attrs.define(eq=False)
class Returning:
    """The returning players of one server's adjourned games of ``game``: gathered in
    ``resumptions``, the games played on through ``playing`` (its `Playing.closing`: none
    once the server closes) on ``events``; people in browsers are waited for as in every
    game (``arrival``, ``grace``: `hub.declared.browser.come`; None: nobody is waited
    for)."""

    game: type[Game[Any, Any]]
    resumptions: Resumptions
    events: EventBus
    playing: Playing
    arrival: float | None
    grace: float

    async def tcp(self, lines: LineStream, hello: Hello, game_id: str, player: PlayerInfo) -> None:
        """A TCP client (``lines``) takes its seat in the adjourned game ``game_id`` again:
        the game is played on once every registered seat is back (by the last to come, in
        its task); until then it waits while connected. `BadHello` if it may not."""
        resumptions = self.resumptions
        try:
            gathering, number = await resumptions.join(self.game, game_id, player)
        except Elsewhere as exc:  # (another process of the hub resumes it: play it there)
            await relay_resumed(lines, hello, exc, self.game.name)
            raise BadHello(str(exc)) from None
        except NotResumable as exc:
            raise BadHello(str(exc)) from None
        game = gathering.resumption.game
        gathering.seats[number] = LineSeat(lines, JsonCodec(game), player)
        if gathering.complete:
            await self.play_on(game_id, gathering)
            return
        stopped = gathering.reading[number] = trio.Event()
        try:
            async with trio.open_nursery() as nursery:

                async def gone() -> None:  # (a line or EOF before the game starts: it left)
                    with contextlib.suppress(LineError):
                        await lines.receive_line()
                    resumptions.leave(game_id, gathering, number)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(gone)
                await gathering.started.wait()
                nursery.cancel_scope.cancel()
        finally:
            stopped.set()  # (the game may read its connection now: `Gathering.quiet`)
        if not gathering.called_off:
            await gathering.done.wait()
        if gathering.called_off:  # (before it started, or a person did not come)
            raise BadHello(f"{gathering.called_off}: the game was not resumed")

    async def listed(self, player: PlayerInfo) -> list[dict[str, Any]]:
        """The lobby page's "your adjourned games": those of this game ``player`` may resume
        (``game_id``, ``players``, ``moves``, ``ended_at``); none for a guest."""
        found = await self.resumptions.of_player(self.game.name, player)
        return [
            {
                "game_id": summary.game_id,
                "players": list(summary.players),
                "moves": summary.moves,
                "ended_at": summary.ended_at,
            }
            for summary in found
        ]

    async def browser(
        self, game_id: str, player: PlayerInfo, desk: SeatDesk, nursery: trio.Nursery
    ) -> dict[str, Any]:
        """A person in a browser takes their seat in the adjourned game ``game_id`` again
        (a seat of ``desk``; the game and their wait run in ``nursery``): their seat's page
        (``{"play": PATH}``), where they wait for the other players to come back while the
        page is open; `Refused` if they may not, `DeskFull` if the desk has no room."""
        resumptions = self.resumptions
        try:
            gathering, number = await resumptions.join(self.game, game_id, player)
        except NotResumable as exc:
            raise Refused(str(exc)) from None
        try:
            seat = desk.open(gathering.resumption.game, player)
        except DeskFull:
            resumptions.leave(game_id, gathering, number)  # (forgotten if no one waits)
            raise
        gathering.seats[number] = seat
        seat.place(number, [each.name for each in gathering.resumption.record.players])
        if gathering.complete:
            nursery.start_soon(self.play_on, game_id, gathering)
        else:
            seat.wait_for("Waiting for the other players to resume the game.")
            nursery.start_soon(self._waits, game_id, gathering, number, seat)
        return {"play": f"/play/{seat.token}", "share": None}

    async def _waits(
        self, game_id: str, gathering: Gathering, number: int, seat: BrowserSeat
    ) -> None:
        """A person waits for the others of their adjourned game while their page is open;
        gone (or the game called off), their seat is free again."""
        resumptions = self.resumptions
        arrival = math.inf if self.arrival is None else self.arrival
        async with trio.open_nursery() as nursery:

            async def gone() -> None:
                await seat.gone(arrival, self.grace)
                resumptions.leave(game_id, gathering, number)
                seat.call_off("You left: the game was not resumed.")
                nursery.cancel_scope.cancel()

            nursery.start_soon(gone)
            await gathering.started.wait()
            nursery.cancel_scope.cancel()
        if gathering.called_off:
            seat.call_off(f"{gathering.called_off}: the game was not resumed.")

    async def play_on(self, game_id: str, gathering: Gathering) -> None:
        """Play the gathered adjourned game on from its last recorded move, under its id
        (its record replaces the adjourned one: hub.records.store)."""
        resumed = gathering.resumption
        kept = False
        try:
            maker = SeatMaker(resumed.game, random.randrange(2**31))
            numbers = sorted(resumed.built)
            async with maker.seats([resumed.built[n] for n in numbers]) as made:
                seats = dict(gathering.seats)
                seats.update(zip(numbers, made, strict=True))
                ordered = [seats[n] for n in range(len(seats))]
                gathering.started.set()
                await gathering.quiet()
                absent = await come(resumed.game, ordered, self.arrival, self.grace)
                closing = self.playing.closing
                if absent or closing:
                    missing = who(resumed.game, ordered, absent)
                    why = CLOSING if closing else f"{missing} did not come in time"
                    gathering.called_off = why
                    for seat in ordered:
                        if isinstance(seat, BrowserSeat):
                            seat.call_off(f"{why}: the game was not resumed.")
                    return
                match = Match(
                    resumed.game,
                    resumed.history.state,
                    ordered,
                    events=self.events,
                    time_control=resumed.controls,
                    settings=resumed.game.settings,
                    record_settings={ADJOURNED_AT: resumed.adjourned_at()},
                    game_id=game_id,
                    history=resumed.history,
                )
                resumed.set_clocks(match.clocks.seats)
                so_far = [
                    (seat, text, after) for seat, text, _, after, _ in resumed.history.recorded
                ]
                for _, person in people(ordered):
                    person.earlier(so_far, resumed.history.initial)
                grace = self.grace if self.arrival is not None else math.inf
                try:
                    await self.playing.attended(match, ordered, grace)
                finally:
                    kept = recorded(match)
        finally:
            self.resumptions.finished(game_id, gathering, kept=kept)


def recorded(match: Match[Any, Any]) -> bool:
    """Whether ``match``'s game is kept in the records (by ``hub serve``): finished, or
    adjourned; not another abort."""
    fault = match.result.fault if match.result is not None else None
    if match.result is None:
        return False
    return (
        fault is None or fault.termination is not Termination.ABORTED or (fault.detail == ADJOURNED)
    )
