"""Which processes belong to a command; killing them is the supervisor's (one owner).

A command runs in its own session and process group (the pty's), and every process
it starts inherits ``HARNESS_SHELL_SESSION=<token>`` in its environment. The tree is
found three ways, because each alone misses something:

- the process group: everything started without job control or ``setsid``;
- the leader's descendants, by a walk down the parent links in /proc: processes that
  left the group but still have a living parent in the tree;
- a /proc scan for the token: processes that called ``setsid`` *and* were reparented
  (their parent died), which nothing else can find.

:func:`kill_tree` hands that finding to :func:`harness.supervisor.kill_tree`, the
ladder every tree in harness is killed by: SIGTERM, a grace period, then SIGKILL in
rounds that look again for anything forked in between. All of it is synchronous and
bounded; the pool runs it in a thread.
"""

from __future__ import annotations

import os

import psutil

from harness.actors.shell._procfs import pids_since, stat_fields
from harness.supervisor import find_tagged as find_processes_tagged
from harness.supervisor import kill_tree as kill_process_tree

__all__ = ["SESSION_VAR", "find_tagged", "kill_tree", "session_processes"]

SESSION_VAR = "HARNESS_SHELL_SESSION"


def find_tagged(token: str, since: int = 0) -> list[psutil.Process]:
    """Processes started since pid *since* whose environment carries our token.

    The token is ``HARNESS_SHELL_SESSION=<token>``.
    """
    return find_processes_tagged(token, variable=SESSION_VAR, pids=pids_since(since) or [])


def session_processes(
    leader: int, pgid: int, token: str, *, group_is_ours: bool = True
) -> list[psutil.Process]:
    """Every live process of a command: its group, the leader's tree, the tagged ones.

    Once the leader is reaped its pid (the group id) could in theory be reused; pass
    ``group_is_ours=False`` then, and group members count only when they carry the token.
    All of them were started after the leader, so only newer pids are read.
    """
    pids = pids_since(leader) or []
    found = {p.pid for p in find_processes_tagged(token, variable=SESSION_VAR, pids=pids)}
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


def _processes(pids: set[int]) -> list[psutil.Process]:
    procs = []
    for pid in sorted(pids):
        try:
            procs.append(psutil.Process(pid))
        except psutil.Error:
            continue
    return procs


def _alive(proc: psutil.Process) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


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

    def find() -> list[psutil.Process]:
        return session_processes(leader, pgid, token, group_is_ours=group_is_ours)

    group = pgid if group_is_ours else None
    return [p.pid for p in kill_process_tree(find, group=group, grace=grace)]
