"""What the supervisor tells its subscribers, and what ``status()`` returns."""

from __future__ import annotations

from typing import Literal

import attrs

__all__ = [
    "SupervisorEvent",
    "WorkerExited",
    "WorkerGaveUp",
    "WorkerRestarted",
    "WorkerStarted",
    "WorkerState",
    "WorkerStatus",
]

WorkerState = Literal["starting", "running", "restarting", "stopping", "stopped", "gave_up"]


@attrs.frozen
class WorkerStarted:
    """A worker process is up and answering (first start)."""

    name: str
    pid: int


@attrs.frozen
class WorkerExited:
    """A worker process ended.

    ``reason`` is ``exited`` (it ended on its own), or why the supervisor killed it:
    ``heartbeat``, ``deadline``, ``memory``, ``protocol``, ``stopped``, ``killed``, or
    ``cancelled`` (the scope running the worker was cancelled).
    ``description`` is one human sentence (``"killed by signal 9 (SIGKILL)"``).
    """

    name: str
    pid: int
    exit_code: int | None
    reason: str
    description: str
    stderr_tail: str = ""


@attrs.frozen
class WorkerRestarted:
    """A replacement process is up and answering."""

    name: str
    pid: int
    restarts: int


@attrs.frozen
class WorkerGaveUp:
    """Too many restarts within the spec's period: the worker stays down."""

    name: str
    restarts: int
    period: float


SupervisorEvent = WorkerStarted | WorkerExited | WorkerRestarted | WorkerGaveUp


@attrs.frozen
class WorkerStatus:
    """One row of the supervisor tree (``/status``)."""

    name: str
    pid: int | None
    state: WorkerState
    uptime: float
    restarts: int
    rss: int
