"""Small, cheap reads of /proc shared by the detector and the tree killer.

Reading one ``/proc/PID/*`` file costs tens of microseconds, so scanning every
process on each poll is too slow. Every process of a command was forked after the
command's leader, and Linux hands out pids in increasing order until they wrap at
``pid_max``; so unless the counter wrapped since, only pids from the leader's up to
the last one handed out (``/proc/loadavg``'s last field) need a look. When only a few
were handed out (a quick command on a calm machine: often none but the leader's), each
is looked up by number instead of listing all of /proc.
"""

from __future__ import annotations

import os

__all__ = ["pids_since", "stat_fields"]


def _last_pid() -> int | None:
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


# Up to this many pids handed out since the first, they are looked up one by one.
_FEW = 16


def pids_since(first: int, few: int = _FEW) -> list[int] | None:
    """Pids that may belong to processes started at or after pid *first*.

    ``None`` when /proc cannot be listed. After a wrap of the pid counter every pid
    is returned. Up to *few* pids handed out since *first*, each is looked up by number;
    past that, /proc is listed.
    """
    last = _last_pid()
    if last is not None and first <= last < first + few:
        return [pid for pid in range(first, last + 1) if _is_process(pid)]
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    pids = [int(e) for e in entries if e.isdigit()]
    if last is None or last < first:
        return pids  # wrapped (or unknown): look at everything
    return [p for p in pids if first <= p <= last]


def _is_process(pid: int) -> bool:
    # /proc answers for a thread's id too, though it lists only processes.
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            head = f.read(1024)
    except OSError:
        return False
    start = head.find(b"\nTgid:")
    if start < 0:
        return True
    end = head.find(b"\n", start + 1)
    try:
        return int(head[start + 6 : end]) == pid
    except ValueError:
        return True


def stat_fields(pid: int) -> list[str] | None:
    """``/proc/PID/stat`` after the command name: ``[state, ppid, pgrp, session, ...]``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode("ascii", "replace")
    except OSError:
        return None
    # comm may hold spaces and parentheses: split after the last ')'.
    close = raw.rfind(")")
    if close < 0:
        return None
    return raw[close + 2 :].split()
