"""``hub match``: tournaments between any players of any game (see docs/matches.md).

* `schedule`: the games of a match (openings, seat orders, ids), pure;
* `tally`: the bookkeeping of results: W/D/L, points, faults, game pairs, ranks, pure;
* `elo`: the arithmetic on those counts: scores with intervals, Elo, nElo, LOS, the SPRT
  with fastchess's three models, pure;
* `runner`: plays the schedule K games at a time, in-process, in worker processes
  (`worker`) or on Ray (`ray_backend`, the one module that imports ray), and records each
  finished game;
* `progress`: the live progress line and the final table;
* `cli`: the ``hub match`` command.

Nothing here imports ray except `ray_backend`, and only when ``--cluster`` asks for it.
"""
