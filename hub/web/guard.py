"""The door of the web view: every request passes `Guard` before any page or stream.

* a request whose ``Host`` is not an allowed name is refused (400), and so is one whose
  ``Origin`` is not (403): a DNS-rebinding page, whose name resolves to this machine, sends
  its own name in both (`hub.web.limits.AllowedHosts`);
* an event stream (any ``GET .../events``) is held against its client's share of streams
  while it is open: over the share 429, the whole server full 503 (`ClientLimits.stream`).

Refusals are JSON ``{"error": WORDS}`` with the site's security headers (a page's script
shows the words); 429 and 503 say in ``Retry-After`` when to try again. `read_json` is the
body check of a POST that starts something (``/new``): JSON from this site, bounded.
"""

from __future__ import annotations

import json
import math
from contextlib import ExitStack
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from hub.web.limits import AllowedHosts, ClientLimits, ServerFull, TooMany

MAX_BODY = 1024
"""Bytes a POST body may have."""
UNKNOWN_HOST = "this server does not answer to that host name"
FOREIGN = "not from this site"


def client_of(scope: Scope) -> str:
    """The client's address (every request without one is counted as the same client)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def refusal(
    words: str, status: int, headers: dict[str, str], retry_after: float | None = None
) -> Response:
    extra = {"Cache-Control": "no-cache", **headers}
    if retry_after is not None:
        extra["Retry-After"] = str(max(1, math.ceil(retry_after)))
    return JSONResponse({"error": words}, status, headers=extra)


class Guard:
    """ASGI middleware: the host, origin and stream checks above, then the site."""

    def __init__(
        self, app: ASGIApp, hosts: AllowedHosts, limits: ClientLimits, headers: dict[str, str]
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.limits = limits
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refused: Response | None = None
        origin = headers.get("origin")
        if not self.hosts.host_ok(headers.get("host")):
            refused = refusal(UNKNOWN_HOST, 400, self.headers)
        elif origin is not None and not self.hosts.origin_ok(origin):
            refused = refusal(FOREIGN, 403, self.headers)
        if refused is not None:
            await refused(scope, receive, send)
            return
        with ExitStack() as held:
            if scope["method"] == "GET" and scope["path"].endswith("/events"):
                try:
                    held.enter_context(self.limits.stream(client_of(scope)))
                except TooMany as exc:
                    refused = refusal(str(exc), 429, self.headers, exc.retry_after)
                except ServerFull as exc:
                    refused = refusal(str(exc), 503, self.headers, 30)
            if refused is not None:
                await refused(scope, receive, send)
                return
            await self.app(scope, receive, send)


async def read_json(request: Request, headers: dict[str, str]) -> dict[str, Any] | Response:
    """A POST's JSON object, or the refusal to send: not from this site (the browser's
    ``Sec-Fetch-Site``: the Origin was checked by `Guard`) 403, not JSON 415 or 400, more
    than `MAX_BODY` bytes 413."""
    site = request.headers.get("sec-fetch-site")
    if site not in (None, "same-origin", "none"):
        return refusal(FOREIGN, 403, headers)
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return refusal("send JSON", 415, headers)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return refusal(f"at most {MAX_BODY} bytes", 413, headers)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        return refusal("not JSON", 400, headers)
    if not isinstance(data, dict):
        return refusal("send a JSON object", 400, headers)
    return data
