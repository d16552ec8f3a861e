"""One `text/event-stream` response for every stream of the site: the frames a page is sent
until they end or the browser leaves (the lobby's and a game's events, a seat's snapshots)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio
from starlette.responses import Response
from starlette.types import Receive, Send


class FrameStream(Response):
    """Sends the frames ``frames(send)`` writes, stopping them when the browser leaves."""

    media_type = "text/event-stream"

    def __init__(self, headers: dict[str, str]) -> None:
        # not Response.__init__: that declares a Content-Length for its (empty) body
        self.status_code = 200
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **headers})

    async def serve(
        self, receive: Receive, send: Send, frames: Callable[[Send], Awaitable[None]]
    ) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        async with trio.open_nursery() as nursery:

            async def until_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                nursery.cancel_scope.cancel()

            nursery.start_soon(until_disconnect)
            await frames(send)
            nursery.cancel_scope.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})
