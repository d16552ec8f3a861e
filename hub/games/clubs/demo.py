"""``hub demo clubs``: a narrated 3-player game from the packaged ex.decks.

It runs the installed ``clubhub`` with three standard ``clubber`` players, as a user would:
child processes over pipes (clubhub is started and stopped with the core's process
handling, `ChildProcess` and `stop_all`). The transcript is clubhub's own output, shown in
three parts (the deal, the tricks, the scores and winners) with what each part means. The
decks and the players are deterministic, so the game is the same every time.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Sequence
from importlib.resources import as_file, files

import trio

from hub.core.commands.tour import Tour
from hub.core.io.output import Output
from hub.core.io.process import ChildProcess, SpawnFailed, stop_all
from hub.core.io.programs import find_program

WINSCORE = "10"
PLAYERS = 3
STEPS = 3
TIMEOUT = 60.0
STOP_TIMEOUT = 5.0
"""Seconds an interrupted clubhub has to end its players (it needs 2 at most)."""
STOP_ESCALATION = ((0.0, signal.SIGTERM), (STOP_TIMEOUT, signal.SIGKILL))


def main(args: Sequence[str] = ()) -> int:
    out = Output(1)
    tour = Tour(out, "clubs", STEPS)
    deck_resource = files("hub.games.clubs") / "decks" / "ex.decks"
    with as_file(deck_resource) as deck_path:
        clubber = find_program("clubber")
        command = [find_program("clubhub"), str(deck_path), WINSCORE, *[clubber] * PLAYERS]
        tour.step(
            "the deal",
            "Clubs is a card game for 2 to 4 players. `clubhub` is the referee: it starts",
            "each player program as a child process and talks to it over its pipes. Here",
            "three standard players (`clubber`) play to 10 points:",
        )
        out.line(f"$ clubhub decks/ex.decks {WINSCORE} clubber clubber clubber")
        out.flush()
        try:
            result = _run_clubhub(command)
        except (SpawnFailed, trio.TooSlowError) as exc:
            tour.say(f"clubhub could not run: {exc}")
            return 1
    lines = result.stdout.splitlines()
    dealt = next((i for i, line in enumerate(lines) if not line.startswith("Player (")), 0)
    ends = [i for i, line in enumerate(lines) if line.startswith(("scores ", "Winner(s)"))]
    first_end = ends[0] if ends else len(lines)
    tour.say(
        "Each round deals one deck of the file, card by card, A first; with three players",
        "the two of diamonds is set aside, so each hand has 17 cards:",
    )
    _show(out, lines[:dealt])
    tour.step(
        "the tricks",
        "A leads the first trick. Everyone must follow the suit led if they can; the",
        "highest card of that suit takes the trick, and whoever takes it leads the next.",
        "There are no trumps: each club in a trick is a point for whoever takes it.",
    )
    _show(out, lines[dealt:first_end])
    tour.step(
        "the scores: the lowest score wins",
        "After each round the scores so far are printed, and the game ends after the round",
        f"in which someone has {WINSCORE} points or more. Points are bad: the lowest score",
        "wins.",
    )
    _show(out, lines[first_end:])
    tour.say(_verdict(lines), f"clubhub exited with status {result.returncode}.")
    return result.returncode


def _run_clubhub(command: list[str]) -> subprocess.CompletedProcess[str]:
    """``clubhub`` to its end (its stdout; its stderr is the demo's). Raises `SpawnFailed`
    or `trio.TooSlowError` (after `TIMEOUT`). A Ctrl-C is raised only at a checkpoint of this
    one task, never between starting clubhub and the ``try`` that stops it."""
    return trio.run(_clubhub, command, restrict_keyboard_interrupt_to_checkpoints=True)


async def _clubhub(command: list[str]) -> subprocess.CompletedProcess[str]:
    """``clubhub`` as a core `ChildProcess` in a process group of its own, read to the end
    of its output within `TIMEOUT`, and stopped by `stop_all` however that ends. Out of
    time, or interrupted (a Ctrl-C or SIGTERM reached the demo; a terminal's Ctrl-C does
    not reach clubhub's group), the demo sends clubhub SIGTERM at once, so that it ends its
    players in order (exit 143), and SIGKILL if it is still running `STOP_TIMEOUT` later.
    (Not SIGINT: during clubhub's own start-up, its imports, SIGINT is a traceback, SIGTERM
    a silent end, and it has no players yet.)"""
    child = await ChildProcess.spawn(command, stderr=None)
    try:
        await child.close_stdin()  # clubhub reads only its players
        stdout = child.process.stdout
        assert stdout is not None
        output = bytearray()
        with trio.fail_after(TIMEOUT):
            while chunk := await stdout.receive_some():
                output += chunk
            await child.wait_exited()
    finally:
        [status] = await stop_all([child], grace=0.0, escalation=STOP_ESCALATION)
    returncode = status.code if status.code is not None else -(status.signal or 0)
    return subprocess.CompletedProcess(command, returncode, output.decode(errors="replace"))


def _show(out: Output, lines: Sequence[str]) -> None:
    for line in lines:
        out.line(line)
    out.flush()


def _verdict(lines: Sequence[str]) -> str:
    """The final scores in words, from clubhub's last ``scores`` and ``Winner(s)`` lines."""
    scores = [line.removeprefix("scores ") for line in lines if line.startswith("scores ")]
    winners = [line.removeprefix("Winner(s): ") for line in lines if line.startswith("Winner")]
    if not scores or not winners:
        return "The game did not finish."
    points = scores[-1].split(",")
    named = ", ".join(f"{chr(ord('A') + i)} {p}" for i, p in enumerate(points))
    names = winners[-1].split()
    who = (
        f"the winner is {names[0]}" if len(names) == 1 else f"the winners are {' and '.join(names)}"
    )
    return f"Final scores {named}: {who}, with the fewest points."
