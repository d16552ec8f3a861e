"""``hub match --cluster ray[://ADDRESS]``: each game a Ray task; the only module importing ray.

Ray (``pip install 'hub[cluster]'``) is imported when `RayBackend.start` runs, never at import
time. Without an address a private local Ray is started (``ray.init(address="local")`` with
the slots as its CPUs and no dashboard); with ``ray://HOST:PORT`` the match connects to a
running cluster through the Ray client. Every node must have hub (and the players a game
needs) installed; see docs/matches.md.

Each task (`play_task`) loads the kit by its reference (a game's name or ``module:name``),
runs ``trio.run`` of one whole game and returns ``{"index", "record"}`` (the record as JSON)
or ``{"index", "error"}``, exactly as a local worker process answers. A slot submits one task
at a time and polls it from a thread, so the match stays responsive and results stream back
as they finish; the process that runs ``hub match`` records them. Cancelling a slot cancels
its task (Ray interrupts it: trio cancels the game and the kit reaps its players), and
`RayBackend.stop` waits briefly for cancelled tasks before ``ray.shutdown()``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import trio

from hub.core.model.events import GameRecord, record_from_json
from hub.core.play.kit import GameSpec, TournamentKit
from hub.tournament.runner import GameFailed, Slot
from hub.tournament.worker import (
    describe_error,
    load_kit,
    play_to_json,
    spec_from_json,
    spec_to_json,
)

POLL_SECONDS = 0.2
"""How often a slot looks whether its task is done (also how soon a cancel is noticed)."""
CANCEL_WAIT = 10.0
"""Seconds `RayBackend.stop` waits for cancelled games to wind down."""
LOCAL_CPUS = 4
"""At most this many CPUs for a private local Ray when no ``--concurrency`` is given."""


_kits: dict[str, TournamentKit] = {}
"""The kits a Ray worker process has loaded (it runs many tasks; discovery is not free)."""


def play_task(kit_ref: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The body of a Ray task: one whole game in its own trio run."""
    kit = _kits.get(kit_ref)
    if kit is None:
        kit = _kits[kit_ref] = load_kit(kit_ref)
    return trio.run(play_to_json, kit, spec_from_json(spec))


def task_error(exc: BaseException) -> str:
    """One line for a failed task: its cause if Ray kept it (a task's traceback is long)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        return describe_error(cause)
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[-1]}" if lines else type(exc).__name__


def parse_cluster(text: str) -> str | None:
    """``ray`` -> None (a local Ray), ``ray://HOST:PORT`` -> that address; `ValueError`."""
    if text == "ray":
        return None
    if text.startswith("ray://") and len(text) > len("ray://"):
        return text
    raise ValueError(f"--cluster takes 'ray' or 'ray://HOST:PORT', not {text!r}")


@attrs.define(eq=False)
class _RaySlot:
    backend: RayBackend

    async def play(self, spec: GameSpec) -> GameRecord:
        ray = self.backend.ray
        ref = self.backend.remote.remote(self.backend.kit_ref, spec_to_json(spec))
        done = False
        try:
            while not done:
                ready, _ = await trio.to_thread.run_sync(
                    lambda: ray.wait([ref], timeout=POLL_SECONDS)
                )
                done = bool(ready)
            try:
                answer = await trio.to_thread.run_sync(ray.get, ref)
            except ray.exceptions.RayError as exc:
                raise GameFailed(f"the Ray task failed: {task_error(exc)}") from exc
        finally:
            if not done:
                ray.cancel(ref)
                self.backend.cancelled.append(ref)
        if "error" in answer:
            raise GameFailed(str(answer["error"]))
        return record_from_json(answer["record"])


@attrs.define(eq=False)
class RayBackend:
    """Games as Ray tasks, ``slots`` at a time (default: the cluster's CPUs)."""

    kit_ref: str
    address: str | None = None
    slots: int = 0
    name: str = "ray"
    ray: Any = None
    remote: Any = None
    cancelled: list[Any] = attrs.Factory(list)
    started_local: bool = False

    def start(self) -> None:
        """Import ray and start or join the cluster (blocking; call it outside trio)."""
        import ray

        self.ray = ray
        quiet: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
        if self.address is None:
            cpus = self.slots or min(os.cpu_count() or 1, LOCAL_CPUS)
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, **quiet)
            self.started_local = True
            self.name = f"ray (local, {cpus} CPUs)"
        else:
            ray.init(address=self.address, **quiet)
            self.name = f"ray ({self.address})"
        if not self.slots:
            resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
            self.slots = max(1, int(resources.get("CPU", 1)))
        self.remote = ray.remote(num_cpus=1, max_retries=0)(play_task)

    def stop(self) -> None:
        """Let cancelled games wind down, then leave (or stop the local) Ray."""
        if self.ray is None:
            return
        if self.cancelled:
            self.ray.wait(self.cancelled, num_returns=len(self.cancelled), timeout=CANCEL_WAIT)
            self.cancelled.clear()
        self.ray.shutdown()

    @asynccontextmanager
    async def open_slot(self, index: int) -> AsyncIterator[Slot]:
        yield _RaySlot(self)
