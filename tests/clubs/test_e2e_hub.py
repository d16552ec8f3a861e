"""End-to-end tests of the installed ``clubhub`` (clubs.md): transcripts and exit table.

Every run compares the exit status, stdout and stderr byte for byte. Expected transcripts
come from the independent reference in `tests.clubs.helpers.simulate`, never from the hub's
own modules.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.clubs.helpers import (
    DECKS,
    SPEC_EXAMPLE,
    Result,
    clubhub,
    env_with,
    fake_player,
    finish,
    lines_bytes,
    read_decks,
    simulate,
    simulate_file,
    start,
    tee_player,
    write_script,
)
from tests.conftest import program

pytestmark = pytest.mark.e2e

SORTED = SPEC_EXAMPLE / "one-sorted-deck.decks"
USAGE = b"Usage: clubhub deckfile winscore prog1 prog2 [prog3 [prog4]]\n"
START_FAILED = b"Unable to start subprocess\n"


@pytest.fixture
def clubber() -> str:
    return program("clubber")


# -- the spec's worked example ----------------------------------------------------------------


def test_worked_example_as_typed(tmp_path: Path) -> None:
    """``clubhub one-sorted-deck.decks 10 clubber clubber``, programs found on PATH."""
    shutil.copy(SORTED, tmp_path / "one-sorted-deck.decks")
    result = clubhub(
        "one-sorted-deck.decks", "10", "clubber", "clubber", cwd=tmp_path, env=env_with()
    )
    assert result.triple() == (0, (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes(), b"")
    assert [p.name for p in tmp_path.iterdir()] == ["one-sorted-deck.decks"], "created a file"


def test_worked_example_player_a_conversation(tmp_path: Path, clubber: str) -> None:
    wrapper, stdin_copy, stdout_copy = tee_player(tmp_path, clubber, "A")
    result = clubhub(SORTED, "10", wrapper, clubber)
    assert result.triple() == (0, (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes(), b"")
    assert stdin_copy.read_bytes() == (SPEC_EXAMPLE / "player-A-stdin.txt").read_bytes()
    assert stdout_copy.read_bytes() == (SPEC_EXAMPLE / "player-A-stdout.txt").read_bytes()


def test_reference_reproduces_the_worked_example() -> None:
    """The reference simulator agrees with the spec (so it can be trusted elsewhere)."""
    game = simulate_file(SORTED, 2, 10)
    assert game.hub_stdout() == (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes()
    assert lines_bytes(game.players[0].stdin) == (SPEC_EXAMPLE / "player-A-stdin.txt").read_bytes()
    assert game.players[0].stdout() == (SPEC_EXAMPLE / "player-A-stdout.txt").read_bytes()


# -- whole games against the reference --------------------------------------------------------

GAMES = [
    ("ex.decks", 2, 40),
    ("ex.decks", 3, 30),
    ("ex.decks", 4, 13),
    ("one-card-a-line.decks", 2, 20),
    ("one-card-a-line.decks", 3, 1),
    ("one-card-a-line.decks", 4, 30),
    ("spaced.decks", 2, 25),
    ("spaced.decks", 3, 1),
    ("trailing-commas.decks", 3, 40),
    ("trailing-commas.decks", 4, 1),
    ("one.decks", 2, 50),
    ("one.decks", 4, 7),
]


@pytest.mark.parametrize(("deckfile", "players", "winscore"), GAMES)
def test_whole_game_matches_reference(deckfile: str, players: int, winscore: int) -> None:
    expected = simulate_file(DECKS / deckfile, players, winscore)
    result = clubhub(DECKS / deckfile, str(winscore), *[program("clubber")] * players)
    assert result.triple() == (0, expected.hub_stdout(), b"")


def test_game_list_covers_the_interesting_cases() -> None:
    """At least one 3-player game, decks that cycle, a tie, every deck file and N."""
    games = {(d, n, w): simulate_file(DECKS / d, n, w) for d, n, w in GAMES}
    deck_counts = {d: len(read_decks((DECKS / d).read_text())) for d, _, _ in GAMES}
    assert any(n == 3 for _, n, _ in GAMES)
    assert any(game.rounds > deck_counts[d] for (d, _, _), game in games.items())
    assert any(game.stdout[-1].count(" ") > 1 for game in games.values())  # Winner(s): B C
    assert {d for d, _, _ in GAMES} >= {p.name for p in DECKS.glob("*.decks")} - {"sorted.decks"}
    assert {n for _, n, _ in GAMES} == {2, 3, 4}


def test_players_are_started_directly_as_prog_n_id(tmp_path: Path, clubber: str) -> None:
    """No shell in between (odd characters in the path are harmless), arguments ``N ID``."""
    odd = tmp_path / "dir with spaces; $HOME & `x`"
    odd.mkdir()
    log = tmp_path / "argv.log"
    player = write_script(
        odd / "player *",
        f'#!/bin/sh\nprintf "%s\\n" "$# $*" >> "{log}"\nexec "{clubber}" "$@"\n',
    )
    expected = simulate_file(SORTED, 4, 10)
    result = clubhub(SORTED, "10", player, player, player, player)
    assert result.triple() == (0, expected.hub_stdout(), b"")
    assert sorted(log.read_text().splitlines()) == ["2 4 A", "2 4 B", "2 4 C", "2 4 D"]


def test_winscore_with_leading_zeros_is_a_number(clubber: str) -> None:
    result = clubhub(SORTED, "010", clubber, clubber)
    assert result.triple() == (0, (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes(), b"")


def test_duplicate_and_missing_cards_are_played_as_dealt(tmp_path: Path, clubber: str) -> None:
    deck = read_decks(SORTED.read_text())[0]
    deck[deck.index("AH")] = "2S"  # two 2S, no AH: still a valid deck
    (tmp_path / "dup.decks").write_text(",".join(deck) + "\n")
    for players in (2, 3):
        expected = simulate([deck], players, 5)
        result = clubhub(tmp_path / "dup.decks", "5", *[clubber] * players)
        assert result.triple() == (0, expected.hub_stdout(), b"")


def test_exit_reports_after_a_normal_end(tmp_path: Path, clubber: str) -> None:
    """A player that exits with a status after ``end``: reported, yet the hub exits 0."""
    player = fake_player(tmp_path, "p", "on-end:exit:5")
    expected = simulate_file(SORTED, 3, 20, ["standard", "first", "standard"])
    result = clubhub(SORTED, "20", clubber, player, clubber)
    assert result.triple() == (0, expected.hub_stdout(), b"Player B exited with status 5\n")


# -- exit statuses 1 to 4: the command line and the deck file ---------------------------------


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7])
def test_usage(count: int) -> None:
    args = [str(SORTED), "10", "clubber", "clubber", "clubber", "clubber", "clubber"][:count]
    assert clubhub(*args).triple() == (1, b"", USAGE)


@pytest.mark.parametrize("score", ["0", "-1", "3biscuit", "3 ", " 3", "", "+3", "1e3", "٣"])
def test_invalid_score(score: str, clubber: str) -> None:
    assert clubhub(SORTED, score, clubber, clubber).triple() == (2, b"", b"Invalid score\n")


def test_score_is_checked_before_the_deck_file(clubber: str) -> None:
    result = clubhub("/nonexistent/decks", "0", clubber, clubber)
    assert result.triple() == (2, b"", b"Invalid score\n")


@pytest.fixture
def never_started(tmp_path: Path) -> tuple[str, Path]:
    """A player program that leaves a mark if the hub ever starts it."""
    mark = tmp_path / "started"
    return write_script(tmp_path / "player", f"#!/bin/sh\n: > '{mark}'\nexit 1\n"), mark


@pytest.mark.parametrize("kind", ["missing", "directory", "unreadable"])
def test_deckfile_not_accessible(
    kind: str, tmp_path: Path, never_started: tuple[str, Path]
) -> None:
    path = tmp_path / "decks"
    if kind == "directory":
        path.mkdir()
    elif kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root can read a file with mode 000")
        shutil.copy(SORTED, path)
        path.chmod(0)
    player, mark = never_started
    result = clubhub(path, "10", player, player)
    assert result.triple() == (3, b"", b"Unable to access deckfile\n")
    assert not mark.exists()


SORTED_TEXT = SORTED.read_text()
ONE_DECK = "".join(line + "\n" for line in SORTED_TEXT.splitlines() if not line.startswith("#"))
BAD_DECKS = {
    "bad card": ONE_DECK.replace("2S", "1S"),
    "lower-case card": ONE_DECK.replace("2S", "2s"),
    "10 for T": ONE_DECK.replace("TH", "10H"),
    "joker": ONE_DECK.replace("AH", "JK"),
    "51 cards": ONE_DECK.replace(",AH", ""),
    "53 cards": ONE_DECK + "2S\n",
    "empty field": ONE_DECK.replace("2S,", "2S,,"),
    "two cards in one field": ONE_DECK.replace("2S,3S", "2S 3S"),
    "trailing dot": ONE_DECK + ".\n",
    "empty file": "",
    "only comments": "# nothing here\n\n",
    "empty deck between dots": ONE_DECK + ".\n.\n" + ONE_DECK,
    "leading dot": ".\n" + ONE_DECK,
    "second deck short": ONE_DECK + ".\n" + ONE_DECK.replace(",AH", ""),
    "a dot after cards on one line": ONE_DECK.replace("AH", "AH."),
}


@pytest.mark.parametrize("content", BAD_DECKS.values(), ids=BAD_DECKS.keys())
def test_bad_deck(content: str, tmp_path: Path, never_started: tuple[str, Path]) -> None:
    path = tmp_path / "bad.decks"
    path.write_text(content)
    player, mark = never_started
    result = clubhub(path, "10", player, player)
    assert result.triple() == (4, b"", b"Error reading deck\n")
    assert not mark.exists(), "the decks are all read before any player starts"


def test_accepted_deck_layouts(tmp_path: Path, clubber: str) -> None:
    """Spaces around cards, CRLF line ends, trailing commas and comments are all fine."""
    text = "# comment\r\n\r\n" + " 2S , " + ONE_DECK.replace("\n", ",\r\n")[3:] + "# end\n"
    (tmp_path / "crlf.decks").write_text(text)
    result = clubhub(tmp_path / "crlf.decks", "10", clubber, clubber)
    assert result.triple() == (0, (SPEC_EXAMPLE / "hub-stdout.txt").read_bytes(), b"")


# -- exit status 5: players that cannot start -------------------------------------------------


@pytest.mark.parametrize(
    "kind",
    ["missing on PATH", "missing path", "not executable", "directory", "exits at once",
     "exits 3 at once", "prints x", "prints newline", "never prints"],
)  # fmt: skip
def test_unable_to_start(kind: str, tmp_path: Path, clubber: str) -> None:
    bad = {
        "missing on PATH": "no-such-clubs-player",
        "missing path": str(tmp_path / "nothing"),
        "directory": str(tmp_path),
    }.get(kind)
    if kind == "not executable":
        bad = str(tmp_path / "plain")
        Path(bad).write_text("#!/bin/sh\nprintf -\nread x\n")
        Path(bad).chmod(0o644)
    elif kind == "exits at once":
        bad = fake_player(tmp_path, "p", "exit-now:0")
    elif kind == "exits 3 at once":
        bad = fake_player(tmp_path, "p", "exit-now:3")
    elif kind == "prints x":
        bad = fake_player(tmp_path, "p", "start:x")
    elif kind == "prints newline":
        bad = fake_player(tmp_path, "p", "start:\\n-")
    elif kind == "never prints":
        bad = fake_player(tmp_path, "p", "start:")
    assert bad is not None
    for programs in ([clubber, bad], [bad, clubber, clubber]):
        result = clubhub(SORTED, "10", *programs, env=env_with(CLUBHUB_START_TIMEOUT="0.5"))
        assert result.triple() == (5, b"", START_FAILED)


def test_start_timeout_is_honoured(tmp_path: Path, clubber: str) -> None:
    silent = fake_player(tmp_path, "p", "start:")
    result = clubhub(SORTED, "10", clubber, silent, env=env_with(CLUBHUB_START_TIMEOUT="0.5"))
    assert result.triple() == (5, b"", START_FAILED)
    assert result.elapsed < 3.0


# -- exit statuses 6, 7 and 8: faults mid-game ------------------------------------------------

QUIT, MALFORMED = b"Player quit\n", b"Invalid message received from player\n"
INVALID_PLAY = b"Invalid play by player\n"

# (deck, winscore, actions per seat (None: the installed clubber), faulty seat, its turn
#  number at fault (from 0), exit status, stderr)
FAULTS = {
    "B exits 3": ("sorted", 10, [None, ("auto*3", "exit:3")], 1, 3, 6,
                  b"Player B exited with status 3\n" + QUIT),
    "B exits 0 at first turn": ("sorted", 10, [None, ("exit:0",)], 1, 0, 6, QUIT),
    "A exits 1 leading": ("sorted", 10, [("auto*2", "exit:1"), None], 0, 2, 6,
                          b"Player A exited with status 1\n" + QUIT),
    "B killed by SIGTERM": ("sorted", 10, [None, ("auto*4", "signal:15")], 1, 4, 6,
                            b"Player B terminated due to signal 15\n" + QUIT),
    "C exits 2 in round 2 of 4": ("one", 30, [None, None, ("auto*20", "exit:2"), None], 2, 20, 6,
                                  b"Player C exited with status 2\n" + QUIT),
    "garbage": ("sorted", 10, [None, ("play:garbage",)], 1, 0, 7, MALFORMED),
    "card and a space": ("sorted", 10, [None, ("play:3D ",)], 1, 0, 7, MALFORMED),
    "space and a card": ("sorted", 10, [None, ("play: 3D",)], 1, 0, 7, MALFORMED),
    "10H": ("sorted", 10, [None, ("auto*5", "play:10H")], 1, 5, 7, MALFORMED),
    "lower case": ("sorted", 10, [None, ("play:3d",)], 1, 0, 7, MALFORMED),
    "empty line": ("sorted", 10, [None, ("play:",)], 1, 0, 7, MALFORMED),
    "carriage return": ("sorted", 10, [None, ("play:3D\\r",)], 1, 0, 7, MALFORMED),
    "two cards": ("sorted", 10, [None, ("play:3D,5D",)], 1, 0, 7, MALFORMED),
    "newline after the dash": ("sorted", 10, [None, ("start:-\\n",)], 1, 0, 7, MALFORMED),
    "binary": ("sorted", 10, [None, ("play:\\xff\\x00",)], 1, 0, 7, MALFORMED),
    "long line": ("sorted", 10, [None, ("play:" + "3D" * 100,)], 1, 0, 7, MALFORMED),
    "endless line": ("sorted", 10, [None, ("flood",)], 1, 0, 7, MALFORMED),
    "no newline then exit": ("sorted", 10, [None, ("partial:3D",)], 1, 0, 6, QUIT),
    "C malformed of 4": ("ex", 10, [None, None, ("auto*7", "play:XX"), None], 2, 7, 7, MALFORMED),
    "not held": ("sorted", 10, [None, ("play:4D",)], 1, 0, 8, INVALID_PLAY),
    "card just played": ("sorted", 10, [None, ("play:2D",)], 1, 0, 8, INVALID_PLAY),
    "not following suit": ("sorted", 10, [None, ("play:3S",)], 1, 0, 8, INVALID_PLAY),
    "leader plays a card not held": ("sorted", 10, [("play:3S",), None], 0, 0, 8, INVALID_PLAY),
    "card already played by itself": ("sorted", 10, [("auto", "play:2S"), None], 0, 1, 8,
                                      INVALID_PLAY),
    "3 players: 2D is out": ("sorted", 10, [("play:2D",), None, None], 0, 0, 8, INVALID_PLAY),
}  # fmt: skip
DECK_FILES = {"sorted": SORTED, "one": DECKS / "one.decks", "ex": DECKS / "ex.decks"}


@pytest.mark.parametrize(
    ("deck", "winscore", "seats", "seat", "turn", "status", "stderr"),
    FAULTS.values(),
    ids=FAULTS.keys(),
)
def test_fault_mid_game(
    deck: str,
    winscore: int,
    seats: list[tuple[str, ...] | None],
    seat: int,
    turn: int,
    status: int,
    stderr: bytes,
    tmp_path: Path,
    clubber: str,
) -> None:
    """The transcript up to the fault, the players' exit reports, then the hub's message."""
    programs = [
        clubber if actions is None else fake_player(tmp_path, f"p{index}", *actions)
        for index, actions in enumerate(seats)
    ]
    strategies = ["standard" if actions is None else "first" for actions in seats]
    expected = simulate_file(DECK_FILES[deck], len(seats), winscore, strategies)
    result = clubhub(DECK_FILES[deck], str(winscore), *programs)
    assert result.triple() == (status, expected.stdout_before_turn(seat, turn), stderr)


@pytest.mark.parametrize("after", [2, 9, 40])
def test_player_quits_when_it_is_not_its_turn(after: int, tmp_path: Path, clubber: str) -> None:
    """B exits after reading line ``after``: writes to it fail silently, the next read decides."""
    bad = fake_player(tmp_path, "p", f"exit-after:{after}:4")
    expected = simulate_file(SORTED, 3, 10, ["standard", "first", "standard"])
    prompts = sum(
        line in ("newtrick", "yourturn") for line in expected.players[1].stdin[: after - 1]
    )
    result = clubhub(SORTED, "10", clubber, bad, clubber)
    assert result.triple() == (
        6,
        expected.stdout_before_turn(1, prompts),
        b"Player B exited with status 4\n" + QUIT,
    )


# -- exit status 9 and the shutdown contract --------------------------------------------------


def interrupt_when(mark: Path, args: list[str | Path]) -> Result:
    """Run clubhub, send it SIGINT once ``mark`` exists, and wait for it."""
    begun = time.monotonic()
    hub = start([program("clubhub"), *args])
    deadline = time.monotonic() + 10
    while not mark.exists() and time.monotonic() < deadline and hub.poll() is None:
        time.sleep(0.01)
    if mark.exists():
        hub.send_signal(signal.SIGINT)
    result = finish(hub, begun)
    assert mark.exists(), f"{mark.name} never appeared: {result}"
    return result


@pytest.mark.parametrize("on_end", ["0", "7"])
def test_sigint_mid_game(on_end: str, tmp_path: Path, clubber: str) -> None:
    """SIGINT while B thinks about its 5th card: ``end`` to all, reports, ``SIGINT caught``."""
    mark = tmp_path / "thinking"
    thinker = fake_player(tmp_path, "p", "auto*4", f"hang:{mark}", f"on-end:exit:{on_end}")
    result = interrupt_when(mark, [SORTED, "10", clubber, thinker, clubber])
    expected = simulate_file(SORTED, 3, 10, ["standard", "first", "standard"])
    report = b"" if on_end == "0" else b"Player B exited with status 7\n"
    assert result.triple() == (9, expected.stdout_before_turn(1, 4), report + b"SIGINT caught\n")
    assert result.stderr.endswith(b"SIGINT caught\n")


def test_sigint_while_players_start(tmp_path: Path, clubber: str) -> None:
    """Before every player has started there are no exit reports, only the message."""
    mark = tmp_path / "started"
    slow = fake_player(tmp_path, "p", "start:", f"mark:{mark}", "on-end:exit:3")
    result = interrupt_when(mark, [SORTED, "10", clubber, slow])
    assert result.triple() == (9, b"", b"SIGINT caught\n")


def test_players_that_ignore_end_are_killed_after_two_seconds(tmp_path: Path, clubber: str) -> None:
    """B and C ignore ``end`` and SIGTERM: both are SIGKILLed 2 s after ``end`` (2 s in all,
    not 2 s each), reported in order; the game itself ended normally."""
    b_mark, c_mark = tmp_path / "B-got-end", tmp_path / "C-got-end"
    b = fake_player(tmp_path, "b", f"on-end:ignore:{b_mark}")
    c = fake_player(tmp_path, "c", f"on-end:ignore:{c_mark}")
    expected = simulate_file(SORTED, 3, 1, ["standard", "first", "first"])
    result = clubhub(SORTED, "1", clubber, b, c)
    ended = time.time()
    assert result.triple() == (
        0,
        expected.hub_stdout(),
        b"Player B terminated due to signal 9\nPlayer C terminated due to signal 9\n",
    )
    after_end = ended - min(b_mark.stat().st_mtime, c_mark.stat().st_mtime)
    assert 1.5 <= after_end <= 3.5, f"killed {after_end:.2f} s after end, expected about 2 s"
    assert result.elapsed <= 5.0


def test_hub_stdout_closed_early(clubber: str) -> None:
    """A reader that goes away (``clubhub ... | head -1``) is no reason to crash or hang."""
    begun = time.monotonic()
    hub = start([program("clubhub"), DECKS / "one.decks", "60", clubber, clubber])
    assert hub.stdout is not None
    assert hub.stdout.readline().startswith(b"Player (A): ")
    hub.stdout.close()
    result = finish(hub, begun)
    assert (result.status, result.stderr) == (0, b"")
