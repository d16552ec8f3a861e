"""``python -m hub.games.chess.console``: ``hub play chess``."""

import sys

from hub.games.chess.console.cli import main

if __name__ == "__main__":  # not when a tool imports every module (tests/tournament)
    sys.exit(main(sys.argv[1:]))
