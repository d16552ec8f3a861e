"""A JSON bot that logs every line it receives (``> LINE``) and sends (``< LINE``) to a file,
playing random legal moves: ``spy_bot.py LOG SEED`` over pipes, ``spy_bot.py LOG SEED
HOST:PORT`` over TCP (one game). Standard library only."""

from __future__ import annotations

import json
import random
import socket
import sys
from typing import TextIO


def play(reader: TextIO, writer: TextIO, log: TextIO, rng: random.Random) -> None:
    def send(value: dict[str, str]) -> None:
        line = json.dumps(value)
        log.write(f"< {line}\n")
        writer.write(line + "\n")
        writer.flush()

    for line in reader:
        log.write(f"> {line.rstrip(chr(10))}\n")
        message = json.loads(line)
        if message["type"] == "welcome":
            send({"type": "hello", "name": "spy"})
        elif message["type"] == "turn":
            send({"move": rng.choice(message["legal"])})
        elif message["type"] == "end":
            return


def main() -> None:
    log_path, seed, *address = sys.argv[1:]
    rng = random.Random(int(seed))
    with open(log_path, "w", encoding="utf-8") as log:
        if not address:
            play(sys.stdin, sys.stdout, log, rng)
            return
        host, _, port = address[0].rpartition(":")
        with socket.create_connection((host, int(port))) as sock:
            stream = sock.makefile("rw", encoding="utf-8", newline="\n")
            play(stream, stream, log, rng)


if __name__ == "__main__":
    main()
