"""A TCP client relayed to another ``hub serve`` process of the same hub, where a player waits
(the shared waiting queue: `hub.records.waiting`).

The client has had its welcome and sent its hello here; the relay connects to the other
process's port as a JSON bot client would, takes its welcome (which must be for the same
game), sends the client's hello (its name, ``opponent`` ``any``: the next player there, the
one waiting; the choice both waited with, ``tc`` and ``settings``), and from then on copies
lines both ways, unchanged, until either side closes: the other process plays and records
the game, and the client's later hellos (another game) go there too. The client sees one
conversation, as if it had connected there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import trio

from hub.core.io.lines import LineError, LineStream, PeerClosed
from hub.core.play.jsonbot import MAX_LINE, OPPONENTS_ANY, Hello, dumps

CONNECT_SECONDS = 5.0
"""How long the relay waits for the other process to connect and welcome."""


class Relayed(PeerClosed):
    """The client's conversation went on at another process and is over there (either side
    closed): its connection here ends too, as after any peer's close."""


async def relay(
    client: LineStream,
    hello: Hello,
    address: str,
    game: str,
    *,
    tc: str = "",
    settings: Mapping[str, Any] | None = None,
    resume: bool = False,
) -> None:
    """Play ``client``'s games at the process at ``address`` (``HOST:PORT``), on the choice
    ``tc`` and ``settings`` (the hello's ``tc`` and ``settings``; "" and None: that
    process's own), then raise `Relayed`; returns, having sent the client nothing, if that
    process cannot be reached or is not serving ``game`` (the caller then pairs the client
    at home). With ``resume`` the hello sent there keeps its ``resume`` (an adjourned game
    that process resumes: hub.records.resuming) instead of asking for the next to arrive."""
    host, _, port = address.rpartition(":")
    remote: LineStream | None = None
    ready = False
    with trio.move_on_after(CONNECT_SECONDS):
        try:
            stream = await trio.open_tcp_stream(host, int(port))
        except (OSError, ValueError):
            return
        remote = LineStream(stream, stream, max_line=MAX_LINE)
        try:
            welcome = json.loads(await remote.receive_line(MAX_LINE))
            offered = welcome.get("games", []) if isinstance(welcome, dict) else []
            if not (isinstance(welcome, dict) and (welcome.get("game") == game or game in offered)):
                await remote.aclose()
                return
            again: dict[str, object] = {"type": "hello", "name": hello.name, "game": game}
            again["opponent"] = OPPONENTS_ANY
            if tc:
                again["tc"] = tc
            if settings:
                again["settings"] = dict(settings)
            if resume and hello.resume:
                again["resume"] = hello.resume
            if hello.token is not None:  # a registered name is checked there too
                again["token"] = hello.token
            await remote.send_line(dumps(again))
            ready = True
        except (LineError, ValueError):
            await remote.aclose()
            return
    if remote is None or not ready:
        if remote is not None:
            with trio.CancelScope(shield=True):
                await remote.aclose()
        return
    try:
        async with trio.open_nursery() as nursery:

            async def copy(source: LineStream, target: LineStream) -> None:
                try:
                    while True:
                        await target.send_line(await source.receive_line(MAX_LINE))
                except LineError:
                    pass
                nursery.cancel_scope.cancel()  # one side has gone: the relay is over

            nursery.start_soon(copy, client, remote)
            nursery.start_soon(copy, remote, client)
    finally:
        with trio.CancelScope(shield=True):
            await remote.aclose()
    raise Relayed()
