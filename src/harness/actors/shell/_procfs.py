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

__all__ = ["pids_since", "read_proc", "stat_fields"]

_loadavg: int | None = None  # kept open: a pread of it is a fresh reading


def read_proc(path: str, limit: int | None = 4096) -> bytes | None:
    """A /proc file, or its first *limit* bytes (``None`` if it cannot be read).

    Plain ``os`` calls: ``open()``'s buffering costs several system calls more, and
    these files are read on every poll.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if limit is not None:
            return os.read(fd, limit)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _last_pid() -> int | None:
    global _loadavg
    for _ in range(2):
        try:
            if _loadavg is None:
                _loadavg = os.open("/proc/loadavg", os.O_RDONLY | os.O_CLOEXEC)
            return int(os.pread(_loadavg, 128, 0).split()[-1])
        except OSError:
            _loadavg = None  # closed under us, or no /proc: try a fresh one once
        except (ValueError, IndexError):
            return None
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
    head = read_proc(f"/proc/{pid}/status", 512)
    if head is None:
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
    data = read_proc(f"/proc/{pid}/stat")
    if data is None:
        return None
    raw = data.decode("ascii", "replace")
    # comm may hold spaces and parentheses: split after the last ')'.
    close = raw.rfind(")")
    if close < 0:
        return None
    return raw[close + 2 :].split()
