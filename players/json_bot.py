#!/usr/bin/env python3
"""An example bot for hub's JSON bot protocol (docs/bots.md), for any declared game.

Over pipes (``hub play connect4 ./players/json_bot.py ai:3``) it talks on stdin/stdout; with
``--connect HOST:PORT`` it plays against ``hub serve GAME`` over TCP (``--opponent ai:3`` asks
for a built-in player, the default ``any`` for the next client; ``--games N`` plays N games).
It plays a random legal move (``--seed`` fixes the choices). Standard library only: copy it
and replace `choose` with your own play.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
from typing import Any, TextIO


def choose(message: dict[str, Any], rng: random.Random) -> str:
    """The move for a ``turn`` message: its ``view`` is what this seat may see, ``legal`` the
    legal moves in the game's notation, ``clock.left_ms`` the time left (absent: no limit)."""
    return str(rng.choice(message["legal"]))


def play(reader: TextIO, writer: TextIO, options: argparse.Namespace) -> int:
    rng = random.Random(options.seed)
    games = 0

    def send(value: dict[str, Any]) -> None:
        writer.write(json.dumps(value) + "\n")
        writer.flush()

    hello: dict[str, Any] = {"type": "hello", "name": options.name, "opponent": options.opponent}
    if options.game:
        hello["game"] = options.game  # `hub serve` alone serves several games: which one
    if options.token:
        hello["token"] = options.token  # its registered name's (`hub bots add`)
    if options.resume:
        hello["resume"] = options.resume  # its seat in a game the server adjourned
    if options.tc:
        hello["tc"] = options.tc  # a time control the server offers (its --tc-choices)
    if options.settings:
        hello["settings"] = json.loads(options.settings)  # options it offers (its --offer)
    for line in reader:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "welcome":
            send(hello)
        elif kind == "turn":
            send({"move": choose(message, rng)})
        elif kind == "end":
            games += 1
            hello.pop("resume", None)  # (that game is over: later ones are new)
            if options.connect and games < options.games:
                send(hello)  # another game on the same connection
            elif options.connect:
                return 0
        elif kind == "error":
            print(f"json_bot: the server says: {message.get('error')}", file=sys.stderr)
            return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connect", metavar="HOST:PORT", help="play over TCP, not pipes")
    parser.add_argument("--name", default="json_bot.py", help="the name it gives")
    parser.add_argument("--opponent", default="any", help="over TCP: any, random or ai:N")
    parser.add_argument(
        "--game", default="", help="over TCP to `hub serve` (every game): the game to play"
    )
    parser.add_argument(
        "--token", default="", help="over TCP: the token of its registered name (hub bots add)"
    )
    parser.add_argument(
        "--resume",
        default="",
        metavar="GAME_ID",
        help="over TCP to `hub serve`: play on the adjourned game GAME_ID (its first game)",
    )
    parser.add_argument("--tc", default="", help="over TCP: the time control to ask for")
    parser.add_argument(
        "--settings",
        default="",
        metavar="JSON",
        help="over TCP: the game's options to ask for, e.g. '{\"rows\": 5}'",
    )
    parser.add_argument("--games", type=int, default=1, help="over TCP: games to play")
    parser.add_argument("--seed", type=int, default=None, help="seed of its random choices")
    options = parser.parse_args()
    if not options.connect:
        return play(sys.stdin, sys.stdout, options)
    host, _, port = options.connect.rpartition(":")
    with socket.create_connection((host or "127.0.0.1", int(port))) as sock:
        stream = sock.makefile("rw", encoding="utf-8", newline="\n")
        return play(stream, stream, options)


if __name__ == "__main__":
    sys.exit(main())
