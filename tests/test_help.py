"""The top-level ``hub`` command's help and usage errors, through `hub.cli.main` in-process.

``hub`` writes with `hub.core.io.output.Output` (``os.write`` on fds 1 and 2), so these tests
capture file descriptors (capfd), not ``sys.stdout`` (capsys would see nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hub import __version__
from hub.cli import main
from hub.core.commands.plugin import GamePlugin
from hub.declared.plugin import discover_games

VERBS = ("play", "serve", "demo")


def run(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capfd.readouterr()
    return status, out, err


def words(text: str) -> str:
    """``text`` with argparse's line wrapping undone."""
    return " ".join(text.split())


def listed_games(help_text: str) -> list[str]:
    """The game names in the GAME section of ``hub VERB --help``."""
    section = help_text.partition("\n  GAME\n")[2]
    # A game's line is indented by 4; its wrapped summary continues further in.
    return [line.split()[0] for line in section.splitlines() if line[4:5].strip()]


def offering(verb: str) -> list[str]:
    return [name for name, plugin in discover_games().items() if getattr(plugin, verb) is not None]


@pytest.mark.parametrize("flag", ["--help", "-h", "help"])
def test_hub_help_lists_every_command_and_option(
    capfd: pytest.CaptureFixture[str], flag: str
) -> None:
    status, out, err = run(capfd, flag)
    assert (status, err) == (0, "")
    assert out.startswith("usage: hub [-h] [--version] COMMAND [ARGS ...]\n")
    for entry in (
        "-h, --help",
        "--version",
        "\n    games ",
        "games history|show|export|stats",
        "play GAME [ARGS ...]",
        "serve [GAME] [ARGS ...]",  # issue 27: hub serve alone serves every game
        "demo [GAME]",
        "match GAME PLAYER PLAYER",
        "engine [ARGS ...]",  # the chess plug-in's tool
        "help [COMMAND]",
    ):
        assert entry in out, entry
    for verb in VERBS:
        assert f"{', '.join(offering(verb))} (hub {verb} --help)" in words(out)


def test_hub_alone_prints_the_same_help_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    _, help_text, _ = run(capfd, "--help")
    status, out, err = run(capfd)
    assert (status, out, err) == (2, "", help_text)


def test_version(capfd: pytest.CaptureFixture[str]) -> None:
    assert run(capfd, "--version") == (0, f"hub {__version__}\n", "")


@pytest.mark.parametrize("verb", VERBS)
def test_verb_help_lists_the_games_that_offer_it(
    capfd: pytest.CaptureFixture[str], verb: str
) -> None:
    status, out, err = run(capfd, verb, "--help")
    assert (status, err) == (0, "")
    assert out.startswith(f"usage: hub {verb} ")
    assert "-h, --help" in out
    assert listed_games(out) == offering(verb)
    for name in offering(verb):
        assert words(discover_games()[name].summary) in words(out)
    assert run(capfd, "help", verb) == (0, out, "")
    assert run(capfd, verb, "-h") == (0, out, "")


def test_only_the_games_offering_a_verb_are_listed(capfd: pytest.CaptureFixture[str]) -> None:
    play = listed_games(run(capfd, "play", "--help")[1])
    serve = listed_games(run(capfd, "serve", "--help")[1])
    assert {"chess", "clubs", "kalah"} <= set(play) and "uqchess" not in play
    assert {"kalah", "uqchess", "clubs"} <= set(serve) and "chess" not in serve  # issue 17
    _, _, err = run(capfd, "play")
    assert f"name a game: {', '.join(play)} (see hub play --help)" in err


@pytest.mark.parametrize(
    ("args", "options"),
    [
        (["match", "--help"], ["GAME", "PLAYER", "--games", "--concurrency", "--db"]),
        (["games", "--help"], ["history", "show", "export", "stats"]),
        (["games", "history", "--help"], ["--game", "--player", "--limit", "--db"]),
        (["games", "show", "--help"], ["ID", "--delay", "--db"]),
        (["games", "export", "--help"], ["--format", "--output", "--db"]),
        (["games", "stats", "--help"], ["--game", "--db"]),
        (["help", "match"], ["--games", "--concurrency"]),
    ],
)
def test_sub_command_help(
    capfd: pytest.CaptureFixture[str], args: list[str], options: list[str]
) -> None:
    status, out, err = run(capfd, *args)
    assert (status, err) == (0, "")
    assert out.startswith("usage: hub ")
    for option in options:
        assert option in out, option


