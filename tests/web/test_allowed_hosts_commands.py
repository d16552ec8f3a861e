"""Every command with ``--web`` offers ``--allowed-hosts`` (one option, `hub.web.options.
add_web_option`) and its web view answers only to those names: started as a user would,
a request naming the listening address is refused once other names are allowed, and one
naming an allowed host is answered. (Without the option each answers to its address and
the loopback names: every command serves through `hub.web.server.serve_web`, whose default
tests/web/test_security.py checks.)"""

from __future__ import annotations

import subprocess

import httpx
import pytest

from hub.core.commands.usage import UsageError
from hub.declared.play import parser_for
from hub.games.connect4 import ConnectFour
from hub.games.kalah.options import parse_serve
from hub.games.uqchess.server import parse_args
from tests.conftest import program
from tests.web.test_saved_games import TIMEOUT, web_url

COMMANDS = {
    "hub serve kalah": ["serve", "kalah"],
    "hub serve connect4": ["serve", "connect4", "--tc", "none"],
    "hub serve uqchess": ["serve", "uqchess"],
    "hub play connect4": ["play", "connect4", "web", "ai:1", "--seed", "1"],
    "hub match": ["match", "connect4", "ai:1", "ai:1", "--games", "2", "--tc", "none"],
}


@pytest.mark.e2e
@pytest.mark.parametrize("command", list(COMMANDS))
async def test_every_command_with_a_web_view_answers_only_its_allowed_hosts(
    command: str,
) -> None:
    argv = [*COMMANDS[command], "--web", "0", "--no-record", "--allowed-hosts", "games.example"]
    process = subprocess.Popen(
        [program("hub"), *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        site = "/".join(web_url(process).split("/", 3)[:3])
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            refused = await client.get(f"{site}/api/games")
            assert refused.status_code == 400, refused.text
            assert "does not answer to that host name" in refused.text
            port = site.rsplit(":", 1)[1]
            allowed = await client.get(
                f"{site}/api/games", headers={"Host": f"games.example:{port}"}
            )
            assert allowed.status_code == 200
    finally:
        process.send_signal(2)
        assert process.wait(timeout=TIMEOUT) == 130
        assert process.stderr is not None
        process.stderr.close()


def test_the_option_is_parsed_once_for_every_command() -> None:
    names = "games.example,10.0.0.7"
    hosts = parser_for(ConnectFour).parse_args(["--allowed-hosts", names]).allowed_hosts
    assert hosts is not None and hosts.names == {"games.example", "10.0.0.7"}
    assert parse_serve(["--allowed-hosts", names]).allowed_hosts == hosts
    served = parse_args(["--allowed-hosts", names], hub_options=True)
    assert served is not None and served.allowed_hosts == hosts
    assert parse_args(["--allowed-hosts", names]) is None  # uqchessserver: the spec's usage
    assert parse_args(["--allowed-hosts", ","], hub_options=True) is None
    with pytest.raises(UsageError, match="names no host"):
        parser_for(ConnectFour).parse_args(["--allowed-hosts", ","])


def test_hub_play_clubs_takes_the_option_too(capfd: pytest.CaptureFixture[str]) -> None:
    from hub.games.clubs.hub import play_main

    assert play_main(["--allowed-hosts", ",", "decks", "10", "a", "b"]) == 1  # usage
    assert "hub play clubs: --allowed-hosts: ',' names no host" in capfd.readouterr().err
