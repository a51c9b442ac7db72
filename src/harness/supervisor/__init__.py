"""Starts, watches, restarts and kills the worker processes (after Erlang/OTP).

The public surface: :class:`ChildSpec`, :func:`open_supervisor` /
:class:`Supervisor`, :class:`WorkerHandle`, the events and status rows, the
one way harness kills a process tree (:func:`kill_tree`, :func:`kill_processes`
and the rungs they are made of), :class:`SessionForker`, which forks whole
sessions from a fork server (for batch runs), :class:`SharedForkServer`, one
worker fork server for every supervisor a process opens while it offers it, and
:func:`fork_server_here`, which forks the calling process into a worker fork server.

Only the specs and events load with the package: the supervisor (and trio) load
on first use of its names, and the tree killing (and psutil) on first use of
theirs, so a worker that kills its own tree as it exits pays for neither at start.
"""

from typing import TYPE_CHECKING

from harness._lazy import lazy_names as _lazy_names
from harness.supervisor._events import (
    SupervisorEvent,
    WorkerExited,
    WorkerGaveUp,
    WorkerRestarted,
    WorkerStarted,
    WorkerState,
    WorkerStatus,
)
from harness.supervisor._spec import ChildSpec, Restart

__all__ = [
    "ChildSpec",
    "ForkedSession",
    "Restart",
    "SessionForker",
    "SharedForkServer",
    "Supervisor",
    "SupervisorEvent",
    "WorkerExited",
    "WorkerGaveUp",
    "WorkerHandle",
    "WorkerRestarted",
    "WorkerStarted",
    "WorkerState",
    "WorkerStatus",
    "find_tagged",
    "fork_server_here",
    "kill_descendants",
    "kill_processes",
    "kill_tree",
    "open_supervisor",
    "signal_all",
    "signal_group",
    "snapshot_tree",
    "survivors",
    "wait_gone",
]

if TYPE_CHECKING:
    from harness.supervisor._forkshare import SharedForkServer
    from harness.supervisor._handle import WorkerHandle
    from harness.supervisor._kill import (
        find_tagged,
        kill_descendants,
        kill_processes,
        kill_tree,
        signal_all,
        signal_group,
        snapshot_tree,
        survivors,
        wait_gone,
    )
    from harness.supervisor._sessions import ForkedSession, SessionForker
    from harness.supervisor._supervisor import Supervisor, open_supervisor
    from harness.supervisor._zygote import fork_server_here

_LAZY = {
    "WorkerHandle": "harness.supervisor._handle",
    "ForkedSession": "harness.supervisor._sessions",
    "SessionForker": "harness.supervisor._sessions",
    "SharedForkServer": "harness.supervisor._forkshare",
    "Supervisor": "harness.supervisor._supervisor",
    "open_supervisor": "harness.supervisor._supervisor",
    "fork_server_here": "harness.supervisor._zygote",
    **dict.fromkeys(
        (
            "find_tagged",
            "kill_descendants",
            "kill_processes",
            "kill_tree",
            "signal_all",
            "signal_group",
            "snapshot_tree",
            "survivors",
            "wait_gone",
        ),
        "harness.supervisor._kill",
    ),
}


__getattr__ = _lazy_names(__name__, _LAZY)
