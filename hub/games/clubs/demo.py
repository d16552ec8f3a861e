"""``hub demo clubs``: a 3-player game from the packaged ex.decks with the standard players.

It runs the installed ``clubhub`` and ``clubber`` programs as a user would, so the demo
shows the real thing: child processes over pipes, the transcript, the winners.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from importlib.resources import as_file, files

from hub.core.output import Output
from hub.core.programs import find_program

WINSCORE = "10"
PLAYERS = 3


def main(args: Sequence[str] = ()) -> int:
    out = Output(1)
    deck_resource = files("hub.games.clubs") / "decks" / "ex.decks"
    with as_file(deck_resource) as deck_path:
        clubber = find_program("clubber")
        command = [find_program("clubhub"), str(deck_path), WINSCORE, *[clubber] * PLAYERS]
        out.line(
            f"== clubs: {PLAYERS} standard players (clubber) to {WINSCORE} points, "
            "refereed by clubhub over pipes"
        )
        out.line("$ clubhub decks/ex.decks 10 clubber clubber clubber")
        out.flush()
        result = subprocess.run(command, check=False)
    out.line(f"== clubs: clubhub exited with status {result.returncode}")
    out.flush()
    return result.returncode
