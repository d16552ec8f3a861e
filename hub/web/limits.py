"""Who may use the web view, and how much of it: the allowed host names and the per-client
limits. Imports nothing heavy (commands read ``--allowed-hosts`` at start-up, and a desk of
browser seats says `ServerFull`); `hub.web.guard` applies them to every request.

*Allowed hosts.* A page served from another name (``Host: evil.example``, a DNS-rebinding
page whose name resolves to this machine) is refused, and so is a request whose ``Origin``
is not one of the allowed names: comparing ``Origin`` to the request's own ``Host`` would
let such a page pass. The default is the listening address and this machine's loopback
names (`default_hosts`); ``*`` allows any (behind a proxy that checks names itself).

*Per-client limits.* A client is its address. New games come from a token bucket
(`NEW_GAMES_BURST` at once, then one every `NEW_GAME_EVERY` seconds); event streams are
counted while open (`STREAMS_PER_CLIENT` per client, `MAX_STREAMS` in all). A client over
its share gets `TooMany` (429, with the seconds to wait); a server with no room left at all
`ServerFull` (503). Everything is bounded: at most `CLIENTS_TRACKED` buckets are kept, the
full ones (clients that have waited long enough) forgotten first.
"""

from __future__ import annotations

import socket
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import attrs

NEW_GAMES_BURST = 10
"""New games one client may start at once."""
NEW_GAME_EVERY = 6.0
"""Seconds after which a client may start one more (10 a minute once the burst is used)."""
STREAMS_PER_CLIENT = 32
"""Event streams (pages following a game, a seat or the lobby) one client may hold open."""
MAX_STREAMS = 2000
"""Event streams open in all (the game index has its own cap on spectators' streams)."""
CLIENTS_TRACKED = 10_000
"""Clients whose new-game budget is remembered at once."""
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})


class ServerFull(Exception):
    """The whole server has no room for this (503): every client is refused alike."""


class TooMany(Exception):
    """This client asked for more than its share (429); ``retry_after`` seconds to wait."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def host_name(text: str) -> str | None:
    """The name in a ``Host`` header (``name``, ``name:port``, ``[v6]:port``), lower case;
    None if it is not one."""
    text = text.strip().lower()
    if text.startswith("["):
        end = text.find("]")
        rest = text[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        name = text[1:end]
    else:
        name, _, port = text.partition(":")
        if port and not port.isdigit():
            return None
    return name.rstrip(".") or None


@attrs.frozen
class AllowedHosts:
    """The names this web view answers to (``any``: every name)."""

    names: frozenset[str] = LOCAL_NAMES
    any: bool = False

    @classmethod
    def parse(cls, text: str) -> AllowedHosts:
        """``--allowed-hosts``: names separated by commas, or ``*``; `ValueError` if empty."""
        names = [part.strip().lower().strip("[]").rstrip(".") for part in text.split(",")]
        names = [name for name in names if name]
        if not names:
            raise ValueError(f"{text!r} names no host")
        return cls(frozenset(names) - {"*"}, "*" in names)

    def host_ok(self, header: str | None) -> bool:
        """Whether a request with this ``Host`` header is answered (one is required)."""
        if header is None:
            return False
        name = host_name(header)
        return name is not None and (self.any or name in self.names)

    def origin_ok(self, origin: str) -> bool:
        """Whether a request that comes from the page of ``origin`` is answered."""
        try:
            parts = urlsplit(origin.strip())
            name = parts.hostname
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not name:
            return False
        return self.any or name.rstrip(".") in self.names


def default_hosts(listening: str, extra: Iterable[str] = ()) -> AllowedHosts:
    """The listening address and the loopback names; on every interface (``0.0.0.0``,
    ``::``) this machine's name too (what people on the network type)."""
    names = set(LOCAL_NAMES) | {name.lower() for name in extra}
    if listening.lower() in WILDCARDS:
        for name in (socket.gethostname(), socket.getfqdn()):
            if name:
                names.add(name.lower())
    else:
        names.add(listening.lower().strip("[]"))
    return AllowedHosts(frozenset(names))


@attrs.define
class ClientLimits:
    """Each client's share of the server (see the module's docstring); ``clock`` in
    seconds (tests give a fake one)."""

    new_burst: int = NEW_GAMES_BURST
    new_every: float = NEW_GAME_EVERY
    streams_per_client: int = STREAMS_PER_CLIENT
    max_streams: int = MAX_STREAMS
    clock: Callable[[], float] = time.monotonic
    tracked: int = CLIENTS_TRACKED
    _buckets: OrderedDict[str, tuple[float, float]] = attrs.Factory(OrderedDict)
    """Per client: its tokens and when they were counted (least recently used first)."""
    _streams: dict[str, int] = attrs.Factory(dict)
    _open: int = 0

    def take_new_game(self, client: str) -> None:
        """Count one new game of ``client``; `TooMany` if it has none left."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (float(self.new_burst), now))
        tokens = min(float(self.new_burst), tokens + (now - then) / self.new_every)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            wait = (1 - tokens) * self.new_every
            raise TooMany(
                f"too many new games from your address: wait {wait:.0f} s and try again "
                f"(at most {self.new_burst} at once, then one every {self.new_every:g} s)",
                wait,
            )
        self._buckets[client] = (tokens - 1, now)
        self._forget()

    def _forget(self) -> None:
        while len(self._buckets) > self.tracked:
            self._buckets.popitem(last=False)  # the least recently seen (often full again)

    @contextmanager
    def stream(self, client: str) -> Iterator[None]:
        """Hold one event stream of ``client`` inside; `TooMany` or `ServerFull` if it
        may not open one."""
        if self._open >= self.max_streams:
            raise ServerFull(f"the server is following {self.max_streams} pages: try later")
        held = self._streams.get(client, 0)
        if held >= self.streams_per_client:
            raise TooMany(
                f"too many open pages from your address (at most {self.streams_per_client})",
                5.0,
            )
        self._streams[client] = held + 1
        self._open += 1
        try:
            yield
        finally:
            self._open -= 1
            left = self._streams[client] - 1
            if left:
                self._streams[client] = left
            else:
                del self._streams[client]

    @property
    def streams(self) -> int:
        """Event streams open now."""
        return self._open
