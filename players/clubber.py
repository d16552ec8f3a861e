#!/usr/bin/env python3
"""The standard clubs player, runnable straight from a checkout: ``players/clubber.py N ID``.

It runs the same code as the installed ``clubber`` (hub.games.clubs.player), found next to
this file, so ``clubhub deck 10 ./players/clubber.py ./players/clubber.py`` works without
installing anything (the player needs only the Python standard library).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

from hub.games.clubs.player import main

if __name__ == "__main__":
    sys.exit(main())
