"""A worker never outlives its parent, nor leaves behind what it started.

The normal path is the channel's EOF, seen by the trio loop; on the way out the
worker kills its own tree (:func:`kill_own_tree`). A handler stuck in synchronous
code never sees the EOF, so a daemon thread waits (``poll``, no timeout) for the
peer to hang up the socket; if the process is still alive a grace period later,
it kills the tree itself and leaves with ``os._exit``.
"""

from __future__ import annotations

import os
import select
import threading
import time

from harness.ipc import WORKER_TAG_ENV

__all__ = ["EXIT_PARENT_GONE", "kill_own_tree", "start_lifeline"]

EXIT_PARENT_GONE = 70


def kill_own_tree() -> None:
    """Kill everything this worker started: its descendants and whatever carries its tag.

    If the parent is gone, nobody else is left to sweep. The killing is the
    supervisor's, loaded only now (psutil with it), off the start-up path.
    """
    from harness.supervisor import kill_descendants

    kill_descendants(os.getpid(), os.environ.get(WORKER_TAG_ENV))


def _watch(fd: int, grace: float) -> None:
    poller = select.poll()
    poller.register(fd, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        if events:
            break
    time.sleep(grace)
    kill_own_tree()
    os._exit(EXIT_PARENT_GONE)


def start_lifeline(fd: int, grace: float = 3.0) -> threading.Thread:
    """Watch *fd* (the channel socket) for the parent hanging up."""
    thread = threading.Thread(target=_watch, args=(fd, grace), name="lifeline", daemon=True)
    thread.start()
    return thread
