"""Session ids (``s1``, ``s2`` ...) that a restarted worker never hands out twice.

A restarted worker must not call a new command ``s1`` while the model still holds the
``s1`` of a command lost with the old worker: its next ``send_input`` would type into
the wrong program. The counter therefore lives in a small file shared by every
incarnation of the worker under one parent (keyed by the parent's pid), locked while
it is bumped. Without a writable temp folder it falls back to counting in memory.

Nothing removes a file when its parent ends (the parent may be killed, and a fork server
serving several sessions outlives each), so the first id a worker hands out sweeps the
temp folder of this user's counters whose parent is gone: one file a session, otherwise,
would stay in the temp folder for good.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile

__all__ = ["SessionIds"]

_COUNTER = re.compile(rf"harness-shell-{os.getuid()}-(\d+)\.next")


class SessionIds:
    """Hands out ``s<n>`` ids, increasing across worker restarts.

    Args:
        path: the counter file; default ``<tmp>/harness-shell-<uid>-<parent pid>.next``.
    """

    def __init__(self, path: str | None = None) -> None:
        self.path = path or os.path.join(
            tempfile.gettempdir(), f"harness-shell-{os.getuid()}-{os.getppid()}.next"
        )
        self._memory = 0
        self._issued: set[str] = set()
        self._swept = path is not None  # a path of the caller's choosing is theirs to keep

    def next(self) -> str:
        """A fresh id."""
        if not self._swept:
            self._swept = True
            _sweep(os.path.dirname(self.path))
        try:
            n = self._bump_file()
        except (OSError, ValueError):
            self._memory += 1
            n = self._memory
        self._memory = max(self._memory, n)
        sid = f"s{n}"
        self._issued.add(sid)
        return sid

    def issued_here(self, sid: str) -> bool:
        """Whether this worker handed out *sid* (else it came from an earlier one)."""
        return sid in self._issued

    def _bump_file(self) -> int:
        # never through a symlink another user planted at the name in a shared folder
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.pread(fd, 32, 0).strip()
            n = max(int(raw) if raw else 0, self._memory) + 1
            # Fixed width, so a rewrite in place never needs a truncate.
            os.pwrite(fd, b"%020d\n" % n, 0)
            return n
        finally:
            os.close(fd)


def _sweep(folder: str) -> None:
    """Remove this user's counters in *folder* whose parent process is gone."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        found = _COUNTER.fullmatch(name)
        if found is None or _alive(int(found.group(1))):
            continue
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass  # gone already, or not ours to remove


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, and someone else's
    return True
