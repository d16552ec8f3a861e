"""The ``hub`` command: ``hub games``, ``hub play GAME ...``, ``hub serve GAME ...``, ``hub demo``.

Games are plug-ins found through the ``hub.games`` entry-point group (`hub.core.plugin`);
this module only dispatches to them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hub import __version__
from hub.core.output import Output
from hub.core.plugin import Command, GamePlugin, discover

USAGE = """\
usage: hub games                 list the installed games
       hub play GAME [ARGS...]   play a game (hub play clubs deckfile winscore prog1 prog2 ...)
       hub serve GAME [ARGS...]  serve a game over TCP
       hub demo [GAME]           show every game (or one) on its built-in defaults
       hub --version"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out, err = Output(1), Output(2)
    if not args or args[0] in ("-h", "--help", "help"):
        (out if args else err).line(USAGE)
        out.flush()
        err.flush()
        return 0 if args else 2
    verb, rest = args[0], args[1:]
    if verb == "--version":
        out.line(f"hub {__version__}")
        out.flush()
        return 0
    plugins = discover()
    if verb == "games":
        for plugin in plugins.values():
            verbs = [name for name in ("play", "serve", "demo") if getattr(plugin, name)]
            verbs += [f"hub {tool}" for tool in plugin.tools]
            out.line(f"{plugin.name:10} {plugin.summary} [{', '.join(verbs)}]")
        out.flush()
        return 0
    if verb == "demo" and not rest:
        status = 0
        for plugin in plugins.values():
            if plugin.demo is not None:
                status = plugin.demo([]) or status
        return status
    if verb in ("play", "serve", "demo"):
        if not rest:
            err.line(f"hub {verb}: name a game ({', '.join(plugins) or 'none installed'})")
            err.flush()
            return 2
        command = _command(plugins.get(rest[0]), verb)
        if command is None:
            err.line(
                f"hub {verb}: no game {rest[0]!r} offers '{verb}' "
                f"(installed: {', '.join(plugins) or 'none'})"
            )
            err.flush()
            return 2
        return command(rest[1:])
    for plugin in plugins.values():
        tool = plugin.tools.get(verb)
        if tool is not None:
            return tool(rest)
    err.line(f"hub: unknown command {verb!r}\n{USAGE}")
    err.flush()
    return 2


def _command(plugin: GamePlugin | None, verb: str) -> Command | None:
    if plugin is None:
        return None
    command: Command | None = getattr(plugin, verb)
    return command


if __name__ == "__main__":
    sys.exit(main())
