"""Playing a game: the declaration (`Game`), the one match loop (`Match`) and its seats
(over a line stream, in a worker thread, fed by a host, a person at the keyboard), the JSON
bot protocol, what seats keep between the games of a slot.

May import: `hub.core.model`, `hub.core.io`. Names no game and no layer above the core.
"""
