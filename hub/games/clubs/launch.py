"""``clubhub``'s first steps, before its game engine (trio, attrs, the core) is imported.

`check_arguments` checks the command line in the order of the spec's exit table (usage,
score, deck file, deck); `spawn_players` then starts the player programs at once, so that
their start-up (about 45 ms of CPU each) overlaps the hub's own imports instead of following
them: a whole game is that much shorter (docs/performance.md). The started children are
adopted by the game (`hub.core.io.process.ChildProcess.adopt`, `hub.games.clubs.table`), which
reaps them as it reaps every child; `abandon` ends them if the hub is interrupted before.

Standard library only, like ``clubber`` (tests/clubs/test_startup.py).
"""

from __future__ import annotations

import enum
import os
import subprocess

from hub.core.io.early import end_early, start_early
from hub.core.io.text import parse_whole_number, wants_help
from hub.games.clubs.cards import Card, DeckError, parse_deck_file
from hub.games.clubs.protocol import END, LABELS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

USAGE = "Usage: clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]"
MAX_DECK_FILE = 16 * 1024 * 1024
ABANDON_GRACE = 2.0
"""Seconds the players started early have, in total, to exit after ``end`` (clubs.md's 2)."""


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
    SIGTERM = 143
    """Ours (the spec is silent): SIGTERM shuts down as SIGINT does, then exits 128 + 15,
    with no message (it was not a SIGINT)."""


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
    """``status`` with the spec's message; ``detail`` says what and where, in words (only
    ``hub play clubs`` prints it: clubhub's stderr is the spec's)."""

    def __init__(self, status: HubExit, detail: str = "") -> None:
        super().__init__(MESSAGES[status])
        self.status = status
        self.detail = detail


def read_deck_file(path: str) -> list[tuple[Card, ...]]:
    """Every deck of the file at ``path``. Raises `OSError` if it cannot be read and
    `DeckError` if it is not a deck file (or is larger than `MAX_DECK_FILE` bytes)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_DECK_FILE + 1)
    if len(data) > MAX_DECK_FILE:
        raise DeckError(f"larger than {MAX_DECK_FILE} bytes")
    return parse_deck_file(data.decode("latin-1"))


class Arguments:
    """A command line that passed `check_arguments`."""

    __slots__ = ("deck_name", "decks", "programs", "winscore")

    def __init__(
        self,
        decks: tuple[tuple[Card, ...], ...],
        winscore: int,
        programs: tuple[str, ...],
        deck_name: str,
    ) -> None:
        self.decks = decks
        self.winscore = winscore
        self.programs = programs
        self.deck_name = deck_name


def check_arguments(args: Sequence[str]) -> Arguments:
    """Check the arguments in the order of the exit table; raises `CommandLineError`."""
    if not 4 <= len(args) <= 6:
        raise CommandLineError(HubExit.USAGE)
    deckfile, score_text, *programs = args
    winscore = parse_whole_number(score_text)
    if winscore is None or winscore < 1:
        raise CommandLineError(
            HubExit.SCORE, f"winscore must be a whole number of at least 1, not {score_text!r}"
        )
    try:
        decks = read_deck_file(deckfile)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise CommandLineError(
            HubExit.DECKFILE, f"cannot read deck file {deckfile}: {reason}"
        ) from None
    except DeckError as exc:
        raise CommandLineError(HubExit.DECK, f"deck file {deckfile}: {exc}") from None
    return Arguments(tuple(decks), winscore, tuple(programs), os.path.basename(deckfile))


class EarlyStart:
    """The checked arguments and the players started from them, in seat order; ``failure``
    is (seat, reason) if a program could not be started (the ones before it were)."""

    __slots__ = ("arguments", "failure", "players")

    def __init__(self, arguments: Arguments) -> None:
        self.arguments = arguments
        self.players: list[subprocess.Popen[bytes]] = []
        self.failure: tuple[int, str] | None = None


def first_steps(args: Sequence[str]) -> EarlyStart | int | None:
    """What ``clubhub`` does before importing its engine: None for ``--help`` (argparse
    renders it, in the engine's module); a refused command line is the spec's message on
    stderr and its exit status, with nothing imported beyond this module; else the players,
    started (`spawn_players`)."""
    if wants_help(args):
        return None
    try:
        arguments = check_arguments(args)
    except CommandLineError as exc:
        os.write(2, f"{MESSAGES[exc.status]}\n".encode())
        return int(exc.status)
    return spawn_players(arguments)


def spawn_players(arguments: Arguments) -> EarlyStart:
    """Start the players of a checked command line (``prog N ID``, no shell, pipes for stdin
    and stdout, stderr to /dev/null, each in its own process group, as `ChildProcess.spawn`
    does); a program that cannot be started ends the starting (`EarlyStart.failure`)."""
    early = EarlyStart(arguments)
    try:
        _start(early)
    except KeyboardInterrupt:  # none of them may outlive an interrupted start
        abandon(early)
        raise
    return early


def _start(early: EarlyStart) -> None:
    programs = early.arguments.programs
    count = str(len(programs))
    for seat, program in enumerate(programs):
        try:
            player = start_early([program, count, LABELS[seat]])
        except (OSError, ValueError) as exc:
            early.failure = (seat, f"{program}: {exc}")
            return
        early.players.append(player)


def abandon(early: EarlyStart, grace: float = ABANDON_GRACE) -> None:
    """End the players started early when the game never began (the hub was interrupted
    while importing): ``end`` to each, then SIGKILL to a group still there after ``grace``
    seconds in all, and every child reaped."""
    end_early(early.players, grace, farewell=END.encode() + b"\n")
