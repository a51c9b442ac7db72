"""The rungs of the kill ladder, each a small function with its own test.

Killing a worker means its whole tree: the process group first (everything it
started without ``setsid``), then any descendant that left the group. Those are
found two ways: a snapshot of the tree taken while the worker was alive, and a
scan of ``/proc`` for the tag every process the worker started inherits in its
environment (this finds them even after the worker died and they were reparented).
Everything here is synchronous and bounded; the supervisor runs it in a thread.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable

import psutil

__all__ = [
    "find_tagged",
    "kill_descendants",
    "kill_processes",
    "signal_group",
    "snapshot_tree",
    "survivors",
]


def signal_group(pgid: int, sig: int) -> bool:
    """Send *sig* to process group *pgid*; ``False`` when the group is already gone."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def snapshot_tree(pid: int) -> list[psutil.Process]:
    """Every live descendant of *pid* (empty when *pid* is gone)."""
    try:
        children: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
        return children
    except psutil.Error:
        return []


def find_tagged(tag: str, *, exclude: Iterable[int] = ()) -> list[psutil.Process]:
    """Processes whose environment carries ``HARNESS_WORKER_TAG=<tag>``."""
    needle = f"HARNESS_WORKER_TAG={tag}\0".encode()
    skip = {os.getpid(), *exclude}
    found: list[psutil.Process] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid in skip:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if needle in environ or environ.endswith(needle[:-1]):
            try:
                found.append(psutil.Process(pid))
            except psutil.Error:
                continue
    return found


def kill_processes(procs: Iterable[psutil.Process], timeout: float = 1.0) -> list[psutil.Process]:
    """SIGKILL each of *procs* (and its own process group), wait up to *timeout*.

    Returns the ones still alive afterwards. ``psutil.Process`` remembers each
    process's start time, so a pid reused since the snapshot is never killed.
    """
    targets = []
    for proc in procs:
        try:
            if not proc.is_running():
                continue
            try:
                pgid = os.getpgid(proc.pid)
            except OSError:
                pgid = None
            if pgid is not None and pgid != os.getpgid(0):
                signal_group(pgid, signal.SIGKILL)
            proc.kill()
            targets.append(proc)
        except psutil.Error:
            continue
    if not targets:
        return []
    _, alive = psutil.wait_procs(targets, timeout=timeout)
    return [proc for proc in alive if not _is_zombie(proc)]


def _is_zombie(proc: psutil.Process) -> bool:
    # A killed process that is not our child stays a zombie until its new parent
    # reaps it (and some container inits never do); it runs nothing any more.
    try:
        return bool(proc.status() == psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return True


def survivors(procs: Iterable[psutil.Process], tag: str | None = None) -> list[psutil.Process]:
    """Which of *procs* (and of the processes carrying *tag*) are still running."""
    candidates = [*procs, *(find_tagged(tag) if tag is not None else [])]
    alive = {proc.pid: proc for proc in candidates if proc.is_running() and not _is_zombie(proc)}
    return list(alive.values())


def kill_descendants(pid: int, tag: str | None, timeout: float = 1.0) -> list[psutil.Process]:
    """Kill every descendant of *pid*, and every process carrying *tag* (but *pid*).

    A worker calls this on itself as it exits, so that what it started never
    outlives it, even when the parent that would have swept it is gone.
    Returns what is still alive afterwards.
    """
    targets = snapshot_tree(pid)
    if tag:
        targets += find_tagged(tag, exclude=(pid,))
    return kill_processes(targets, timeout)
