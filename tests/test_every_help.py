"""Every installed command's ``--help``, run as a user would (issue 12): exit 0, nothing on
stderr, and every option and argument its parser knows mentioned, each with its default.

The options are taken from the parser objects the programs build (not from a list here), so
an option added to a program without help fails this test. All the commands run at once, as
real subprocesses of the installed console scripts, in one fixture (a fraction of a second).
Programs whose command line a spec fixes parse by hand; for them the help parser is also the
list of options their parser accepts (checked below), and wrong usage keeps the spec's message.
"""

from __future__ import annotations

import argparse
import functools
import subprocess
from collections.abc import Callable, Iterator

import attrs
import pytest

from hub import cli
from hub.core.commands.usage import HELP_OPTIONS, flag_options, option_strings, value_options
from hub.declared import serve as declared_serve
from hub.declared.plugin import discover_games
from hub.games.chess import console, engine_server
from hub.games.clubs import hub as clubhub
from hub.games.clubs import player as clubber
from hub.games.clubs.game import ClubsGame
from hub.games.kalah import options as kalah
from hub.games.uqchess import client as uqclient
from hub.games.uqchess import options as uqoptions
from hub.records import bots, people
from hub.records import cli as records
from hub.tournament import cli as tournament
from tests.conftest import program

TIMEOUT = 60
Factory = Callable[[], argparse.ArgumentParser]


@attrs.frozen
class Case:
    argv: tuple[str, ...]
    """The installed script and its arguments."""
    parser: Factory | None
    """The parser the program renders its help from (None: check only the exit and usage)."""

    @property
    def name(self) -> str:
        return " ".join(self.argv)


def _match_parser(game: str) -> Factory:
    def make() -> argparse.ArgumentParser:
        kit = discover_games()[game].match
        assert kit is not None
        return tournament.build_parser(kit())

    return make


def _records_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = records.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(commands.choices)


def _records_parser(command: str) -> Factory:
    return lambda: _records_parsers()[command]


OUR_PARSERS: dict[tuple[str, ...], Factory] = {
    ("hub", "play", "kalah"): kalah.play_parser,
    ("hub", "serve", "kalah"): kalah.serve_parser,
    ("hub", "play", "chess"): console.help_parser,
    ("hub", "play", "clubs"): lambda: clubhub.help_parser(play=True),
    ("hub", "serve", "clubs"): lambda: declared_serve.parser_for(ClubsGame),
    ("hub", "serve", "uqchess"): lambda: uqoptions.help_parser(hub_options=True),
    ("hub", "engine"): engine_server.build_parser,
}
"""The commands of our own plug-ins (every one must be here; other plug-ins' are run only)."""
OUR_GAMES = ("chess", "clubs", "kalah", "uqchess")


def cases() -> list[Case]:
    plugins = discover_games()
    found = [
        Case(("hub",), lambda: cli._main_parser(discover_games())),
        Case(("hub", "match"), lambda: tournament.build_parser(None)),
        Case(("hub", "games"), records.build_parser),
        Case(("hub", "bots"), bots.build_parser),
        Case(("hub", "names"), people.build_parser),
        Case(("clubhub",), clubhub.help_parser),
        Case(("clubber",), clubber.help_parser),
        Case(("uqchessserver",), uqoptions.help_parser),
        Case(("uqchessclient",), uqclient.help_parser),
    ]
    found += [Case(("hub", "games", name), _records_parser(name)) for name in records.COMMANDS]
    for verb in cli.GAME_VERBS:
        found.append(Case(("hub", verb), functools.partial(cli._verb_parser, plugins, verb)))
    for name, plugin in plugins.items():
        for verb in ("play", "serve"):
            if getattr(plugin, verb) is not None:
                found.append(Case(("hub", verb, name), OUR_PARSERS.get(("hub", verb, name))))
        if plugin.demo is not None:
            found.append(Case(("hub", "demo", name), functools.partial(cli._demo_parser, plugin)))
        if plugin.match is not None:
            found.append(Case(("hub", "match", name), _match_parser(name)))
        for tool in plugin.tools:
            found.append(Case(("hub", tool), OUR_PARSERS.get(("hub", tool))))
    return found


CASES = cases()


