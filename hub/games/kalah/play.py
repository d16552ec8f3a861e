"""``hub play kalah`` (Kalah's own program, docs/kalah.md): with ``--connect``, a client of
any server of kalah.md (`hub.games.kalah.client`); without, a local game at the terminal
(`hub.games.kalah.local`). Its exit statuses are the client's (`EXIT_*` there); a local
game that ended is 0.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hub.core.commands.running import run_program
from hub.core.commands.usage import HelpRequested, hint, show_help
from hub.core.io.output import Output
from hub.core.play.person import open_keyboard
from hub.games.kalah.client import EXIT_USAGE, connect_and_play, split_address
from hub.games.kalah.local import play_local
from hub.games.kalah.options import PLAY_PROG, OptionsError, parse_play


def main(argv: Sequence[str]) -> int:
    out, err = Output(1), Output(2)
    try:
        options = parse_play(argv)
        if options.connect is not None:
            split_address(options.connect)
    except HelpRequested as exc:
        return show_help(exc)
    except OptionsError as exc:
        err.line(hint(PLAY_PROG, str(exc)))
        err.flush()
        return EXIT_USAGE

    async def run() -> int:
        if options.connect is not None:
            return await connect_and_play(options, out, err)
        people = options.human or options.game.opponent == "human"
        if people:
            async with open_keyboard() as keyboard:
                await play_local(options, out, keyboard)
        else:
            await play_local(options, out)
        return 0

    return run_program(run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
