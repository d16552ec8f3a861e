"""Child-process players: spawn without a shell, talk over pipes, and always reap.

`ChildProcess.spawn` starts ``argv`` (a name without a slash is looked up on PATH, like
execvp) with stdin/stdout pipes and stderr sent to /dev/null (or inherited, for a UCI engine),
in its own process group so a Ctrl-C at the terminal reaches only the referee, which then ends
the game in order.
`stop_all` ends a group of children with one shared deadline: a polite message is the
caller's business, then each child still running at the deadline gets the escalation
signals (SIGKILL for clubs; SIGTERM first, then SIGKILL, for a gentler policy). Every
child is waited for, so none is left as a zombie, even when the caller is cancelled, and
whatever is left of its process group when it exits (a player script's own children, which
could hold our pipes open) is SIGKILLed before it is reaped (`ChildProcess.reap`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence

import attrs
import trio

from hub.core.io.lines import DEFAULT_MAX_LINE, LineStream


class SpawnFailed(Exception):
    """The program could not be started (missing, not executable, ...)."""


@attrs.frozen
class ExitStatus:
    """How a child ended: an exit code, or the number of the signal that killed it."""

    code: int | None = None
    signal: int | None = None

    @classmethod
    def from_returncode(cls, returncode: int) -> ExitStatus:
        if returncode < 0:
            return cls(signal=-returncode)
        return cls(code=returncode)

    @property
    def clean(self) -> bool:
        return self.code == 0


@attrs.define(eq=False)
class ChildProcess:
    """One running child with a `LineStream` over its stdin/stdout pipes.

    Ask it, not ``process``, whether the child has exited (`exited`, `status`): trio's
    ``process.returncode`` and ``poll()`` reap an exited child, after which its process group
    (a player script's own children) can no longer be killed safely.
    """

    argv: tuple[str, ...]
    process: trio.Process | AdoptedProcess
    lines: LineStream
    own_group: bool = True
    _returncode: int | None = attrs.field(default=None, init=False)

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        max_line: int = DEFAULT_MAX_LINE,
        env: dict[str, str] | None = None,
        new_process_group: bool = True,
        stderr: int | None = subprocess.DEVNULL,
    ) -> ChildProcess:
        """Start ``argv``; raises `SpawnFailed` if the program cannot be executed.

        ``stderr`` is discarded by default; None inherits ours (what the UCI spec asks of an
        engine's diagnostics), or pass any fd.
        """
        try:
            process = await trio.lowlevel.open_process(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                process_group=0 if new_process_group else None,
            )
        except (OSError, ValueError) as exc:
            raise SpawnFailed(f"{argv[0] if argv else '(empty)'}: {exc}") from exc
        assert process.stdin is not None
        assert process.stdout is not None
        lines = LineStream(
            process.stdout, process.stdin, max_line=max_line, ignore_send_errors=True
        )
        return cls(tuple(argv), process, lines, new_process_group)

    @classmethod
    def adopt(
        cls, popen: subprocess.Popen[bytes], *, max_line: int = DEFAULT_MAX_LINE
    ) -> ChildProcess:
        """A child started before trio ran (``subprocess.Popen`` with stdin and stdout pipes,
        in its own process group, as `spawn` starts one): from now on it is ours to talk to
        and to reap like any other (``clubhub`` starts its players before importing the
        engine, `hub.games.clubs.launch`). Call it inside ``trio.run``."""
        process = AdoptedProcess(popen)
        lines = LineStream(
            process.stdout, process.stdin, max_line=max_line, ignore_send_errors=True
        )
        args = popen.args
        argv = tuple(map(str, args)) if isinstance(args, list | tuple) else (str(args),)
        return cls(argv, process, lines, True)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def status(self) -> ExitStatus | None:
        """The exit status once the child has been reaped, else None (never reaps it)."""
        if self._returncode is None and not self._unreaped():
            self._returncode = self.process.returncode  # reaped elsewhere: Popen kept it
        return None if self._returncode is None else ExitStatus.from_returncode(self._returncode)

    def _unreaped(self) -> bool:
        """True while the child's pid is still ours (running, or exited and not reaped)."""
        if self._returncode is not None:
            return False
        try:
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped elsewhere (``process.returncode`` reaps)
            return False
        return True

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the child (and its process group, if it leads one).

        Nothing is sent once the child has been reaped: until then its pid, and so its
        group id, cannot have been reused.
        """
        if not self._unreaped():
            return
        try:
            if self.own_group:
                os.killpg(self.process.pid, signum)
            else:
                self.process.send_signal(signum)
        except ProcessLookupError:  # pragma: no cover - the group is already gone
            pass

    @property
    def exited(self) -> bool:
        """Whether the child has exited. Unlike ``process.poll()`` this does not reap it, so
        its pid (and so its process group's id) stays reserved for `reap`."""
        if self._returncode is not None:
            return True
        try:
            found = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped elsewhere (``process.returncode`` reaps)
            return True
        return found is not None

    async def wait_exited(self) -> None:
        """Wait until the child has exited, without reaping it (see `exited`)."""
        if self.exited:
            return
        if not await _wait_exit(self.pid):  # pragma: no cover - no pidfd: wait and reap
            await self.process.wait()

    async def reap(self) -> ExitStatus:
        """Wait for the child to exit, SIGKILL whatever is left of its process group (a
        grandchild that would keep our pipes open and outlive the game), then reap it.

        The group is signalled while the exited leader is still a zombie, so its id cannot
        have been reused.
        """
        await self.wait_exited()
        if self.own_group and self._unreaped():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self._returncode = await self.process.wait()
        status = self.status
        assert status is not None
        return status

    async def close_stdin(self) -> None:
        """Close our end of the child's stdin (it reads EOF once it has read the rest)."""
        if self.process.stdin is not None:
            with trio.CancelScope(shield=True):
                await self.process.stdin.aclose()

    async def close_pipes(self) -> None:
        """Close our ends of the pipes (the child sees EOF on stdin)."""
        with trio.CancelScope(shield=True):
            for stream in (self.process.stdin, self.process.stdout):
                if stream is not None:
                    await stream.aclose()


class AdoptedProcess:
    """What `ChildProcess` uses of a ``trio.Process``, for a ``subprocess.Popen`` started
    before trio ran: trio streams on (duplicates of) its pipes, its pid, its exit status
    once reaped, signals, and an ``await wait()`` that waits on a pidfd, then reaps."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        assert popen.stdin is not None and popen.stdout is not None
        self._popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(os.dup(popen.stdin.fileno()))
        self.stdout = trio.lowlevel.FdStream(os.dup(popen.stdout.fileno()))
        popen.stdin.close()  # the FdStreams own the (duplicated) descriptors now
        popen.stdout.close()

    @property
    def returncode(self) -> int | None:
        """The exit status once `wait` reaped the child (this never reaps it)."""
        return self._popen.returncode

    def send_signal(self, signum: int) -> None:
        self._popen.send_signal(signum)

    async def wait(self) -> int:
        """Wait for the child to exit, then reap it; its exit status."""
        if self._popen.returncode is None:
            await _wait_exit(self.pid)
        return self._popen.wait()


async def _wait_exit(pid: int) -> bool:
    """Wait until our child ``pid`` has exited, without reaping it (its pidfd becomes
    readable); False at once where the kernel has no pidfd."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # pragma: no cover - a kernel before 5.3
        return False
    try:
        await trio.lowlevel.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    return True


@trio.lowlevel.enable_ki_protection
async def stop_all(
    children: Sequence[ChildProcess],
    *,
    grace: float,
    escalation: Sequence[tuple[float, int]] = ((0.0, signal.SIGKILL),),
) -> list[ExitStatus]:
    """Wait for every child to exit, escalating at a shared deadline; return their statuses.

    ``grace`` is the total time (not per child) allowed before escalation begins.
    ``escalation`` lists (extra delay, signal) steps applied to children still running: the
    default SIGKILLs at ``grace``; ``((0, SIGTERM), (1.0, SIGKILL))`` tries SIGTERM first.
    Runs shielded from cancellation: a referee that is being cancelled still reaps. A Ctrl-C
    cannot stop it half-way either: it is KI-protected (a Ctrl-C that comes meanwhile goes
    to the main task's next checkpoint), and each child's reaping task is shielded on its
    own, so a Ctrl-C delivered to a main task waiting here (its nursery is then cancelled)
    is raised only once every child is reaped.
    """
    steps = list(escalation)
    if not steps or steps[-1][1] != signal.SIGKILL:
        steps.append((0.0, signal.SIGKILL))
    with trio.CancelScope(shield=True):
        deadline = trio.current_time() + grace
        async with trio.open_nursery() as nursery:
            for child in children:
                nursery.start_soon(_reap, child, deadline, steps)
    return [child.status or ExitStatus(signal=signal.SIGKILL) for child in children]


@trio.lowlevel.enable_ki_protection
async def _reap(child: ChildProcess, deadline: float, steps: Sequence[tuple[float, int]]) -> None:
    with trio.CancelScope(shield=True):  # bounded: the last step is SIGKILL
        when = deadline
        for delay, signum in steps:
            when += delay
            with trio.move_on_at(when):
                await child.wait_exited()
                break
            child.signal(signum)
        await child.reap()  # after SIGKILL, which cannot be ignored, this returns promptly
        await child.close_pipes()
