"""A clubs player that misbehaves on purpose: ``fake_player.py ACTION... N ID``.

Started by the hub as ``prog N ID`` through a wrapper made by ``helpers.fake_player``, which
puts the actions first. It plays the first legal card of its hand (hand in the order the
hub sent it) unless an action says otherwise. Actions (standard library only, no site):

  start:TEXT      print TEXT (Python escapes allowed, may be empty) at start instead of ``-``
  mark:PATH       create the file PATH once the start text is printed
  exit-now:N      exit with status N at once, before printing anything
  exit-after:K:N  exit with status N as soon as it has read its K-th line (not processed)
  on-end:exit:N   on ``end`` (or end of input) exit with status N (default 0)
  on-end:ignore[:PATH]  ignore SIGTERM from the start; on ``end`` (or end of input) create
                  the file PATH (if given) and sleep 30 s

and then one turn action for each ``newtrick``/``yourturn``, in order (then ``auto``):

  auto | auto*K   play the first legal card (K times)
  play:XX         write ``XX`` and a newline (XX may be anything, escapes allowed)
  raw:TEXT        write TEXT as it is (escapes allowed, no newline added)
  partial:TEXT    write TEXT (escapes allowed, no newline added), then exit with status 0
  exit:N          exit with status N instead of playing
  signal:K        kill itself with signal K instead of playing
  hang[:PATH]     do not answer (create the file PATH first); keep reading until ``end``
  flood           write ``x`` without a newline forever from a thread; keep reading
"""

import contextlib
import os
import signal
import sys
import threading
import time


def unescape(text):
    return text.encode("latin-1").decode("unicode_escape").encode("latin-1")


def out(data):
    with contextlib.suppress(OSError):
        os.write(1, data)


def flood():
    chunk = b"x" * 4096
    while True:
        try:
            os.write(1, chunk)
        except OSError:
            return


def main(argv):
    *actions, _players, _label = argv
    start = b"-"
    on_end = ("exit", 0)
    exit_after = None
    mark = None
    turns = []
    for action in actions:
        kind, _, arg = action.partition(":")
        if kind == "start":
            start = unescape(arg)
        elif kind == "mark":
            mark = arg
        elif kind == "exit-now":
            return int(arg)
        elif kind == "exit-after":
            count, _, status = arg.partition(":")
            exit_after = (int(count), int(status))
        elif kind == "on-end":
            what, _, status = arg.partition(":")
            on_end = ("exit", int(status)) if what == "exit" else ("ignore", status)
        elif kind.startswith("auto*"):
            turns.extend(["auto"] * int(kind[5:]))
        else:
            turns.append(action)
    if on_end[0] == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    out(start)
    if mark:
        with open(mark, "w"):
            pass
    hand = []
    led = None
    hanging = False
    received = 0
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        received += 1
        if exit_after is not None and received >= exit_after[0]:
            return exit_after[1]
        text = line.decode("latin-1").rstrip("\n")
        if not line.endswith(b"\n") or text == "end":
            if on_end[0] == "ignore":
                if on_end[1]:
                    with open(on_end[1], "w"):
                        pass
                time.sleep(30)
            return on_end[1]
        if hanging:
            continue
        word, _, argument = text.partition(" ")
        if word == "newround":
            hand = argument.split(",")
            led = None
        elif word == "played":
            if led is None:
                led = argument[1:]
        elif word == "trickover":
            led = None
        elif word in ("newtrick", "yourturn"):
            action = turns.pop(0) if turns else "auto"
            kind, _, arg = action.partition(":")
            if kind == "auto":
                legal = [card for card in hand if word == "yourturn" and card[1:] == led]
                card = (legal or hand)[0]
                hand.remove(card)
                out(card.encode() + b"\n")
            elif kind == "play":
                out(unescape(arg) + b"\n")
            elif kind == "raw":
                out(unescape(arg))
            elif kind == "partial":
                out(unescape(arg))
                return 0
            elif kind == "exit":
                return int(arg)
            elif kind == "signal":
                os.kill(os.getpid(), int(arg))
                time.sleep(30)
            elif kind == "hang":
                if arg:
                    with open(arg, "w"):
                        pass
                hanging = True
            elif kind == "flood":
                threading.Thread(target=flood, daemon=True).start()
                hanging = True
            else:
                raise SystemExit(f"fake_player: unknown action {action!r}")


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(status)
