"""``hub serve GAME`` welcomes a connection once (docs/bots.md): after ``end`` a bot's hello
starts its next game on the same connection (found by issue 17's chess work: a second welcome
was answered by a second hello, read as the bot's first move)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess

from tests.conftest import program

TIMEOUT = 120


def test_one_connection_plays_two_games_with_one_welcome() -> None:
    """docs/bots.md: the welcome comes once a connection; after ``end`` the bot's hello
    starts its next game (a second welcome would be answered by a second hello, read as the
    bot's first move)."""
    server = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--no-record"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().strip())
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            stream = sock.makefile("rw", encoding="utf-8", newline="\n")

            def send(value: dict[str, object]) -> None:
                stream.write(json.dumps(value) + "\n")
                stream.flush()

            kinds = []
            hello = {"type": "hello", "name": "strict", "opponent": "ai:2"}
            for _ in range(2):
                send(hello)
                while True:
                    message = json.loads(stream.readline())
                    kinds.append(message["type"])
                    if message["type"] == "turn":
                        send({"move": sorted(message["legal"])[0]})
                    elif message["type"] == "end":
                        assert message["termination"] == "normal", message
                        break
            assert kinds[0] == "welcome" and kinds.count("welcome") == 1
            assert kinds.count("start") == 2
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130


def test_a_bad_hello_is_answered_with_an_error_and_the_connection_closes() -> None:
    """docs/bots.md: a bad hello (not JSON, or asking for an opponent that is not offered)
    gets ``{"type":"error",...}`` and the server closes; a second hello is never read."""
    server = subprocess.Popen(
        [program("hub"), "serve", "connect4", "--no-record"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stderr is not None
        port = int(server.stderr.readline().strip())
        hellos = {
            "not json": "not JSON",
            '{"type":"hello","name":"x","opponent":"nobody"}': "ask for any, random or ai:N",
            '{"type":"hello","name":"x","opponent":"ai:99"}': "the AI levels of connect4",
        }
        for hello, why in hellos.items():
            with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
                stream = sock.makefile("rw", encoding="utf-8", newline="\n")
                assert json.loads(stream.readline())["type"] == "welcome"
                stream.write(hello + "\n" + '{"type":"hello","name":"again"}\n')
                stream.flush()
                error = json.loads(stream.readline())
                assert error["type"] == "error" and why in error["error"], error
                assert stream.readline() == ""  # closed: the second hello was not taken
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
