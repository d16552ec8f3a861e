"""Interoperability (clubs.md, "Programs"): ``clubber`` under any conforming hub, and
``clubhub`` with any conforming player (POSIX shell, C, the checkout's players/clubber.py).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clubs.helpers import (
    BIN,
    DATA,
    DECKS,
    RECORDED,
    REPO,
    SPEC_EXAMPLE,
    clubber,
    clubhub,
    lines_bytes,
    run,
    simulate_file,
)
from tests.conftest import program

pytestmark = pytest.mark.e2e

PLAYERS = DATA / "players"

# (stdin file, stdout file, deck file, players, winscore, label): recorded once with a tee
# wrapper around clubber under our clubhub (see helpers.tee_player), then committed.
TRANSCRIPTS = {
    "worked example, A of 2": (
        SPEC_EXAMPLE / "player-A-stdin.txt",
        SPEC_EXAMPLE / "player-A-stdout.txt",
        SPEC_EXAMPLE / "one-sorted-deck.decks", 2, 10, "A",
    ),
    "ex.decks, B of 3": (
        RECORDED / "ex-3p-30-player-B-stdin.txt",
        RECORDED / "ex-3p-30-player-B-stdout.txt",
        DECKS / "ex.decks", 3, 30, "B",
    ),
    "one-card-a-line.decks, D of 4": (
        RECORDED / "one-card-a-line-4p-30-player-D-stdin.txt",
        RECORDED / "one-card-a-line-4p-30-player-D-stdout.txt",
        DECKS / "one-card-a-line.decks", 4, 30, "D",
    ),
}  # fmt: skip
TRANSCRIPT_ARGS = pytest.mark.parametrize(
    ("stdin", "stdout", "deckfile", "players", "winscore", "label"),
    TRANSCRIPTS.values(),
    ids=TRANSCRIPTS.keys(),
)


@TRANSCRIPT_ARGS
def test_clubber_replays_a_recorded_conversation(
    stdin: Path, stdout: Path, deckfile: Path, players: int, winscore: int, label: str
) -> None:
    """Fed a conforming hub's messages, clubber plays the same cards and reports each step."""
    view = simulate_file(deckfile, players, winscore).players["ABCD".index(label)]
    result = clubber(str(players), label, input=stdin.read_bytes())
    assert result.triple() == (0, stdout.read_bytes(), view.stderr())


@TRANSCRIPT_ARGS
def test_recorded_conversations_follow_the_rules(
    stdin: Path, stdout: Path, deckfile: Path, players: int, winscore: int, label: str
) -> None:
    """The committed transcripts are what clubs.md prescribes (checked by the reference)."""
    view = simulate_file(deckfile, players, winscore).players["ABCD".index(label)]
    assert stdin.read_bytes() == lines_bytes(view.stdin)
    assert stdout.read_bytes() == view.stdout()


def shuffled_hands(transcript: bytes, seed: int) -> bytes:
    """The same conversation with every ``newround`` hand in a random order."""
    rng = random.Random(seed)
    lines = []
    for line in transcript.decode().splitlines():
        if line.startswith("newround "):
            cards = line[len("newround ") :].split(",")
            rng.shuffle(cards)
            lines.append("newround " + ",".join(cards))
        else:
            lines.append(line)
    return lines_bytes(lines)


@TRANSCRIPT_ARGS
def test_clubber_accepts_a_hand_in_any_order(
    stdin: Path, stdout: Path, deckfile: Path, players: int, winscore: int, label: str
) -> None:
    result = clubber(str(players), label, input=shuffled_hands(stdin.read_bytes(), players))
    assert (result.status, result.stdout) == (0, stdout.read_bytes())
    assert result.stderr.endswith(b"From hub:end\n")


# -- clubhub with players written in other languages ------------------------------------------


@pytest.fixture
def shell_player(tmp_path: Path) -> str:
    path = tmp_path / "first_legal.sh"
    shutil.copy(PLAYERS / "first_legal.sh", path)
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module")
def c_player(tmp_path_factory: pytest.TempPathFactory) -> str:
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH to build the C player")
    binary = tmp_path_factory.mktemp("c-player") / "first_legal"
    subprocess.run(
        [compiler, "-std=c99", "-O", "-o", str(binary), str(PLAYERS / "first_legal.c")],
        check=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return str(binary)


# (deck file, winscore, seats: "clubber", "sh" or "c")
FOREIGN_GAMES = [
    ("one.decks", 20, ["sh", "clubber"]),
    ("ex.decks", 10, ["clubber", "sh", "clubber"]),
    ("ex.decks", 30, ["clubber", "c"]),
    ("one.decks", 20, ["c", "sh", "clubber", "c"]),
]


@pytest.mark.parametrize(("deckfile", "winscore", "seats"), FOREIGN_GAMES)
def test_clubhub_runs_players_in_other_languages(
    deckfile: str, winscore: int, seats: list[str], request: pytest.FixtureRequest
) -> None:
    """A player in POSIX shell or C that follows clubs.md plays whole games under clubhub."""
    fixtures = {"sh": "shell_player", "c": "c_player"}
    programs = [
        program("clubber") if seat == "clubber" else request.getfixturevalue(fixtures[seat])
        for seat in seats
    ]
    strategies = ["standard" if seat == "clubber" else "first" for seat in seats]
    expected = simulate_file(DECKS / deckfile, len(seats), winscore, strategies)
    result = clubhub(DECKS / deckfile, str(winscore), *programs)
    assert result.triple() == (0, expected.hub_stdout(), b"")
    assert result.stdout.splitlines()[-1].startswith(b"Winner(s): ")


# -- the checkout's players/clubber.py ---------------------------------------------------------


def environment_without_venv() -> dict[str, str]:
    """The user's environment with the venv (where hub is installed) off PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != BIN]
    env["PATH"] = os.pathsep.join(path)
    return env


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_checkout_player_script_works_without_installation(how: str, tmp_path: Path) -> None:
    env = environment_without_venv()
    if shutil.which("python3", path=env["PATH"]) is None:
        pytest.skip("no python3 on PATH for players/clubber.py's #! line")
    script = REPO / "players" / "clubber.py"
    player = str(script) if how == "absolute" else "./players/clubber.py"
    deckfile = DECKS / "ex.decks"
    installed = clubhub(deckfile, "25", *[program("clubber")] * 3)
    result = run(
        [program("clubhub"), deckfile, "25", player, player, player],
        env=env,
        cwd=REPO if how == "relative" else tmp_path,
    )
    assert result.triple() == installed.triple()
    assert result.triple() == (0, simulate_file(deckfile, 3, 25).hub_stdout(), b"")
