"""A person plays a whole ``hub play clubs`` game at a (pseudo-)terminal against two ``clubber``s.

The installed ``hub`` runs with a pty as its stdin, stdout and stderr (standard library
`pty`), as at a real terminal. The person is this test: it reads the screen, answers each
``Your card>`` prompt with a card that the screen says it may play, and on the way types
something that is not a card, a card it does not hold and a card that does not follow suit;
each must be explained in words and asked again. The deck is a seeded shuffle, so the game
is the same every run.
"""

from __future__ import annotations

import os
import pty
import random
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from tests.clubs.helpers import env_with, kill_tree
from tests.conftest import program

RANKS = "23456789TJQKA"
SUITS = "SCDH"
DECK = [rank + suit for suit in SUITS for rank in RANKS]
PROMPT = "Your card> "
TIMEOUT = 20.0


class Terminal:
    """The master side of a pty running one program: read until a text appears, type lines."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env_with()
        )
        os.close(slave)
        self.screen = ""
        """Everything shown so far (``\\r\\n`` as ``\\n``), the person's typing included."""
        self.deadline = time.monotonic() + TIMEOUT

    def _read(self) -> bool:
        """Read what is there (waiting up to the deadline); False at the end of output."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; the screen ends with:\n{self.screen[-2000:]}")
        ready, _, _ = select.select([self.master], [], [], left)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program has exited and the pty is closed
            return False
        if not data:
            return False
        self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, *texts: str, start: int) -> tuple[str, int]:
        """Wait until one of ``texts`` is on the screen after ``start``; (text, its end)."""
        while True:
            found = [(self.screen.find(text, start), text) for text in texts]
            found = [(at, text) for at, text in found if at >= 0]
            if found:
                at, text = min(found)
                return text, at + len(text)
            if not self._read():
                raise AssertionError(f"ended without {texts}; screen:\n{self.screen[-2000:]}")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> int:
        """Read to the end of output and reap the program; its exit status."""
        while self._read():
            pass
        try:
            return self.proc.wait(timeout=max(0.1, self.deadline - time.monotonic()))
        finally:
            os.close(self.master)

    def kill(self) -> None:
        if self.proc.poll() is None:
            kill_tree(self.proc.pid)
            self.proc.wait()


def playable(turn: str) -> tuple[list[str], list[str]]:
    """From the screen of one turn: (the cards it says may be played, the whole hand)."""
    shown = re.search(r"Your hand: (.*)", turn)
    assert shown is not None, turn
    hand = re.findall(r"\b[2-9TJQKA][SCDH]\b", shown[1])
    follow = re.search(r"You must follow \w+: ([^.]*)\.", turn)
    return (follow[1].split() if follow else hand), hand


@pytest.fixture
def deck_file(tmp_path: Path) -> Path:
    cards = list(DECK)
    random.Random(20240612).shuffle(cards)
    path = tmp_path / "shuffled.decks"
    path.write_text("# one shuffled deck\n" + ",".join(cards) + "\n")
    return path


def test_a_person_plays_a_whole_game_at_a_terminal(tmp_path: Path, deck_file: Path) -> None:
    args = [program("hub"), "play", "clubs", str(deck_file), "1", "human", "clubber", "clubber"]
    database = tmp_path / "games.db"
    term = Terminal([*args, "--db", str(database)], tmp_path)
    try:
        _, at = term.expect("you are player A; B is clubber, C is clubber.", start=0)
        term.expect("the lowest score wins", start=0)
        refusals = {"typo": False, "not held": False, "not following": False}
        turns = 0
        while True:
            seen, end = term.expect(PROMPT, "Game over.", start=at)
            if seen == "Game over.":
                break
            turn = term.screen[at:end]
            turns += 1
            cards, hand = playable(turn)
            assert cards, turn
            if not refusals["typo"]:
                refusals["typo"] = True
                term.type("the queen of hearts")
                _, at = term.expect(PROMPT, start=end)
                assert "'the queen of hearts' is not a card" in term.screen[end:at]
                end = at
            if not refusals["not held"]:
                refusals["not held"] = True
                missing = next(card for card in DECK if card not in hand)
                term.type(missing.lower())  # any case will do
                _, at = term.expect(PROMPT, start=end)
                assert f"You do not hold {missing}." in term.screen[end:at]
                end = at
            others = [card for card in hand if card not in cards]
            if "You must follow" in turn and others and not refusals["not following"]:
                refusals["not following"] = True
                term.type(others[0])
                _, at = term.expect(PROMPT, start=end)
                said = term.screen[end:at]
                assert f"You cannot play {others[0]}:" in said, said
                assert "you must follow suit. Play one of: " + " ".join(cards) in said, said
                end = at
            term.type(cards[0])
            _, at = term.expect(
                f"You {'led' if 'you lead' in turn else 'played'} {cards[0]}.", start=end
            )
        result_end = term.expect("Winner(s): ", start=at)[1]
        status = term.finish()
    finally:
        term.kill()
    assert status == 0, term.screen[-2000:]
    assert all(refusals.values()), refusals
    assert turns == 17  # 3 players: 17 cards each, the game ends after the first round
    screen = term.screen
    assert screen.count("End of round ") == 1
    verdict = screen[result_end:].splitlines()[0]
    assert re.fullmatch(r"[ABC]( [ABC])*\. (You win!|You share the win\.|You lose\.)", verdict)
    assert "Traceback" not in screen
    # the person never sees another player's hand
    assert "Player (B)" not in screen and "Player (C)" not in screen
    # the game is recorded like any other, the person as ``human``
    history = subprocess.run(
        [program("hub"), "games", "history", "--db", str(database)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    ).stdout
    assert "clubs  human vs clubber vs clubber" in history, history
    assert "normal" in history, history
