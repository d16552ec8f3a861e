"""A returning player of an adjourned game that another process of the hub resumes
(`hub.declared.adjourned.Elsewhere`; the holds: `hub.records.resuming`): a TCP client is
relayed there with its hello (its ``resume``, name and token), as the shared waiting queue
relays a client to its partner (`hub.declared.relay`)."""

from __future__ import annotations

from hub.core.io.lines import LineStream
from hub.core.play.jsonbot import Hello
from hub.declared.adjourned import Elsewhere
from hub.declared.relay import relay


async def relay_resumed(lines: LineStream, hello: Hello, elsewhere: Elsewhere, game: str) -> None:
    """Play the client's resumed game at the process that holds it, then
    `hub.declared.relay.Relayed` is raised (its connection ends); returns if that process
    cannot be reached (the caller then refuses the hello, saying where the game waits)."""
    await relay(lines, hello, elsewhere.address, game, resume=True)
