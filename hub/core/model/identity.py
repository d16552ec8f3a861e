"""Who a player *is*, beside the name it shows: the identity records group by.

A `PlayerInfo` has a display name (``ai:9``, ``computer``, ``127.0.0.1:52316``) that depends
on the command that seated it, and an ``identity`` that does not. Identities are short
strings, one form per kind of player:

=====================  ==================================  ======================================
player                 identity                            made by
=====================  ==================================  ======================================
built-in AI            ``GAME/ai:LEVEL`` (``kalah/ai:9``)  `ai_identity`
random mover           ``GAME/random`` or, with a seed,   `random_identity` (its seed decides
                       ``GAME/random:SEED``                every choice: another seed is
                                                           another player)
program over pipes     ``program:PATH@HASH``               `program_identity` (resolved path and
                                                           the first 12 hex digits of the file's
                                                           SHA-256)
UCI engine             ``uci:ID NAME`` (its ``id name``),  `engine_identity`, `with_options`
                       with its UCI options if any:
                       ``uci:Stockfish 16 (Skill Level=3)``
network client         ``remote:NAME`` / ``remote:anonymous``  `remote_identity`
person                 ``person:NAME``                     `person_identity`
=====================  ==================================  ======================================

A seat sets ``PlayerInfo.identity`` when it knows more than its display name (docs/
architecture.md, "Player identity"). A record without one (an older record, or a seat that
did not say) gets one from its kind, spec and name: `identity_of`. Within one game, two
seats of one identity (self-play, three ``clubber`` seats) are one player
(`hub.records.results` gives such a game no result between them), except anonymous network
clients, who could be anyone: `seat_identities` tells those apart by their seat,
``remote:anonymous (seat 2)``.

Standard library only; `program_identity` reads a file once per process (cached by path,
size and modification time), the others are string formatting.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence

from hub.core.model.values import PlayerInfo

ANONYMOUS = "anonymous"
HASH_DIGITS = 12
_AI_SPEC = re.compile(r"^(?:ai|computer)(?::?(\d+))?$", re.IGNORECASE)
_RANDOM_SPEC = re.compile(r"^random(?::(-?\d+))?$", re.IGNORECASE)
_hashes: dict[tuple[str, int, int], str] = {}


def ai_identity(game: str, level: int | None = None) -> str:
    """``GAME/ai:LEVEL`` (``GAME/ai`` when the level is not known)."""
    return f"{game}/ai" if level is None else f"{game}/ai:{level}"


def random_identity(game: str, seed: int | None = None) -> str:
    """``GAME/random``, or ``GAME/random:SEED`` for a random mover with a fixed seed."""
    return f"{game}/random" if seed is None else f"{game}/random:{seed}"


def engine_identity(id_name: str) -> str:
    """A UCI engine by the ``id name`` it gave in its handshake."""
    return f"uci:{id_name.strip()}"


def with_options(identity: str, options: Sequence[tuple[str, str]]) -> str:
    """``identity`` of a player set up with ``options`` (an engine's UCI options, sorted by
    name): ``IDENTITY (NAME=VALUE, ...)``; the options decide how it plays, so the same
    engine at another skill level is another player."""
    if not options:
        return identity
    listed = ", ".join(f"{name}={value}" for name, value in sorted(options))
    return f"{identity} ({listed})"


def remote_identity(name: str | None = None) -> str:
    """A network client by the name it gave, ``remote:anonymous`` if it gave none."""
    return f"remote:{(name or '').strip() or ANONYMOUS}"


def person_identity(name: str) -> str:
    return f"person:{name}"


def program_identity(path: str) -> str:
    """``program:REALPATH@HASH`` for the executable at ``path`` (a name without a slash is
    looked up on PATH, as starting it does); ``program:PATH`` if it cannot be read (a
    missing program: its seat fails anyway)."""
    if os.sep not in path:
        path = shutil.which(path) or path
    try:
        real = os.path.realpath(path)
        status = os.stat(real)
        key = (real, status.st_size, status.st_mtime_ns)
        digest = _hashes.get(key)
        if digest is None:
            import hashlib  # (only a program seat pays for it)

            with open(real, "rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()[:HASH_DIGITS]
            _hashes[key] = digest
    except OSError:
        return f"program:{path}"
    return f"program:{real}@{digest}"


def identity_of(player: PlayerInfo, game: str) -> str:
    """``player.identity``, or one derived from what the record has (older records).

    Derived: a built-in AI named or specified ``ai:N``/``computerN`` is ``GAME/ai:N`` (a bare
    ``AI``/``computer``: ``GAME/ai``), a random mover specified ``random:SEED``
    ``GAME/random:SEED``; a program or engine is ``program:SPEC`` /
    ``engine:SPEC`` (no hash is known after the fact); a remote player is
    ``remote:anonymous`` (the name an older record has is its address, not a name it gave);
    a person is ``person:NAME``; any other kind ``KIND:SPEC``.
    """
    if player.identity:
        return player.identity
    kind = player.kind
    spec = player.spec or player.name
    if kind == "ai":
        random_mover = _RANDOM_SPEC.match(player.spec)
        if random_mover is not None:
            seed = random_mover.group(1)
            return random_identity(game, None if seed is None else int(seed))
        for text in (player.spec, player.name):
            match = _AI_SPEC.match(text)
            if match is not None:
                level = match.group(1)
                return ai_identity(game, None if level is None else int(level))
        return f"{game}/ai:{spec}"
    if kind == "remote":
        return remote_identity()
    if kind == "person":
        return person_identity(player.name)
    return f"{kind}:{spec}"


def seat_identities(game: str, players: Sequence[PlayerInfo]) -> tuple[str, ...]:
    """Each seat's identity (`identity_of`). Several seats of one identity are one player
    (self-play), but anonymous network clients could be anyone: one held by several seats
    of this game gets its seat (from 1) added, ``remote:anonymous (seat N)``."""
    identities = [identity_of(player, game) for player in players]
    anonymous = remote_identity()
    if identities.count(anonymous) < 2:
        return tuple(identities)
    return tuple(
        f"{identity} (seat {seat + 1})" if identity == anonymous else identity
        for seat, identity in enumerate(identities)
    )
