"""Killing a command's whole tree, and checking that nothing is left.

A command runs in its own session and process group (the pty's), and every process
it starts inherits ``HARNESS_SHELL_SESSION=<token>`` in its environment. The tree is
found three ways, because each alone misses something:

- the process group: everything started without job control or ``setsid``;
- psutil's recursive children of the leader: processes that left the group but still
  have a living parent in the tree;
- a /proc scan for the token: processes that called ``setsid`` *and* were reparented
  (their parent died), which nothing else can find.

The ladder: SIGTERM (and SIGCONT, so a stopped process can act on it) to all of them,
wait up to a grace period, SIGKILL whatever is left, scan again for anything forked in
between, then wait until every one is gone. All of it is synchronous and bounded; the
pool runs it in a thread.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Iterable

import psutil

from harness.actors.shell._procfs import pids_since, read_proc, stat_fields

__all__ = ["SESSION_VAR", "find_tagged", "kill_tree", "session_processes", "signal_all"]

SESSION_VAR = "HARNESS_SHELL_SESSION"


def find_tagged(token: str, since: int = 0) -> list[psutil.Process]:
    """Processes started since pid *since* whose environment carries our token.

    The token is ``HARNESS_SHELL_SESSION=<token>``.
    """
    return _processes(_tagged_pids(token, pids_since(since) or []))


def _tagged_pids(token: str, pids: list[int]) -> set[int]:
    needle = f"{SESSION_VAR}={token}".encode()
    me = os.getpid()
    found = set()
    for pid in pids:
        if pid == me:
            continue
        environ = _environ(pid)
        if environ is not None and needle in environ.split(b"\0"):
            found.add(pid)
    return found


def _processes(pids: set[int]) -> list[psutil.Process]:
    procs = []
    for pid in sorted(pids):
        try:
            procs.append(psutil.Process(pid))
        except psutil.Error:
            continue
    return procs


def _environ(pid: int) -> bytes | None:
    """``/proc/PID/environ``, or ``None`` when the process is gone or not ours to read.

    A process in the middle of ``execve`` (a ``cmd &`` just forked) shows an empty
    environment for a moment; that is retried briefly, kernel threads aside.
    """
    pause = 0.002
    for attempt in range(8):  # up to ~0.25 s in all, for a machine under load
        data = read_proc(f"/proc/{pid}/environ", None)
        if data is None:
            return None
        if data:
            return data
        fields = stat_fields(pid)
        if fields is None or fields[0] in ("Z", "X") or fields[1] in ("0", "2"):
            return None  # gone, a zombie, or a kernel thread (child of kthreadd)
        if attempt < 7:
            time.sleep(pause)
            pause *= 2
    return None


def session_processes(
    leader: int, pgid: int, token: str, *, group_is_ours: bool = True
) -> list[psutil.Process]:
    """Every live process of a command: its group, the leader's tree, the tagged ones.

    Once the leader is reaped its pid (the group id) could in theory be reused; pass
    ``group_is_ours=False`` then, and group members count only when they carry the token.
    All of them were started after the leader, so only newer pids are read.
    """
    pids = pids_since(leader) or []
    found = _tagged_pids(token, pids)
    if group_is_ours:
        children: dict[int, list[int]] = {}
        for pid in pids:
            fields = stat_fields(pid)
            if fields is None or len(fields) < 3:
                continue
            children.setdefault(int(fields[1]), []).append(pid)
            if fields[2] == str(pgid):
                found.add(pid)
        # The leader's descendants, wherever their group: a walk down the ppid links.
        todo = [leader]
        while todo:
            pid = todo.pop()
            found.add(pid)
            todo.extend(c for c in children.get(pid, ()) if c not in found)
    found.discard(os.getpid())
    return [p for p in _processes(found) if _alive(p)]


def _alive(proc: psutil.Process) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def signal_all(procs: Iterable[psutil.Process], sig: int) -> None:
    """Send *sig* to each process; ones already gone are skipped.

    ``psutil.Process.send_signal`` checks the process's start time first, so a pid
    reused since the snapshot is never hit.
    """
    for proc in procs:
        try:
            proc.send_signal(sig)
        except psutil.Error:
            continue


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except OSError:
        pass


def _wait_gone(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait up to *timeout* for every process to exit; return the ones still alive.

    Each is watched through a pidfd, readable the moment it exits, so the wait ends
    then and not at the next poll; only where no pidfd can be had (old kernels,
    other OSes) is it polled.
    """
    deadline = time.monotonic() + timeout
    alive = [p for p in procs if _alive(p)]
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
            polled = [p for p in polled if _alive(p)]
    finally:
        for fd in watched:
            os.close(fd)
    return [p for p in alive if _alive(p)]


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


def kill_tree(
    leader: int, pgid: int, token: str, grace: float = 0.5, *, group_is_ours: bool = True
) -> list[int]:
    """Stop a command and everything it started; return pids still alive after it all.

    Args:
        leader: the command's first process (``bash -c``).
        pgid: its process group (the leader's pid for a pty session).
        token: the value of ``HARNESS_SHELL_SESSION`` its processes carry.
        grace: seconds between SIGTERM and SIGKILL.
        group_is_ours: the leader is not reaped yet, so *pgid* cannot have been reused
            and the whole group may be signalled.
    """
    procs = session_processes(leader, pgid, token, group_is_ours=group_is_ours)
    if group_is_ours:
        _killpg(pgid, signal.SIGTERM)
        _killpg(pgid, signal.SIGCONT)
    signal_all(procs, signal.SIGTERM)
    signal_all(procs, signal.SIGCONT)
    alive = _wait_gone(procs, grace)
    # Anything forked since the snapshot, or that ignored SIGTERM: SIGKILL.
    for _ in range(3):
        if group_is_ours:
            _killpg(pgid, signal.SIGKILL)
        more = session_processes(leader, pgid, token, group_is_ours=group_is_ours)
        seen = {p.pid for p in alive}
        alive.extend(p for p in more if p.pid not in seen)
        signal_all(alive, signal.SIGKILL)
        alive = _wait_gone(alive, 1.0)
        if not alive and not session_processes(leader, pgid, token, group_is_ours=group_is_ours):
            return []
    return [p.pid for p in alive]
