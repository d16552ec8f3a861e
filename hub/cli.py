"""The ``hub`` command: ``hub games``, ``hub play GAME ...``, ``hub serve GAME ...``, ``hub demo``.

Games are plug-ins found through the ``hub.games`` entry-point group (`hub.core.commands.plugin`);
this module only dispatches to them. The verb and the game are taken by hand and everything
after the game is handed to it verbatim (argparse's ``REMAINDER`` drops a leading option such
as ``--help``); argparse renders the help, in the style of ``hub match`` and ``hub games``.
Wrong usage is one line on stderr ending in ``(see COMMAND --help)``, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

from hub import __version__
from hub.core.commands.plugin import (
    Command,
    GamePlugin,
    PluginFailure,
    load_failure,
    plugin_failures,
)
from hub.core.commands.running import exit_status_on_interrupt
from hub.core.commands.usage import formatter
from hub.core.io.output import Output
from hub.declared.plugin import discover_games as discover

PROG = "hub"
HELP = ("-h", "--help")
GAME_VERBS = ("play", "serve", "demo")
DESCRIPTION = (
    "Play, serve, demonstrate and match the installed games (plug-ins: `hub games` lists "
    "them). Every command has its own --help."
)
VERB_USAGES = {
    "play": "hub play GAME [ARGS ...]",
    "serve": "hub serve [GAME] [ARGS ...]",
    "demo": "hub demo [GAME]",
}
VERB_SUMMARIES = {
    "play": "play a game",
    "serve": "serve every game at one address, or one game, over TCP and the web",
    "demo": "show every game, or one, on its built-in defaults",
}
VERB_DESCRIPTIONS = {
    "play": "Play GAME in the terminal or between programs. Everything after GAME is the "
    "game's own (hub play GAME --help).",
    "serve": "Serve GAME over TCP. Everything after GAME is the game's own "
    "(hub serve GAME --help).",
    "demo": "Show every game, or only GAME, on its built-in defaults.",
}


class HubUsageError(Exception):
    """Wrong usage of ``hub`` itself, before a verb's own parser takes over: ``message`` and
    the command whose ``--help`` shows the right one (`hub.core.commands.usage.UsageError` is a
    verb's)."""

    def __init__(self, message: str, command: str = PROG) -> None:
        super().__init__(f"{message} (see {command} --help)")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out, err = Output(1), Output(2)
    interrupted: list[int] = []
    try:
        # Ctrl-C or SIGTERM anywhere, from the start-up (plug-ins, imports) to a command's
        # end (a demo, a game): 130 or 143, never a traceback (hub/core/commands/running.py)
        with exit_status_on_interrupt(interrupted):
            return _dispatch(args, out, err)
        return interrupted[0]
    except HubUsageError as exc:
        err.line(str(exc))
        return 2
    finally:
        out.flush()
        err.flush()


def _dispatch(args: list[str], out: Output, err: Output) -> int:
    if not args:
        err.line(_help(_main_parser(discover())))
        return 2
    verb, rest = args[0], args[1:]
    if verb in HELP or verb == "help":
        if verb == "help" and rest:
            if len(rest) > 1:
                raise HubUsageError(f"hub help: one command at a time, not {' '.join(rest)!r}")
            return _dispatch([rest[0], "--help"], out, err)
        out.line(_help(_main_parser(discover())))
        return 0
    if verb == "--version":
        if rest:
            raise HubUsageError(f"hub --version: unexpected argument {rest[0]!r}")
        out.line(f"hub {__version__}")
        return 0
    if verb.startswith("-"):
        raise HubUsageError(f"hub: unknown option {verb!r}")
    if verb == "match":
        from hub.tournament.cli import main as match

        return match(rest)
    if verb == "bots":
        from hub.records.bots import main as bots

        return bots(rest)
    if verb == "names":
        from hub.records.people import main as names

        return names(rest)
    plugins = discover()
    if verb == "games":
        return _games(plugins, rest, out, plugin_failures() if not rest else ())
    if verb in GAME_VERBS:
        return _game_verb(plugins, verb, rest, out, err)
    tool = _tools(plugins).get(verb)
    if tool is None:
        raise HubUsageError(f"hub: unknown command {verb!r}")
    return tool[1](rest)


def _games(
    plugins: Mapping[str, GamePlugin],
    rest: list[str],
    out: Output,
    failures: Sequence[PluginFailure] = (),
) -> int:
    """``hub games`` lists the installed games; ``hub games COMMAND ...`` the recorded ones."""
    if rest:
        from hub.records.cli import COMMANDS
        from hub.records.cli import main as records

        if rest[0] in COMMANDS or rest[0] in HELP:
            return records(rest)
        kind = "option" if rest[0].startswith("-") else "command"
        raise HubUsageError(
            f"hub games: unknown {kind} {rest[0]!r}; the commands are {', '.join(COMMANDS)}",
            "hub games",
        )
    for plugin in plugins.values():
        # `match` is dispatched apart (hub.tournament) but is a game's verb all the same
        verbs = [name for name in ("play", "serve", "match", "demo") if getattr(plugin, name)]
        verbs += [f"hub {tool}" for tool in plugin.tools]
        out.line(f"{plugin.name:10} {plugin.summary} [{', '.join(verbs)}]")
    for failure in failures:  # loud: a plug-in with a typo does not silently vanish
        out.line(f"{failure.name:10} failed to load ({failure.target}): {failure.error}")
    return 0


def _game_verb(
    plugins: Mapping[str, GamePlugin], verb: str, rest: list[str], out: Output, err: Output
) -> int:
    """``hub play|serve GAME ARGS...`` and ``hub demo [GAME]``; a game whose plug-in fails
    to load is said so, with why (as ``hub games`` lists it), exit status 1."""
    offering = _offering(plugins, verb)
    where = f"hub {verb}"
    names = ", ".join(offering) or "none installed"
    if rest and rest[0] in HELP:
        out.line(_help(_verb_parser(plugins, verb)))
        return 0
    if verb == "serve" and (not rest or rest[0].startswith("-")):
        from hub.declared.site import main as site  # every game at one address
        from hub.tournament.arena import operator_for  # (the operator's round-robin)

        return site(plugins, rest, operator_for)
    if verb == "demo":
        if len(rest) == 2 and rest[1] in HELP and rest[0] in offering:
            out.line(_help(_demo_parser(plugins[rest[0]])))
            return 0
        if len(rest) > 1:
            raise HubUsageError(f"hub demo: takes at most one game, not {' '.join(rest)!r}", where)
        if not rest:
            status = 0
            for demo in offering.values():
                status = demo([]) or status
            return status
    elif not rest:
        raise HubUsageError(f"hub {verb}: name a game: {names}", where)
    if rest[0].startswith("-"):
        raise HubUsageError(f"hub {verb}: unknown option {rest[0]!r}; name a game first", where)
    command = offering.get(rest[0])
    failure = load_failure(rest[0]) if rest[0] not in plugins else None
    if failure is not None:
        err.line(f"hub {verb}: {failure.words()}")
        return 1
    if command is None:
        raise HubUsageError(
            f"hub {verb}: no game {rest[0]!r} offers '{verb}'; games that do: {names}", where
        )
    if verb == "serve":
        from hub.declared.plugin import DeclaredServe

        if isinstance(command, DeclaredServe):  # (the operator's round-robin, as the site's)
            from hub.tournament.arena import operator_for

            return command(rest[1:], operator_for)
    return command(rest[1:])


def _offering(plugins: Mapping[str, GamePlugin], verb: str) -> dict[str, Command]:
    """The games that offer ``verb`` (play, serve or demo), each with its command."""
    commands = {name: getattr(plugin, verb) for name, plugin in plugins.items()}
    return {name: command for name, command in commands.items() if command is not None}


def _tools(plugins: Mapping[str, GamePlugin]) -> dict[str, tuple[GamePlugin, Command]]:
    """The top-level verbs the games add (``hub engine``), each with its game."""
    return {
        name: (plugin, tool)
        for plugin in plugins.values()
        for name, tool in plugin.tools.items()
        if name not in (*GAME_VERBS, "games", "match", "help")
    }


def _formatter(prog: str) -> argparse.HelpFormatter:
    return formatter(prog)  # every command's help has the same layout (hub.core.commands.usage)


def _main_parser(plugins: Mapping[str, GamePlugin]) -> argparse.ArgumentParser:
    """``hub --help``: a parser built only to render the help (dispatch is by hand)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage="hub [-h] [--version] COMMAND [ARGS ...]",
        description=DESCRIPTION,
        formatter_class=_formatter,
    )
    parser.add_argument("--version", action="store_true", help="print hub's version")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    entries = [
        ("games", "list the installed games and the commands each offers"),
        (
            "games history|show|export|stats",
            "the recorded games: list, replay, export, ratings (hub games --help)",
        ),
    ]
    for verb in GAME_VERBS:
        names = ", ".join(_offering(plugins, verb)) or "none installed"
        entries.append(
            (
                VERB_USAGES[verb].removeprefix("hub "),
                f"{VERB_SUMMARIES[verb]}: {names} (hub {verb} --help)",
            )
        )
    entries.append(
        (
            "match GAME PLAYER PLAYER ...",
            "a match between players, recorded (hub match --help)",
        )
    )
    entries.append(("bots add|list|remove", "registered bot names and tokens (hub bots --help)"))
    entries.append(("names list|remove", "the names people registered (hub names --help)"))
    for name, (plugin, _) in _tools(plugins).items():
        entries.append(
            (f"{name} [ARGS ...]", f"a tool of the {plugin.name} game (hub {name} --help)")
        )
    entries.append(("help [COMMAND]", "this help, or COMMAND's (= hub COMMAND --help)"))
    for name, text in entries:
        commands.add_parser(name, help=text)
    return parser


def _verb_parser(plugins: Mapping[str, GamePlugin], verb: str) -> argparse.ArgumentParser:
    """``hub play|serve|demo --help``: the games that offer ``verb``, with their summaries
    (``hub serve``'s with its own options: every game at one address)."""
    if verb == "serve":
        from hub.declared.site import declared_games
        from hub.declared.site import parser as site_parser

        site = site_parser(list(declared_games(plugins)))
        listing = site.add_subparsers(title="games that offer 'serve'", metavar="GAME")
        for name in _offering(plugins, verb):
            listing.add_parser(name, help=plugins[name].summary)
        return site
    parser = argparse.ArgumentParser(
        prog=f"hub {verb}",
        usage=VERB_USAGES[verb],
        description=VERB_DESCRIPTIONS[verb],
        formatter_class=_formatter,
    )
    games = parser.add_subparsers(title=f"games that offer '{verb}'", metavar="GAME")
    for name in _offering(plugins, verb):
        games.add_parser(name, help=plugins[name].summary)
    return parser


def _demo_parser(plugin: GamePlugin) -> argparse.ArgumentParser:
    """``hub demo GAME --help``: what the demo shows (a demo takes no arguments)."""
    return argparse.ArgumentParser(
        prog=f"hub demo {plugin.name}",
        description=f"Show {plugin.name} ({plugin.summary}) on its built-in defaults, "
        "narrated, then exit. It takes no arguments; `hub demo` shows every game.",
        formatter_class=_formatter,
    )


def _help(parser: argparse.ArgumentParser) -> str:
    return parser.format_help().rstrip("\n")


if __name__ == "__main__":
    sys.exit(main())
