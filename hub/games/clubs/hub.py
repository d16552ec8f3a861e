"""``clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]``: referee one clubs game.

The thin I/O layer of clubs: it parses the command line and the deck file, starts the
players as child processes (`hub.core.process`), and lets `hub.core.match.run_match`
drive the pure referee (`hub.games.clubs.rules`) with one `ProgramSeat` per player and a
`Narrator` that prints the transcript. Whatever happens (game over, a faulty player,
SIGINT) every player is sent ``end`` and reaped within 2 seconds, then the exit reports
and the hub's own message are printed and the hub exits with the status of clubs.md.
"""

from __future__ import annotations

import enum
import os
import signal
import sys
from collections.abc import Sequence

import attrs
import trio

from hub.core.lines import LineError, LineTooLong
from hub.core.match import SeatFailure, run_match
from hub.core.output import Output
from hub.core.process import ChildProcess, ExitStatus, SpawnFailed, stop_all
from hub.core.text import parse_whole_number
from hub.games.clubs.cards import Card, DeckError, card_text, format_hand, parse_deck_file
from hub.games.clubs.protocol import (
    END,
    LABELS,
    MAX_PLAY_LINE,
    NEWTRICK,
    READY,
    TRICKOVER,
    YOURTURN,
    newround_line,
    parse_play,
    played_line,
    scores_line,
)
from hub.games.clubs.rules import ClubsReferee, ClubsState, new_game

USAGE = "Usage: clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]"
END_GRACE = 2.0
"""Seconds every player has, in total, to exit after ``end`` before it is SIGKILLed."""
START_TIMEOUT_ENV = "CLUBHUB_START_TIMEOUT"
DEFAULT_START_TIMEOUT = 5.0
"""Seconds the players have, together, to send their ``-`` (override with the env var)."""
MAX_DECK_FILE = 16 * 1024 * 1024


class HubExit(enum.IntEnum):
    OK = 0
    USAGE = 1
    SCORE = 2
    DECKFILE = 3
    DECK = 4
    START = 5
    QUIT = 6
    MESSAGE = 7
    PLAY = 8
    SIGINT = 9


MESSAGES = {
    HubExit.USAGE: USAGE,
    HubExit.SCORE: "Invalid score",
    HubExit.DECKFILE: "Unable to access deckfile",
    HubExit.DECK: "Error reading deck",
    HubExit.START: "Unable to start subprocess",
    HubExit.QUIT: "Player quit",
    HubExit.MESSAGE: "Invalid message received from player",
    HubExit.PLAY: "Invalid play by player",
    HubExit.SIGINT: "SIGINT caught",
}


class CommandLineError(Exception):
    def __init__(self, status: HubExit) -> None:
        super().__init__(MESSAGES[status])
        self.status = status


@attrs.frozen
class Config:
    decks: tuple[tuple[Card, ...], ...]
    winscore: int
    programs: tuple[str, ...]
    start_timeout: float = DEFAULT_START_TIMEOUT
    end_grace: float = END_GRACE


def parse_command_line(args: Sequence[str]) -> Config:
    """Check the arguments in the order of the exit table; raises `CommandLineError`."""
    if not 4 <= len(args) <= 6:
        raise CommandLineError(HubExit.USAGE)
    deckfile, score_text, *programs = args
    winscore = parse_whole_number(score_text)
    if winscore is None or winscore < 1:
        raise CommandLineError(HubExit.SCORE)
    try:
        with open(deckfile, "rb") as handle:
            data = handle.read(MAX_DECK_FILE + 1)
    except OSError:
        raise CommandLineError(HubExit.DECKFILE) from None
    if len(data) > MAX_DECK_FILE:
        raise CommandLineError(HubExit.DECK)
    try:
        decks = parse_deck_file(data.decode("latin-1"))
    except DeckError:
        raise CommandLineError(HubExit.DECK) from None
    return Config(tuple(decks), winscore, tuple(programs), start_timeout=_start_timeout())


def _start_timeout() -> float:
    try:
        value = float(os.environ.get(START_TIMEOUT_ENV, DEFAULT_START_TIMEOUT))
    except ValueError:
        return DEFAULT_START_TIMEOUT
    return value if value > 0 else DEFAULT_START_TIMEOUT


# -- what each transition means on the wire and on stdout (pure) -------------------------


def round_ended(before: ClubsState, after: ClubsState) -> bool:
    return after.finished or after.round != before.round


def broadcast_lines(before: ClubsState, card: Card, after: ClubsState) -> list[str]:
    """The lines every player is sent after ``card`` took ``before`` to ``after``."""
    lines = [played_line(card)]
    if not after.trick:
        lines.append(TRICKOVER)
    if round_ended(before, after):
        lines.append(scores_line(after.scores))
    return lines


def prompt_line(state: ClubsState) -> str:
    return YOURTURN if state.trick else NEWTRICK


def hand_lines(state: ClubsState) -> list[str]:
    return [
        f"Player ({LABELS[seat]}): {format_hand(hand)}" for seat, hand in enumerate(state.hands)
    ]


def transcript_lines(before: ClubsState, card: Card, after: ClubsState) -> list[str]:
    """What the hub prints on stdout for one card (and the round end or start it causes)."""
    label = LABELS[before.to_move or 0]
    verb = "played" if before.trick else "led"
    lines = [f"Player {label} {verb} {card_text(card)}"]
    if round_ended(before, after):
        lines.append(scores_line(after.scores))
        if not after.finished:
            lines.extend(hand_lines(after))
    return lines


