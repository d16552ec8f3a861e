"""The two small values every layer shares, kept apart from the event types so that a game
that nobody watches imports none of those (hub/core/play/match.py imports hub.core.model.events only
when an event or a record is made):

* `PlayerInfo`, who sits in a seat;
* `JSON`, the type of a state view (what `hub.core.play.game.Game.view` returns).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import attrs

JSON: TypeAlias = Any
"""A value made of dict/list/str/int/float/bool/None (what `json.dumps` accepts)."""


@attrs.frozen
class PlayerInfo:
    """Who sits in a seat: a display name and what kind of player it is.

    ``kind`` is one of ``program`` (a child process over pipes), ``remote`` (a TCP peer),
    ``ai`` (a built-in AI), ``engine`` (a UCI engine), ``person`` (at the terminal) or any
    word a game needs; ``spec`` is how to summon it again (``ai:4``, ``clubber``, ...).

    ``identity`` is who it is, whatever its display name (``kalah/ai:9``,
    ``program:/usr/bin/clubber@3fa2b1c9d0e1``, ``uci:Stockfish 15.1``, ``remote:anonymous``):
    hub.core.model.identity makes them, and derives one for a player without it (``""``, as in
    older records). Records group players by it (``hub games stats|ratings``).
    """

    name: str
    kind: str = "program"
    spec: str = ""
    identity: str = ""
