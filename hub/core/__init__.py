"""The game-agnostic core, grouped by concern into subpackages, from the bottom up:

* `hub.core.model`: the rules' interface, outcomes, clocks, events and records, identities;
* `hub.core.io`: line streams, processes, TCP serving and its log, the terminal's bytes;
* `hub.core.play`: the declaration, the match loop and its seats;
* `hub.core.commands`: what the commands share (usage, signals, demos, plug-ins).

Each may import only those before it (tests/test_layers.py). Import the modules directly
(``from hub.core.io.lines import LineStream``); the packages import nothing, so that light
programs can use one piece without paying for the rest.
"""
