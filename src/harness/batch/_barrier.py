"""Holding Ray's first tasks until each has a worker of its own: Ray's worker pool up.

Ray starts the workers of a job's runtime environment only as tasks come, a few at a
time, while the job runs; on a small machine that is most of a short job. A local
instance's driver sends :func:`hold` as ``count`` tasks first: each waits until all
``count`` run (so no worker can take two), and the pool is up before the job's clock
starts. The module imports nothing of harness and is shipped to the workers by value,
so that what Ray's workers do before the job is Ray's own start-up, never harness's.
"""

from __future__ import annotations

import os
import time

__all__ = ["hold"]


def hold(folder: str, count: int, timeout: float) -> int:
    """Note this worker in *folder* and wait (at most *timeout* s) until *count* have;
    this worker's pid."""
    pid = os.getpid()
    with open(os.path.join(folder, str(pid)), "w"):
        pass
    end = time.monotonic() + timeout
    # A shared folder is the one thing every worker of a local instance reaches
    # without harness or another Ray worker; its count is checked every few ms.
    while len(os.listdir(folder)) < count and time.monotonic() < end:
        time.sleep(0.005)
    return pid