def winners_line(winners: Sequence[int]) -> str:
    return "Winner(s): " + " ".join(LABELS[seat] for seat in sorted(winners))


# -- the I/O adapters ----------------------------------------------------------------------


@attrs.define(eq=False)
class ProgramSeat:
    """A player program as a `hub.core.match.Seat`: messages are queued, then sent in one
    write per player just before the hub waits for a card."""

    seat: int
    child: ChildProcess
    table: list[ProgramSeat]

    async def begin(self, state: ClubsState) -> None:
        self.child.lines.queue_line(newround_line(state.hands[self.seat]))

    async def observe(self, before: ClubsState, card: Card, after: ClubsState) -> None:
        lines = self.child.lines
        for line in broadcast_lines(before, card, after):
            lines.queue_line(line)
        if after.round != before.round and not after.finished:
            lines.queue_line(newround_line(after.hands[self.seat]))

    async def choose(self, state: ClubsState) -> Card:
        self.child.lines.queue_line(prompt_line(state))
        for seat in self.table:
            await seat.child.lines.flush()
        try:
            line = await self.child.lines.receive_line(MAX_PLAY_LINE)
        except LineTooLong as exc:
            raise SeatFailure("malformed", str(exc)) from exc
        except LineError as exc:
            raise SeatFailure("quit", str(exc)) from exc
        card = parse_play(line)
        if card is None:
            raise SeatFailure("malformed", repr(line))
        return card


@attrs.define(eq=False)
class Narrator:
    """Prints the game on stdout, a round at a time."""

    out: Output

    async def begin(self, state: ClubsState) -> None:
        for line in hand_lines(state):
            self.out.line(line)

    async def observe(self, before: ClubsState, card: Card, after: ClubsState) -> None:
        for line in transcript_lines(before, card, after):
            self.out.line(line)
        if round_ended(before, after):
            self.out.flush()


@attrs.define(eq=False)
class Session:
    """One run of clubhub: the children it started and what became of the game."""

    config: Config
    out: Output
    children: list[ChildProcess] = attrs.Factory(list)
    all_started: bool = False
    interrupted: bool = False

    async def play(self) -> HubExit:
        players = len(self.config.programs)
        for seat, program in enumerate(self.config.programs):
            try:
                child = await ChildProcess.spawn(
                    [program, str(players), LABELS[seat]], max_line=MAX_PLAY_LINE
                )
            except SpawnFailed:
                return HubExit.START
            self.children.append(child)
        with trio.move_on_after(self.config.start_timeout):
            for child in self.children:
                try:
                    if await child.lines.receive_exactly(len(READY)) != READY:
                        return HubExit.START
                except LineError:
                    return HubExit.START
            self.all_started = True
        if not self.all_started:
            return HubExit.START
        table: list[ProgramSeat] = []
        table.extend(ProgramSeat(seat, child, table) for seat, child in enumerate(self.children))
        referee = ClubsReferee()
        state = new_game(self.config.decks, players, self.config.winscore)
        result = await run_match(referee, state, table, [Narrator(self.out)])
        self.out.flush()
        if result.fault is not None:
            error = result.fault.error
            if isinstance(error, SeatFailure):
                return HubExit.MESSAGE if error.reason == "malformed" else HubExit.QUIT
            return HubExit.PLAY
        assert result.outcome is not None
        self.out.line(winners_line(sorted(result.outcome.winners)))
        self.out.flush()
        return HubExit.OK

    async def end_players(self) -> list[ExitStatus]:
        """Send ``end`` to every player still running and reap all within ``end_grace``."""
        with trio.CancelScope(shield=True):
            deadline = trio.current_time() + self.config.end_grace
            async with trio.open_nursery() as nursery:
                for child in self.children:
                    nursery.start_soon(_say_end, child, deadline)
            statuses = await stop_all(self.children, grace=max(0.0, deadline - trio.current_time()))
        return statuses


async def _say_end(child: ChildProcess, deadline: float) -> None:
    if child.process.poll() is None:
        with trio.move_on_at(deadline):
            child.lines.queue_line(END)
            await child.lines.flush()
    await child.close_stdin()


def exit_report(label: str, status: ExitStatus) -> str | None:
    if status.signal is not None:
        return f"Player {label} terminated due to signal {status.signal}"
    if status.code:
        return f"Player {label} exited with status {status.code}"
    return None


async def run(config: Config, out: Output, err: Output) -> HubExit:
    """Play the game and shut everything down; print reports and the error; return the status."""
    session = Session(config, out)
    status = HubExit.OK
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:

            async def watch_sigint() -> None:
                async for _ in signals:
                    session.interrupted = True
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(watch_sigint)
            status = await session.play()
            nursery.cancel_scope.cancel()
        if session.interrupted:
            status = HubExit.SIGINT
        statuses = await session.end_players()
    out.flush()
    if session.all_started:
        for seat, child_status in enumerate(statuses):
            report = exit_report(LABELS[seat], child_status)
            if report is not None:
                err.line(report)
    if status != HubExit.OK:
        err.line(MESSAGES[status])
    err.flush()
    return status


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    out, err = Output(1), Output(2)
    try:
        try:
            config = parse_command_line(args)
        except CommandLineError as exc:
            err.line(MESSAGES[exc.status])
            err.flush()
            return exc.status
        return trio.run(run, config, out, err)
    except KeyboardInterrupt:
        out.flush()
        err.line(MESSAGES[HubExit.SIGINT])
        err.flush()
        return HubExit.SIGINT


if __name__ == "__main__":
    sys.exit(main())
