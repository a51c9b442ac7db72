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
    "open_supervisor",
]
