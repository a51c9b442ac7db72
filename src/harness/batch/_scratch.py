"""A batch run's temporary folders, and the sweep of those a killed run left behind.

A run keeps copies of its tasks' workspaces in temporary folders (``harness-batch-…``
under the machine's temporary folder: the local engine's task copies, the Ray driver's
staged workspaces, each node's task scratch) and removes them as it ends. A run killed
with SIGKILL, or a Ray worker killed under its task, ends no ``finally``: its folders,
whole copies of the user's workspaces, stayed there for good (measured: two folders for
every ``make test``, from the test that kills a Ray driver).

So a folder in use is *held*: its process holds an exclusive lock on the folder's
``.lock`` file, which the kernel lets go when the process dies, however it dies. Each run
removes (:func:`sweep`) the user's ``harness-batch-…`` folders that no process holds and
that nothing touched for :data:`STALE_AFTER` seconds. The wait covers a folder between its
creation and its lock, and a Ray task between its worker's death and its retry, which
reads the count of attempts the dead one left.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

PREFIX = "harness-batch-"
"""The name every temporary folder of a batch run starts with."""

STALE_AFTER = 600.0
"""Seconds a folder no process holds must have been left untouched before it is swept."""

LOCK = ".lock"


def folder(name: str) -> Path:
    """The temporary folder *name* of a batch run (``harness-batch-…``)."""
    return Path(tempfile.gettempdir()) / name


@contextlib.contextmanager
def held(path: Path) -> Iterator[Path]:
    """Hold the folder *path* as in use until the block ends (or the process dies)."""
    fd = os.open(path / LOCK, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        os.close(fd)


def _in_use(lock: Path) -> bool:
    """Whether a live process holds *lock* (a folder's ``.lock``)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _left(path: Path, now: float) -> bool:
    """Whether *path* was left: no lock in it or in a folder of it is held, and neither
    it nor what it holds two levels down was touched for :data:`STALE_AFTER` seconds."""
    try:
        inside = list(path.iterdir())
        below = [p for q in inside if q.is_dir() and not q.is_symlink() for p in q.iterdir()]
        newest = max(p.lstat().st_mtime for p in (path, *inside, *below))
    except OSError:
        return False  # going or gone as we look
    if now - newest < STALE_AFTER:
        return False
    locks = [path / LOCK, *(q / LOCK for q in inside if q.is_dir())]
    return not any(_in_use(lock) for lock in locks)


def sweep(keep: Path | None = None) -> list[Path]:
    """Remove this user's batch-run temporary folders that were left (:func:`_left`),
    but *keep*; the folders removed."""
    now = time.time()
    gone = []
    for path in Path(tempfile.gettempdir()).glob(PREFIX + "*"):
        try:
            st = path.lstat()
        except OSError:
            continue
        ours = stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()  # no link followed
        if path == keep or not ours or not _left(path, now):
            continue
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    return gone


@contextlib.contextmanager
def scratch(kind: str = "") -> Iterator[Path]:
    """A new temporary folder of a batch run (``harness-batch-<kind>…``), held while the
    block runs and removed after it; the folders earlier runs left are swept first."""
    path = Path(tempfile.mkdtemp(prefix=PREFIX + kind))
    try:
        with held(path):
            sweep(keep=path)
            yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
