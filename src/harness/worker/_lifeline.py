"""A thread that ends the worker when the parent is gone, even if the event loop hangs.

The normal path is the channel's EOF, seen by the trio loop. A handler stuck in
synchronous code never sees it, so a daemon thread waits (``poll``, no timeout)
for the peer to hang up the socket; if the process is still alive a grace period
later, it kills its own descendants and leaves with ``os._exit``.
"""

from __future__ import annotations

import os
import select
import threading
import time

__all__ = ["start_lifeline"]

EXIT_PARENT_GONE = 70


def _kill_descendants() -> None:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is a dependency
        return
    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:
        return
    for child in children:
        try:
            child.kill()
        except psutil.Error:
            pass


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
    _kill_descendants()
    os._exit(EXIT_PARENT_GONE)


def start_lifeline(fd: int, grace: float = 3.0) -> threading.Thread:
    """Watch *fd* (the channel socket) for the parent hanging up."""
    thread = threading.Thread(target=_watch, args=(fd, grace), name="lifeline", daemon=True)
    thread.start()
    return thread