@pytest.fixture(scope="module")
def helps() -> Iterator[dict[str, subprocess.CompletedProcess[str]]]:
    """Every case's ``--help``, run at once."""
    running = {
        case.name: subprocess.Popen(
            [program(case.argv[0]), *case.argv[1:], "--help"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for case in CASES
    }
    try:
        done = {}
        for name, process in running.items():
            out, err = process.communicate(timeout=TIMEOUT)
            done[name] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
        yield done
    finally:
        for process in running.values():
            process.kill()
            process.wait()


def words(text: str) -> str:
    return " ".join(text.split())


def test_every_command_of_our_games_has_its_parser_here() -> None:
    ours = {case.argv for case in CASES if case.parser is not None}
    assert set(OUR_PARSERS) <= ours
    for case in CASES:
        if case.argv[:1] == ("hub",) and len(case.argv) == 3 and case.argv[1] != "demo":
            assert case.argv[2] not in OUR_GAMES or case.parser is not None, case.name
    assert {("hub", "engine"), ("hub", "play", "kalah"), ("clubber",)} <= ours


def documented(action: argparse.Action) -> bool:
    """The help says what happens when the option (or argument) is not given."""
    if action.option_strings and set(action.option_strings) <= {*HELP_OPTIONS, "--version"}:
        return True  # an action, not a setting
    if isinstance(action, argparse._SubParsersAction):
        return True  # a list of commands (each checked by name below)
    if not action.option_strings and action.nargs not in ("?", "*"):
        return True  # a required argument
    text = words(str(action.help))
    return "(default" in text or "default:" in text or "(required" in text


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_help_exits_0_and_names_every_option_with_its_default(
    helps: dict[str, subprocess.CompletedProcess[str]], case: Case
) -> None:
    result = helps[case.name]
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.startswith("usage: ")
    assert "-h, --help" in result.stdout
    if case.parser is None:
        return
    parser = case.parser()
    assert parser.format_help() == result.stdout  # the help is this parser's
    for option in option_strings(parser):
        assert option in result.stdout, option
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if not action.option_strings:  # a positional argument, or the commands
            shown = action.metavar or action.dest
            assert str(shown) in result.stdout, shown
        if isinstance(action, argparse._SubParsersAction):
            for name in action.choices:
                assert name in result.stdout, name
        assert documented(action), (action.option_strings or action.dest, action.help)


@pytest.mark.parametrize(
    ("argv", "status", "stderr"),
    [
        # argparse programs: one line ending in the hint (more in tests/test_help.py and
        # each game's tests)
        (["hub", "serve", "kalah", "--bogus"], 2, "(see hub serve kalah --help)\n"),
        # spec-fixed command lines: --help only alone, otherwise the spec's message and status
        (["hub", "play", "chess", "--classic", "--help"], 2, "Usage: hub play chess "),
        (["clubhub", "--help", "x"], 1, "Usage: clubhub deckfile winscore "),
        (["hub", "play", "clubs", "x", "--help"], 1, "Usage: clubhub deckfile winscore "),
        (["clubber", "3", "--help"], 3, "Invalid player ID\n"),
        (["uqchessserver", "--help", "--listenOn", "0"], 8, "Usage: ./uqchessserver "),
        (["uqchessclient", "1", "--help"], 13, "Usage: uqchessclient portnum "),
    ],
)
def test_wrong_usage(argv: list[str], status: int, stderr: str) -> None:
    result = subprocess.run(
        [program(argv[0]), *argv[1:]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert (result.returncode, result.stdout) == (status, "")
    assert result.stderr.count("\n") == 1
    assert stderr in result.stderr
    assert result.stderr.endswith(stderr) or result.stderr.startswith(stderr)


SAMPLES = {"PATH": "x.db", "[HOST:]PORT": "0", "BYTES": "65536"}


def sample(parser: argparse.ArgumentParser, option: str) -> list[str]:
    """``option`` with a valid value (from its choices or its metavar), for the hand-written
    parsers: each option their help lists must be accepted."""
    if option in flag_options(parser):
        return [option]
    action = next(a for a in parser._actions if option in a.option_strings)
    if action.choices:
        return [option, str(next(iter(action.choices)))]
    return [option, SAMPLES.get(str(action.metavar), "1")]


@pytest.mark.parametrize("hub_options", [False, True])
def test_the_uqchess_server_accepts_every_option_its_help_lists(hub_options: bool) -> None:
    parser = uqoptions.help_parser(hub_options=hub_options)
    assert value_options(parser) | flag_options(parser) >= {"--listenOn", "--engines"}
    for option in value_options(parser) | flag_options(parser):
        assert uqoptions.parse_args(sample(parser, option), hub_options=hub_options), option
    assert uqoptions.parse_args(["--unlisted", "1"], hub_options=hub_options) is None


def test_the_console_and_the_uqchess_client_accept_every_option_their_help_lists() -> None:
    parser = console.help_parser()
    for option in value_options(parser) | flag_options(parser):
        assert console.parse_options(sample(parser, option)) is not None, option
    parser = uqclient.help_parser()
    for option in value_options(parser) | flag_options(parser):
        assert uqclient.parse_args(["3000", *sample(parser, option)]) is not None, option
