"""Killing a process tree: the one place harness does it, rung by rung.

A tree is more than a process's children. Everything it started without
``setsid`` shares its process group; a process that called ``setsid`` and whose
parent died is nobody's descendant any more, and only the tag every process
inherits in its environment (``HARNESS_WORKER_TAG`` for a worker, the shell's
own variable for a command) still finds it. So a tree is found three ways
(:func:`signal_group`, :func:`snapshot_tree`, :func:`find_tagged`), and killed by
one of two ladders:

- :func:`kill_processes`: SIGKILL at once, for a worker that is already
  misbehaving or gone (the supervisor's sweep, a worker cleaning up after itself);
- :func:`kill_tree`: SIGTERM (and SIGCONT, so a stopped process can act on it),
  a grace period, then SIGKILL in rounds that look again for anything forked in
  between (a shell command).

Every rung is synchronous and bounded; async callers run it in a thread.
``psutil.Process`` remembers each process's start time, so a pid reused since it
was found is never signalled.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Iterable

import psutil

from harness.ipc import WORKER_TAG_ENV

__all__ = [
    "find_tagged",
    "kill_descendants",
    "kill_processes",
    "kill_tree",
    "signal_all",
    "signal_group",
    "snapshot_tree",
    "survivors",
    "wait_gone",
]


def signal_group(pgid: int, sig: int) -> bool:
    """Send *sig* to process group *pgid*; ``False`` when the group is already gone."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def signal_all(procs: Iterable[psutil.Process], sig: int) -> None:
    """Send *sig* to each of *procs*; ones already gone are skipped."""
    for proc in procs:
        try:
            proc.send_signal(sig)
        except psutil.Error:
            continue


def snapshot_tree(pid: int) -> list[psutil.Process]:
    """Every live descendant of *pid* (empty when *pid* is gone)."""
    try:
        children: list[psutil.Process] = psutil.Process(pid).children(recursive=True)
        return children
    except psutil.Error:
        return []


def find_tagged(
    value: str,
    *,
    variable: str = WORKER_TAG_ENV,
    pids: Iterable[int] | None = None,
    exclude: Iterable[int] = (),
) -> list[psutil.Process]:
    """The processes whose environment holds ``<variable>=<value>``.

    Args:
        value: the tag.
        variable: the variable that carries it (default ``HARNESS_WORKER_TAG``).
        pids: the pids to look at (default: every process in ``/proc``).
        exclude: pids never returned (this process is never returned either).
    """
    needle = f"{variable}={value}".encode()
    skip = {os.getpid(), *exclude}
    if pids is None:
        try:
            pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
        except OSError:
            return []
    found: list[psutil.Process] = []
    for pid in sorted(set(pids) - skip):
        environ = _environ(pid)
        if environ is None or needle not in environ.split(b"\0"):
            continue
        try:
            found.append(psutil.Process(pid))
        except psutil.Error:
            continue
    return found


def _environ(pid: int) -> bytes | None:
    """``/proc/PID/environ``, or ``None`` when the process is gone or not ours to read.

    A process in the middle of ``execve`` (a ``cmd &`` just forked) shows an empty
    environment for a moment; that is retried briefly, zombies and kernel threads
    aside (theirs is always empty).
    """
    pause = 0.002
    for attempt in range(8):  # up to ~0.25 s in all, for a machine under load
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                data = f.read()
        except OSError:
            return None
        if data:
            return data
        state_ppid = _state_and_parent(pid)
        if state_ppid is None or state_ppid[0] in "ZX" or state_ppid[1] in (0, 2):
            return None  # gone, a zombie, or a kernel thread (child of kthreadd)
        if attempt < 7:
            time.sleep(pause)
            pause *= 2
    return None


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields follow the last ')'.
    fields = raw[raw.rfind(")") + 2 :].split()
    if len(fields) < 2 or not fields[1].isdigit():
        return None
    return fields[0], int(fields[1])


