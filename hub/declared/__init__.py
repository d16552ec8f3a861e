"""Everything a declared game (`hub.core.play.game.Game`) gets without writing it: ``hub play``
(play.py), ``hub serve`` (serve.py), ``hub match`` (kit.py), the seats of every spec
(seats.py: built-in AIs, random, programs and TCP clients over the JSON bot protocol, a
person at the terminal or in a browser: browser.py) and the terminal's words (terminal.py).

Above `hub.core`, beside `hub.records` and `hub.web`, which it uses; it names no game."""