class Recorder:
    """A plug-in command that records the arguments it was given."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, args: Sequence[str]) -> int:
        self.calls.append(list(args))
        return 0


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> dict[str, Recorder]:
    """Two fake games in place of the installed ones; their commands record their calls."""
    commands = {key: Recorder() for key in ("play", "serve", "demo-a", "demo-b", "tool")}
    plugins = {
        "alpha": GamePlugin(
            name="alpha",
            summary="the first fake",
            play=commands["play"],
            demo=commands["demo-a"],
            tools={"probe": commands["tool"]},
        ),
        "beta": GamePlugin(
            name="beta", summary="the second fake", serve=commands["serve"], demo=commands["demo-b"]
        ),
    }
    monkeypatch.setattr("hub.cli.discover", lambda: plugins)
    return commands


@pytest.mark.parametrize(
    ("args", "command", "passed"),
    [
        (["play", "alpha", "--help"], "play", ["--help"]),
        (["play", "alpha", "-h", "x", "--port", "3"], "play", ["-h", "x", "--port", "3"]),
        (["serve", "beta", "--help"], "serve", ["--help"]),
        (["demo", "alpha"], "demo-a", []),
        (["probe", "--help"], "tool", ["--help"]),
        (["help", "probe"], "tool", ["--help"]),
    ],
)
def test_everything_after_the_game_reaches_it_verbatim(
    capfd: pytest.CaptureFixture[str],
    fake: dict[str, Recorder],
    args: list[str],
    command: str,
    passed: list[str],
) -> None:
    assert run(capfd, *args) == (0, "", "")
    assert {key: recorder.calls for key, recorder in fake.items() if recorder.calls} == {
        command: [passed]
    }


def test_demo_alone_runs_every_demo(
    capfd: pytest.CaptureFixture[str], fake: dict[str, Recorder]
) -> None:
    assert run(capfd, "demo") == (0, "", "")
    assert (fake["demo-a"].calls, fake["demo-b"].calls) == ([[]], [[]])


def test_fake_games_in_the_help(
    capfd: pytest.CaptureFixture[str], fake: dict[str, Recorder]
) -> None:
    _, out, _ = run(capfd, "--help")
    assert "probe [ARGS ...]" in out and "a tool of the alpha game" in out
    assert listed_games(run(capfd, "play", "--help")[1]) == ["alpha"]
    assert listed_games(run(capfd, "serve", "--help")[1]) == ["beta"]
    assert listed_games(run(capfd, "demo", "--help")[1]) == ["alpha", "beta"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["games", "extra"], "hub games: unknown command 'extra'"),
        (["games", "--bogus"], "hub games: unknown option '--bogus'"),
        (["demo", "chess", "kalah"], "hub demo: takes at most one game"),
        (["demo", "no-such-game"], "hub demo: no game 'no-such-game' offers 'demo'"),
        (["--version", "extra"], "hub --version: unexpected argument 'extra'"),
        (["frobnicate"], "hub: unknown command 'frobnicate'"),
        (["--bogus"], "hub: unknown option '--bogus'"),
        (["play"], "hub play: name a game: "),
        (["serve", "--bogus"], "hub serve: unrecognized arguments: --bogus"),
        (["play", "uqchess"], "hub play: no game 'uqchess' offers 'play'; games that do: "),
        (["serve", "chess"], "hub serve: no game 'chess' offers 'serve'; games that do: "),
        (["play", "--fast", "chess"], "hub play: unknown option '--fast'; name a game first"),
        (["help", "play", "extra"], "hub help: one command at a time"),
        (["help", "frobnicate"], "hub: unknown command 'frobnicate'"),
    ],
)
def test_wrong_usage_is_one_line_with_a_hint(
    capfd: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run(capfd, *args)
    assert (status, out) == (2, "")
    assert err.startswith(message)
    assert err.count("\n") == 1 and err.endswith(" --help)\n")
    command = args[0] if args[0] in ("games", *VERBS) else ""
    assert err.endswith(f"(see {f'hub {command}'.strip()} --help)\n")
