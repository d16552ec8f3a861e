"""A program that misbehaves at the process level, wrapping a real one (standard library only).

Usage: ``bad_program.py FAULT... -- ARGV...``: apply each FAULT in order, then exec ``ARGV``
(a real player, engine, or another fake) unless a fault ends the program first. Faults:

  ignore-term          ignore SIGTERM (kept across exec, and by children)
  fork:PIDFILE         fork a grandchild that keeps our stdin/stdout/stderr open, ignores
                       SIGTERM, writes its pid to PIDFILE and sleeps 60 s
  dash-close-stdout    write the clubs ``-``, close stdout, then keep running: read stdin to
                       its end and exit 0 (with ignore-term before it: sleep 60 s instead)
  flood-lines          write ``x`` * 100 lines without end (until the pipe breaks)
"""

import os
import signal
import sys
import time


def grandchild(pidfile):
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open(pidfile + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.rename(pidfile + ".tmp", pidfile)  # appears whole
        time.sleep(60)
        os._exit(0)


def main(argv):
    split = argv.index("--")
    faults, real = argv[:split], argv[split + 1 :]
    ignoring = False
    for fault in faults:
        kind, _, arg = fault.partition(":")
        if kind == "ignore-term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            ignoring = True
        elif kind == "fork":
            grandchild(arg)
        elif kind == "dash-close-stdout":
            os.write(1, b"-")
            os.close(1)
            while sys.stdin.buffer.readline():
                pass
            if ignoring:
                time.sleep(60)
            return 0
        elif kind == "flood-lines":
            line = b"x" * 100 + b"\n"
            try:
                while True:
                    os.write(1, line * 40)
            except OSError:
                return 0
        else:
            raise SystemExit(f"bad_program: unknown fault {fault!r}")
    os.execv(real[0], real)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
