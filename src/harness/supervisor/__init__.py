"""Starts, watches, restarts and kills the worker processes (after Erlang/OTP).

The public surface: :class:`ChildSpec`, :func:`open_supervisor` /
:class:`Supervisor`, :class:`WorkerHandle`, and the events and status rows.
"""

from harness.supervisor._events import (
    SupervisorEvent,
    WorkerExited,
    WorkerGaveUp,
    WorkerRestarted,
    WorkerStarted,
    WorkerState,
    WorkerStatus,
)
from harness.supervisor._handle import WorkerHandle
from harness.supervisor._spec import ChildSpec, Restart
from harness.supervisor._supervisor import Supervisor, open_supervisor


def kill_descendants(pid: int, tag: str | None, timeout: float = 1.0) -> list[object]:
    """Kill every descendant of *pid* and every process carrying *tag*; return survivors.

    (psutil loads on the first call, off every start-up path.)
    """
    from harness.supervisor import _kill

    return list(_kill.kill_descendants(pid, tag, timeout))


__all__ = [
    "ChildSpec",
    "Restart",
    "Supervisor",
    "SupervisorEvent",
    "WorkerExited",
    "WorkerGaveUp",
    "WorkerHandle",
    "WorkerRestarted",
    "WorkerStarted",
    "WorkerState",
    "WorkerStatus",
    "kill_descendants",
    "open_supervisor",
]
