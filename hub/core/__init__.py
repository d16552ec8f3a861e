"""The game-agnostic core: referees, line streams, child processes and the match loop.

Import the sub-modules directly (``from hub.core.lines import LineStream``); this package
module imports nothing so that light programs can use one piece without paying for the rest.
"""
