"""Shared helpers for the clubs end-to-end tests.

* `run` runs an installed program (or any command) as a user would, always with a timeout,
  and never leaves a process behind even when the program hangs.
* `simulate` is a small reference implementation of the clubs rules, the standard player's
  strategy, the hub's stdout and the standard player's stderr, written straight from the
  text of clubs.md. It deliberately imports nothing from ``hub``: it is the independent
  expectation that catches bugs in ``hub.games.clubs.rules``/``strategy``/``cards``.
* `fake_player` writes a small misbehaving player program (data/fake_player.py) for a test.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import BIN, descendants, program

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REPO = HERE.parents[1]
DECKS = REPO / "decks"
SPEC_EXAMPLE = DATA / "spec-example"
RECORDED = DATA / "recorded"

TIMEOUT = 20.0
"""Seconds any single program run may take before the test fails."""


# -- running programs -----------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    status: int
    stdout: bytes
    stderr: bytes
    elapsed: float = 0.0

    def triple(self) -> tuple[int, bytes, bytes]:
        """What the tests compare byte for byte (pytest shows a diff of each part)."""
        return (self.status, self.stdout, self.stderr)


def kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and everything below it (for a test that timed out)."""
    for each in [*descendants(pid), pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(each, signal.SIGKILL)


def start(args: Sequence[str | os.PathLike[str]], **kwargs: object) -> subprocess.Popen[bytes]:
    """Start a program with pipes for stdout and stderr (stdin /dev/null unless given)."""
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.Popen(
        [os.fspath(arg) for arg in args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,  # type: ignore[call-overload]
    )


def finish(
    proc: subprocess.Popen[bytes],
    begun: float,
    input: bytes | None = None,
    timeout: float = TIMEOUT,
) -> Result:
    """Wait for a started program; on timeout kill it and its descendants, then fail."""
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        proc.communicate()
        raise AssertionError(f"{proc.args} did not finish within {timeout} s") from None
    return Result(proc.returncode, out, err, time.monotonic() - begun)


def run(
    args: Sequence[str | os.PathLike[str]],
    *,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = TIMEOUT,
) -> Result:
    """Run a program to completion (stdin is ``input``, else /dev/null)."""
    begun = time.monotonic()
    proc = start(
        args,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    return finish(proc, begun, input, timeout)


def clubhub(*args: str | os.PathLike[str], **kwargs: object) -> Result:
    return run([program("clubhub"), *args], **kwargs)  # type: ignore[arg-type]


def clubber(*args: str, input: bytes | None = b"") -> Result:
    return run([program("clubber"), *args], input=input)


def env_with(**extra: str) -> dict[str, str]:
    """The test's environment plus ``extra``, with the venv's bin first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def lines_bytes(lines: Sequence[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def write_script(path: Path, text: str) -> str:
    """Write an executable script; return its path as a string."""
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def fake_player(directory: Path, name: str, *actions: str) -> str:
    """An executable that runs data/fake_player.py with ``actions`` (see its docstring)."""
    command = shlex.join([sys.executable, "-S", str(DATA / "fake_player.py"), *actions])
    return write_script(directory / name, f'#!/bin/sh\nexec {command} "$@"\n')


def tee_player(directory: Path, real: str, label: str) -> tuple[str, Path, Path]:
    """A wrapper around ``real`` that records its stdin and stdout; returns (path, in, out)."""
    stdin_copy = directory / f"player-{label}-stdin.txt"
    stdout_copy = directory / f"player-{label}-stdout.txt"
    text = (
        "#!/bin/sh\n"
        f'tee {shlex.quote(str(stdin_copy))} | {shlex.quote(real)} "$@"'
        f" | tee {shlex.quote(str(stdout_copy))}\n"
    )
    return write_script(directory / f"tee-{label}", text), stdin_copy, stdout_copy


# -- the reference: clubs.md, rule by rule ---------------------------------------------------

RANKS = "23456789TJQKA"
SUITS = "SCDH"
LABELS = "ABCD"


def rank(card: str) -> int:
    return RANKS.index(card[0])


def suit(card: str) -> str:
    return card[1]


def hand_order(card: str) -> tuple[int, int]:
    """ "sorted S,C,D,H then rank"."""
    return (SUITS.index(suit(card)), rank(card))


def show(cards: Sequence[str]) -> str:
    return ",".join(sorted(cards, key=hand_order))


def read_decks(text: str) -> list[list[str]]:
    """A deck file as clubs.md describes it (the tests only feed it valid files)."""
    decks: list[list[str]] = [[]]
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.strip() == ".":
            decks.append([])
            continue
        decks[-1].extend(part.strip() for part in line.split(",") if part.strip())
    assert all(len(deck) == 52 for deck in decks), [len(deck) for deck in decks]
    return decks


Strategy = Callable[[list[str], list[str], int, list[str]], str]


def standard(hand: list[str], trick: list[str], players: int, played: list[str]) -> str:
    """clubs.md, "The standard player's strategy"."""
    if not trick:
        clubs_left = [c for c in (r + "C" for r in RANKS) if c not in played]
        if clubs_left and clubs_left[0] in hand:
            return clubs_left[0]
        for wanted in "DHSC":
            mine = [card for card in hand if suit(card) == wanted]
            if mine:
                return min(mine, key=rank)
    led = suit(trick[0])
    following = [card for card in hand if suit(card) == led]
    if following:
        return min(following, key=rank)
    order = "HDCS" if len(trick) == players - 1 else "CDHS"
    for wanted in order:
        mine = [card for card in hand if suit(card) == wanted]
        if mine:
            return max(mine, key=rank)
    raise AssertionError("empty hand")


def first_legal(hand: list[str], trick: list[str], players: int, played: list[str]) -> str:
    """The first card of the (sorted) hand that may be played: the fake and toy players."""
    if trick:
        for card in hand:
            if suit(card) == suit(trick[0]):
                return card
    return hand[0]


STRATEGIES: dict[str, Strategy] = {"standard": standard, "first": first_legal}


@dataclass
class PlayerView:
    """What one player is sent, plays, and (for the standard player) reports on stderr."""

    log: list[tuple[str, str | None, str]] = field(default_factory=list)
    """One entry per hub message: (message, the card played in reply, the stderr it causes)."""
    hand: list[str] = field(default_factory=list)
    played: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    own: str | None = None

    @property
    def stdin(self) -> list[str]:
        return [message for message, _, _ in self.log]

    def stdout(self, messages: int | None = None) -> bytes:
        """The player's stdout after the first ``messages`` messages (default: all)."""
        return b"-" + lines_bytes([card for _, card, _ in self.log[:messages] if card])

    def stderr(self, messages: int | None = None) -> bytes:
        return "".join(report for _, _, report in self.log[:messages]).encode()

    def receive(self, message: str, card: str | None = None) -> None:
        """Apply a message (``card``: what we play in reply to a prompt); log the report."""
        word, _, argument = message.partition(" ")
        if word == "newround":
            self.hand = argument.split(",")
            self.played = []
        elif card is not None:
            self.hand.remove(card)
            self.played.append(card)
            self.own = card
        elif word == "played":
            if argument == self.own:
                self.own = None
            else:
                self.played.append(argument)
        elif word == "scores":
            self.scores = [int(score) for score in argument.split(",")]
        report = [f"From hub:{message[:20]}"]
        if word != "end":
            report.append(f"Hand: {show(self.hand)}")
            for letter in SUITS:
                ranks = sorted((c for c in self.played if suit(c) == letter), key=rank)
                report.append(f"Played ({letter}): {','.join(c[0] for c in ranks)}")
            report.append(f"Scores: {','.join(map(str, self.scores))}")
        self.log.append((message, card, "".join(line + "\n" for line in report)))


@dataclass
class Game:
    """Everything a conforming hub and standard players print and send in one game."""

    stdout: list[str] = field(default_factory=list)
    players: list[PlayerView] = field(default_factory=list)
    moves: list[tuple[int, int]] = field(default_factory=list)
    """For each card played: (seat, index of its line in ``stdout``)."""
    rounds: int = 0

    def hub_stdout(self) -> bytes:
        return lines_bytes(self.stdout)

    def stdout_before_turn(self, seat: int, turn: int) -> bytes:
        """The hub's stdout before ``seat`` plays its card number ``turn`` (from 0)."""
        index = [line for who, line in self.moves if who == seat][turn]
        return lines_bytes(self.stdout[:index])


def simulate(
    decks: Sequence[Sequence[str]],
    players: int,
    winscore: int,
    strategies: Sequence[str] | None = None,
) -> Game:
    """Play a whole game by the rules of clubs.md."""
    chosen = [STRATEGIES[name] for name in (strategies or ["standard"] * players)]
    game = Game(players=[PlayerView(scores=[0] * players) for _ in range(players)])
    scores = [0] * players
    leader = 0  # "Player A leads the first trick of the game."
    round_number = 0
    while True:
        deck = list(decks[round_number % len(decks)])  # "decks cycle"
        if players == 3:
            deck.remove("2D")
        hands = [
            [deck[i] for i in range(len(deck)) if i % players == seat] for seat in range(players)
        ]
        hands = [sorted(hand, key=hand_order) for hand in hands]
        for seat, hand in enumerate(hands):
            game.stdout.append(f"Player ({LABELS[seat]}): {show(hand)}")
            game.players[seat].receive(f"newround {show(hand)}")
        played: list[str] = []
        while hands[0]:
            trick: list[str] = []
            for position in range(players):
                seat = (leader + position) % players
                card = chosen[seat](hands[seat], trick, players, played)
                assert card in hands[seat]
                game.players[seat].receive("yourturn" if trick else "newtrick", card)
                verb = "played" if trick else "led"
                game.moves.append((seat, len(game.stdout)))
                game.stdout.append(f"Player {LABELS[seat]} {verb} {card}")
                hands[seat].remove(card)
                trick.append(card)
                played.append(card)
                for view in game.players:
                    view.receive(f"played {card}")
            led = suit(trick[0])
            best = max(
                (position for position in range(players) if suit(trick[position]) == led),
                key=lambda position: (rank(trick[position]), -position),
            )
            leader = (leader + best) % players
            scores[leader] += sum(1 for card in trick if suit(card) == "C")
            for view in game.players:
                view.receive("trickover")
        line = "scores " + ",".join(map(str, scores))
        game.stdout.append(line)
        for view in game.players:
            view.receive(line)
        game.rounds = round_number + 1
        if max(scores) >= winscore:
            break
        round_number += 1
    low = min(scores)
    game.stdout.append(
        "Winner(s): " + " ".join(LABELS[s] for s in range(players) if scores[s] == low)
    )
    for view in game.players:
        view.receive("end")
    return game


def simulate_file(
    path: Path, players: int, winscore: int, strategies: Sequence[str] | None = None
) -> Game:
    return simulate(read_decks(path.read_text()), players, winscore, strategies)