def wait_gone(procs: Iterable[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait up to *timeout* seconds for every process to end; the ones still running.

    Each is watched through a pidfd, readable the moment it exits, so the wait ends
    then and not at the next poll; only where no pidfd can be had (old kernels)
    is it polled. A process killed but not reaped (a zombie whose new parent has
    not collected it yet) counts as gone: it runs nothing any more.
    """
    deadline = time.monotonic() + timeout
    alive = [p for p in procs if _running(p)]
    watched: dict[int, psutil.Process] = {}
    polled: list[psutil.Process] = []
    try:
        for proc in alive:
            fd = _pidfd(proc)
            if fd is None:
                polled.append(proc)
            else:
                watched[fd] = proc
        poller = select.poll()
        for fd in watched:
            poller.register(fd, select.POLLIN)
        while watched or polled:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            wait = min(left, 0.01) if polled else left
            for fd, _ in poller.poll(wait * 1000):
                poller.unregister(fd)
                os.close(fd)
                del watched[fd]
            polled = [p for p in polled if _running(p)]
    finally:
        for fd in watched:
            os.close(fd)
    return [p for p in alive if _running(p)]


def _running(proc: psutil.Process) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _pidfd(proc: psutil.Process) -> int | None:
    """A pidfd of *proc*, checked to be that process and not a later one with its pid."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:
        return None
    if not proc.is_running():  # the pid was reused before the pidfd was taken
        os.close(fd)
        return None
    return fd


def kill_processes(procs: Iterable[psutil.Process], timeout: float = 1.0) -> list[psutil.Process]:
    """SIGKILL each of *procs* and its own process group; wait up to *timeout* seconds.

    A process that left its parent's group (``setsid``) leads a group of its own,
    which goes with it; our own group never does. Returns the ones still running.
    """
    own_group = os.getpgid(0)
    targets = []
    for proc in procs:
        try:
            if not proc.is_running():
                continue
            try:
                pgid: int | None = os.getpgid(proc.pid)
            except OSError:
                pgid = None
            if pgid is not None and pgid != own_group:
                signal_group(pgid, signal.SIGKILL)
            proc.kill()
            targets.append(proc)
        except psutil.Error:
            continue
    return wait_gone(targets, timeout)


def kill_tree(
    find: Callable[[], list[psutil.Process]], *, group: int | None = None, grace: float = 0.5
) -> list[psutil.Process]:
    """Stop a tree politely, then for sure; return what is still running after it all.

    SIGTERM and SIGCONT to *group* and to every process *find* returns, up to
    *grace* seconds for them to end, then SIGKILL (:func:`kill_processes`) to
    whatever is left and whatever *find* turns up since, in up to three rounds.

    Args:
        find: lists the tree's live processes; called again each round.
        group: a process group wholly the tree's (``None``: none, or it may have
            been reused), signalled as a whole too.
        grace: seconds between SIGTERM and SIGKILL.
    """
    procs = find()
    for sig in (signal.SIGTERM, signal.SIGCONT):
        if group is not None:
            signal_group(group, sig)
        signal_all(procs, sig)
    alive = wait_gone(procs, grace)
    for _ in range(3):
        if group is not None:
            signal_group(group, signal.SIGKILL)
        seen = {p.pid for p in alive}
        alive.extend(p for p in find() if p.pid not in seen)
        alive = kill_processes(alive)
        if not alive and not find():
            return []
    return alive


def survivors(procs: Iterable[psutil.Process], tag: str | None = None) -> list[psutil.Process]:
    """Which of *procs* (and of the processes carrying worker *tag*) are still running."""
    candidates = [*procs, *(find_tagged(tag) if tag is not None else [])]
    return list({proc.pid: proc for proc in candidates if _running(proc)}.values())


def kill_descendants(pid: int, tag: str | None, timeout: float = 1.0) -> list[psutil.Process]:
    """SIGKILL every descendant of *pid*, and every process carrying worker *tag* (but *pid*).

    A worker calls this on itself as it exits, so that what it started never
    outlives it, even when the parent that would have swept it is gone.
    Returns what is still running afterwards.
    """
    targets = snapshot_tree(pid)
    if tag:
        targets += find_tagged(tag, exclude=(pid,))
    return kill_processes(targets, timeout)
