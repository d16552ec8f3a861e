"""hub: referee card and board games between programs and people.

This module is imported by every entry point, including the start-up-sensitive ``clubber``
player, so it must stay free of imports: no trio, no attrs, nothing a program does not need.
"""

__version__ = "0.1.0"
