"""Starting a command on a fresh pty, as the leader of a new session it controls.

The command must be a session leader with the pty slave as its controlling terminal,
so ``/dev/tty`` is the pty and its whole tree shares one process group. Three ways,
fastest first:

- :func:`spawn_posix` (Linux): ``posix_spawn`` with ``setsid`` and an ``open`` of the
  slave as fd 0. The C library runs ``setsid`` before the file actions (glibc and
  musl both do), and a session leader without a terminal that opens one acquires it:
  one vfork and one exec, the cost of a bare ``subprocess.run``.
- :func:`spawn_setsid`: ``subprocess`` starts util-linux's ``setsid --ctty`` on the
  slave, which then execs the command: one exec more (about a millisecond).
- pexpect's own fork, in :mod:`harness.actors.shell._session`, where neither exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Iterator
from typing import Any

__all__ = ["SPAWN_POSIX", "find_program", "restore_signals", "spawn_posix", "spawn_setsid"]

SPAWN_POSIX = sys.platform.startswith("linux") and hasattr(os, "posix_spawn")

# Python ignores SIGPIPE (and SIGXFSZ), and an ignored signal stays ignored across
# exec; subprocess's restore_signals puts them back, and so do we.
_RESTORED = tuple(getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name))
_programs: dict[tuple[str, str | None], str | None] = {}


def restore_signals() -> None:
    """Give the signals Python ignores their default action back (in a forked child)."""
    for sig in _RESTORED:
        signal.signal(sig, signal.SIG_DFL)


def find_program(name: str, search_path: str | None) -> str | None:
    """*name* looked up on *search_path* like ``shutil.which``, remembered per path."""
    if os.sep in name:
        return name
    key = (name, search_path)
    found = _programs.get(key)
    if found is None or not os.access(found, os.X_OK):
        found = _programs[key] = shutil.which(name, path=search_path)
    return found


def _open_pty(rows: int, cols: int) -> tuple[int, int]:
    master, slave = os.openpty()
    try:
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


def spawn_posix(
    argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
) -> tuple[int, int, int, int]:
    """Start *argv* with ``posix_spawn`` (see the module doc).

    Returns:
        ``(master fd, slave fd, pid, slave device number)``. The caller reaps the pid
        and closes both descriptors.

    Raises:
        OSError: the program is missing, *cwd* is not enterable, or the spawn failed.
    """
    program = find_program(argv[0], env.get("PATH", os.defpath))
    if program is None:
        raise FileNotFoundError(f"{argv[0]}: command not found")
    master, slave = _open_pty(rows, cols)
    try:
        rdev = os.fstat(slave).st_rdev
        actions: list[tuple[Any, ...]] = [
            (os.POSIX_SPAWN_OPEN, 0, os.ttyname(slave), os.O_RDWR, 0),
            (os.POSIX_SPAWN_DUP2, 0, 1),
            (os.POSIX_SPAWN_DUP2, 0, 2),
        ]
        # posix_spawn closes nothing by itself: descriptors marked inheritable (the
        # worker's channel to its parent is one) would reach the command.
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds()]
        with _working_directory(cwd):
            pid = os.posix_spawn(
                program, argv, env, file_actions=actions, setsid=True, setsigdef=_RESTORED
            )
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave, pid, rdev


def spawn_setsid(
    setsid: str, argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
) -> tuple[int, int, subprocess.Popen[bytes], int]:
    """Start *argv* under ``setsid --ctty`` through subprocess.

    Returns:
        ``(master fd, slave fd, the Popen of the leader, slave device number)``; the
        caller closes both descriptors.
    """
    master, slave = _open_pty(rows, cols)
    try:
        rdev = os.fstat(slave).st_rdev
        popen = subprocess.Popen(
            [setsid, "--ctty", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            close_fds=True,
        )
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave, popen, rdev


def _inheritable_fds() -> list[int]:
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        names = [str(fd) for fd in range(3, 256)]
    fds = []
    for name in names:
        fd = int(name)
        if fd < 3:
            continue
        try:
            if os.get_inheritable(fd):
                fds.append(fd)
        except OSError:
            continue  # the listing's own descriptor, now closed
    return fds


@contextlib.contextmanager
def _working_directory(path: str) -> Iterator[None]:
    """Enter *path* for the spawn, then go back.

    Python 3.11's ``posix_spawn`` has no chdir action. The change is process-wide but
    lasts two system calls on the event loop's thread, which holds the GIL across the
    spawn; the worker's other threads only use absolute paths and descriptors.
    """
    here = os.open(".", os.O_PATH | os.O_DIRECTORY)
    try:
        os.chdir(path)
        try:
            yield
        finally:
            os.fchdir(here)
    finally:
        os.close(here)
