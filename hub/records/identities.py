"""Registered names: the bots the operator added (``hub bots add NAME``) and the people who
picked a name on a lobby page, each proven by a token only its holder has.

A name is registered once, in one namespace for bots and people alike (case-insensitive:
``Alice`` and ``alice`` are one name), in the records database's ``names`` table (schema
version 5, hub.records.store), so that a name's games and rating follow it across restarts
and every process on one database knows it. The token (`new_token`: 32 random bytes,
URL-safe) is given once to whoever registered the name; only its SHA-256 is stored, and a
token is checked with `hmac.compare_digest` (`verify`). A registered name's identity in the
records is ``bot:NAME`` or ``person:NAME`` (`identity_for`), as it was registered.

`IdentityStore` is one connection, used as `hub.records.store.RecordStore` is (one thread
at a time); `NameBook` does each look-up in a worker thread with a connection of its own,
for servers (the web view and ``hub serve``), like `hub.web.records.RecordsReader`.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import trio

from hub.records.database import Database, Location, database_errors, location, open_database
from hub.records.store import _transaction, migrate

KINDS = ("bot", "person")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""What a registered name may be: 1 to 32 letters, digits, ``_ . -``, starting with a
letter or digit (no spaces, no colon: a name is part of an identity and of a URL)."""
NAME_RULE = "a name is 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit"
RESERVED = frozenset({"anonymous", "browser", "friend", "guest"})
"""Names no one may register: the names hub gives to players who have none (a bot without
a name, a person in a browser or their friend), whose games were never one player's."""
T = TypeVar("T")


class BadName(ValueError):
    """A name that cannot be registered (taken, or not a name); the message says why."""


class NamesUnavailable(OSError):
    """The names database cannot be read or written now (its error, for the log)."""


class NameVerdict(enum.Enum):
    """What a name and a token are worth (`IdentityStore.check`)."""

    UNKNOWN = "unknown"
    """No such name is registered (a guest's)."""
    MISSING = "missing"
    """The name is registered and no token was given."""
    WRONG = "wrong"
    """The name is registered and the token is not its own."""
    OK = "ok"


@attrs.frozen
class Registered:
    """One registered name (never its token)."""

    name: str
    kind: str
    created_at: float

    @property
    def identity(self) -> str:
        return identity_for(self.kind, self.name)


@attrs.frozen
class Checked:
    """`IdentityStore.check`'s answer: the verdict and, when the name is registered, the
    name as registered (its case) and its kind."""

    verdict: NameVerdict
    registered: Registered | None = None


def identity_for(kind: str, name: str) -> str:
    """``bot:NAME`` or ``person:NAME``: a registered name's identity in the records."""
    return f"{kind}:{name}"


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What is stored of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def verify(token: str, stored_hash: str) -> bool:
    """Whether ``token`` is the one whose hash is ``stored_hash`` (constant time)."""
    return hmac.compare_digest(token_hash(token), stored_hash)


def check_name(name: str) -> str:
    """``name`` if it may be registered; else `BadName` saying the rule."""
    if not NAME.fullmatch(name):
        raise BadName(f"{name[:40]!r} is not a name: {NAME_RULE}")
    if name.lower() in RESERVED:
        raise BadName(f"the name {name!r} is kept for players without a name")
    return name


