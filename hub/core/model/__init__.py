"""The game model's values: the `Referee` interface and `Outcome`, clocks and time
controls, the events and records of a game, the event bus, who a player is.

May import: nothing of hub (the standard library, attrs, trio). Pure values and their
fan-out: no I/O, no match loop, no command line; every layer above reads them.
"""
