"""What seats keep between the games of one slot of ``hub match`` (a `Session`).

Starting some players costs more than a game's first moves (Stockfish loads its network and
its hash), so testers such as fastchess and cutechess start an engine once and send it
``ucinewgame`` before each game. A seat kind that can do that keeps its players in the
current session's resources: `current` is the session of the running slot (None outside
one: the seat then stops everything it started when its game ends). `open_session` (the
match kit's ``session()``) closes every resource when the slot's games are done.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Callable
from typing import Protocol, TypeVar

import attrs
import trio


class Resource(Protocol):
    """Something a session keeps (an engine shelf): closed once, when the session ends."""

    async def aclose(self) -> None: ...


R = TypeVar("R", bound=Resource)


@attrs.define(eq=False)
class Session:
    """The resources of one slot's games, by name."""

    resources: dict[str, Resource] = attrs.Factory(dict)

    def resource(self, name: str, make: Callable[[], R]) -> R:
        """The resource ``name``, made by ``make()`` the first time it is asked for."""
        found = self.resources.get(name)
        if found is None:
            found = self.resources[name] = make()
        return found  # type: ignore[return-value]

    async def aclose(self) -> None:
        """Close every resource (shielded; again is a no-op)."""
        resources, self.resources = list(self.resources.values()), {}
        with trio.CancelScope(shield=True):
            for resource in resources:
                await resource.aclose()


_CURRENT: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "hub_match_session", default=None
)


def current() -> Session | None:
    """The session of the games being played here, if they are played inside one."""
    return _CURRENT.get()


@contextlib.asynccontextmanager
async def open_session() -> AsyncIterator[Session]:
    """A session for the games played inside the block; leaving it closes what they kept."""
    session = Session()
    token = _CURRENT.set(session)
    try:
        yield session
    finally:
        _CURRENT.reset(token)
        await session.aclose()
