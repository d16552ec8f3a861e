"""Playing a game: the declaration (`Game`), the one match loop (`Match`) and its seats
(over a line stream, in a worker thread, fed by a host, a person at the keyboard), the JSON
bot protocol, what seats keep between the games of a slot, the general game player, and what
a game declares to ``hub match`` (`GameSpec`, `TournamentKit`).

May import: `hub.core.model`, `hub.core.io`. Names no game and no layer above the core.
"""
