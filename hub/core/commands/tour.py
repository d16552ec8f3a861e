"""Narration for ``hub demo``: a game's tour in numbered steps, each a heading and a few
plain sentences saying what comes next and why, between the real output of the programs.

Every demo shares the look, so that ``hub demo`` reads as one story::

    == chess 1/4: two people at one keyboard
       `hub play chess` reads one command a line and draws the board after every move ...

Headings start with ``== GAME N/TOTAL:`` (tests look for them); narration is indented by
three spaces and wrapped at `WIDTH` columns. Standard library only, cheap to import.
"""

from __future__ import annotations

import textwrap

from hub.core.io.output import Output

WIDTH = 79
INDENT = "   "


class Tour:
    """The steps of one game's demo, written to ``out`` (flushed after each)."""

    def __init__(self, out: Output, game: str, steps: int) -> None:
        self.out = out
        self.game = game
        self.steps = steps
        self.done = 0

    def step(self, title: str, *sentences: str) -> None:
        """A blank line, the next step's heading, then what the step shows and why."""
        self.done += 1
        self.out.line("")
        self.out.line(f"== {self.game} {self.done}/{self.steps}: {title}")
        self.say(*sentences)

    def say(self, *sentences: str) -> None:
        """Narration without a heading: one paragraph of the sentences."""
        if sentences:
            self.out.line(
                textwrap.fill(
                    " ".join(sentences),
                    width=WIDTH,
                    initial_indent=INDENT,
                    subsequent_indent=INDENT,
                    break_on_hyphens=False,
                    break_long_words=False,
                )
            )
        self.out.flush()
