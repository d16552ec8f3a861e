"""Registered names (hub.records.identities) on a real PostgreSQL: the same rules as on
SQLite (tests/records/test_identities.py), in one database that several processes share."""

from __future__ import annotations

import pytest

from hub.records.identities import BadName, IdentityStore, NameBook, NameVerdict

pytestmark = pytest.mark.system


def test_names_and_tokens_on_postgresql(pg_url: str) -> None:
    with IdentityStore.open(pg_url) as names:
        token = names.add("Robo", "bot")
        other = names.add("alice", "person")
        with pytest.raises(BadName, match="taken"):
            names.add("ROBO", "person")  # one name whatever its case and kind
        assert names.check("robo", token).verdict is NameVerdict.OK
        assert names.check("Robo", other).verdict is NameVerdict.WRONG
        assert names.check("Robo", None).verdict is NameVerdict.MISSING
        assert names.check("nobody", token).verdict is NameVerdict.UNKNOWN
        assert [n.identity for n in names.names()] == ["person:alice", "bot:Robo"]
        assert not names.remove("robo", "person") and names.remove("ROBO", "bot")
    with IdentityStore.open(pg_url) as again:  # another connection, as another process
        assert again.check("robo", token).verdict is NameVerdict.UNKNOWN
        assert again.check("alice", other).verdict is NameVerdict.OK


async def test_the_name_book_on_postgresql(pg_url: str) -> None:
    book = NameBook.at(pg_url)
    token = await book.add("bot1", "bot")
    assert (await book.check("BOT1", token)).verdict is NameVerdict.OK
    assert [n.name for n in await book.names()] == ["bot1"]
