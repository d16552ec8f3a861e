"""``python -m hub.games.chess.console``: ``hub play chess``."""

import sys

from hub.games.chess.console.cli import main

sys.exit(main(sys.argv[1:]))