class IdentityStore:
    """The registered names of the records database at one path (`open` it, `close` it)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @classmethod
    def open(cls, path: str | os.PathLike[str] | Location) -> IdentityStore:
        """The names of the records database at ``path`` (a file or a ``postgresql://``
        URL), its schema migrated."""
        db = open_database(location(path))
        try:
            migrate(db)
        except BaseException:
            db.close()
            raise
        return cls(db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> IdentityStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add(self, name: str, kind: str) -> str:
        """Register ``name`` as a ``kind`` (bot or person); its token, which is not kept.
        `BadName` if it is not a name or is taken (by anyone, of either kind)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}")
        check_name(name)
        token = new_token()
        try:
            with _transaction(self._db):
                if self.find(name) is not None:
                    raise BadName(f"the name {name!r} is taken")
                self._db.execute(
                    "INSERT INTO names (key, name, kind, token_hash, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name.lower(), name, kind, token_hash(token), time.time()),
                )
        except database_errors():
            if self.find(name) is not None:  # another process registered it meanwhile
                raise BadName(f"the name {name!r} is taken") from None
            raise
        return token

    def remove(self, name: str, kind: str | None = None) -> bool:
        """Forget ``name`` (of ``kind``, if given); False if it was not registered. Its
        games stay recorded; the name may be registered again (with a new token)."""
        with _transaction(self._db):
            found = self.find(name)
            if found is None or (kind is not None and found.kind != kind):
                return False
            self._db.execute("DELETE FROM names WHERE key = ?", (name.lower(),))
            return True

    def names(self, kind: str | None = None) -> list[Registered]:
        """The registered names (of ``kind``, if given), in alphabetical order."""
        query = "SELECT name, kind, created_at FROM names"
        params: tuple[Any, ...] = ()
        if kind is not None:
            query += " WHERE kind = ?"
            params = (kind,)
        rows = self._db.execute(query + " ORDER BY key", params)
        return [Registered(name, found, created) for name, found, created in rows]

    def find(self, name: str) -> Registered | None:
        row = self._db.execute(
            "SELECT name, kind, created_at FROM names WHERE key = ?", (name.lower(),)
        ).fetchone()
        return None if row is None else Registered(*row)

    def check(self, name: str, token: str | None) -> Checked:
        """What ``name`` with ``token`` is worth (`NameVerdict`)."""
        row = self._db.execute(
            "SELECT name, kind, created_at, token_hash FROM names WHERE key = ?",
            (name.lower(),),
        ).fetchone()
        if row is None:
            return Checked(NameVerdict.UNKNOWN)
        registered = Registered(row[0], row[1], row[2])
        if not token:
            return Checked(NameVerdict.MISSING, registered)
        if not verify(token, row[3]):
            return Checked(NameVerdict.WRONG, registered)
        return Checked(NameVerdict.OK, registered)


class NameBook:
    """Look-ups of the registered names for a server, each in a worker thread, at most
    ``limit`` at once, so that the event loop never blocks on the disk. The connections
    (opened by ``opener``) are kept between look-ups, at most ``limit``, and closed by
    `close`: opening one (a file, its WAL mode, the schema's migration check) cost ten times
    the look-up itself, at every hello of every bot (bench/hub_load.py). A kept connection
    that fails (a PostgreSQL server that ended it, a restart) is closed and the look-up made
    once more on a new one; each look-up reads what is committed at that moment
    (autocommit), so a name added or removed by another process counts at once."""

    def __init__(self, opener: Callable[[], IdentityStore], *, limit: int = 4) -> None:
        self._opener = opener
        self._limiter = trio.CapacityLimiter(limit)
        self._idle: list[IdentityStore] = []
        self._lock = threading.Lock()
        self._closed = False

    @classmethod
    def at(cls, path: str | os.PathLike[str] | Location) -> NameBook:
        where = location(path)
        return cls(lambda: IdentityStore.open(where))

    async def _ask(self, question: Callable[[IdentityStore], T]) -> T:
        def work() -> T:
            with self._lock:
                store = self._idle.pop() if self._idle else None
            if store is not None:  # a kept connection: the server may have ended it since
                try:
                    answer = question(store)
                except database_errors(OSError):
                    store.close()  # (then once more, on a new connection)
                except BaseException:
                    self._keep(store)  # an answer such as `BadName`: the connection is fine
                    raise
                else:
                    self._keep(store)
                    return answer
            store = self._opener()
            try:
                answer = question(store)
            except database_errors(OSError):
                store.close()
                raise
            except BaseException:
                self._keep(store)
                raise
            self._keep(store)
            return answer

        try:
            return await trio.to_thread.run_sync(work, limiter=self._limiter)
        except database_errors(OSError) as exc:
            raise NamesUnavailable(str(exc)) from exc

    def _keep(self, store: IdentityStore) -> None:
        """Keep ``store`` for the next look-up (closed if the book is)."""
        with self._lock:
            keep = not self._closed
            if keep:
                self._idle.append(store)
        if not keep:
            store.close()

    def close(self) -> None:
        """Close the kept connections; a look-up still running closes its own when done.
        Look-ups after this still work (each with a connection it closes)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for store in idle:
            store.close()

    async def check(self, name: str, token: str | None) -> Checked:
        return await self._ask(lambda store: store.check(name, token))

    async def add(self, name: str, kind: str) -> str:
        return await self._ask(lambda store: store.add(name, kind))

    async def names(self, kind: str | None = None) -> list[Registered]:
        return await self._ask(lambda store: store.names(kind))
