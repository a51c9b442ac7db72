"""Is a command waiting for input, or busy? Two detectors.

The /proc detector (Linux) looks at every process in the pty's foreground process
group. The command waits for input when none of them is running and at least one is
blocked in ``read`` on the pty: state ``S`` and ``/proc/PID/syscall`` naming the read
syscall (0 on x86-64, 63 on arm64) on an fd whose target is the pty slave (or
``/dev/tty``, which is the same terminal for a process of that session). wchan is not
used: it says ``wait_woken`` on 6.x kernels and ``n_tty_read`` on older ones, and a
``sleep`` in ``clock_nanosleep`` is told apart by the syscall number alone.

Where /proc gives no answer (another OS, or files we may not read), the fallback takes
output silence for a grace period plus idle CPU across the command's tree as a prompt.
A pause mistaken for a prompt is recovered by an empty ``send_input``.
"""

from __future__ import annotations

import os
import platform
import sys

import psutil

from harness.actors.shell._procfs import pids_since, stat_fields

__all__ = [
    "READ_SYSCALLS",
    "CpuIdleSampler",
    "foreground_members",
    "proc_waiting",
    "tty_rdev",
]

# read, pread64, readv per architecture (asm-generic numbers on arm64 and riscv64).
READ_SYSCALLS: dict[str, frozenset[int]] = {
    "x86_64": frozenset({0, 17, 19}),
    "amd64": frozenset({0, 17, 19}),
    "aarch64": frozenset({63, 65, 67}),
    "arm64": frozenset({63, 65, 67}),
    "riscv64": frozenset({63, 65, 67}),
}
_DEV_TTY = os.makedev(5, 0)


def _read_syscalls() -> frozenset[int] | None:
    return READ_SYSCALLS.get(platform.machine().lower())


def tty_rdev(pid: int) -> int | None:
    """The device number of the terminal on *pid*'s fd 0 (the pty slave), or ``None``."""
    try:
        st = os.stat(f"/proc/{pid}/fd/0")
    except OSError:
        return None
    return st.st_rdev or None


def foreground_members(pgid: int, leader: int) -> list[tuple[int, str]] | None:
    """``[(pid, state)]`` of the processes in group *pgid* started since *leader*.

    ``None`` without /proc.
    """
    pids = pids_since(min(pgid, leader))
    if pids is None:
        return None
    members: list[tuple[int, str]] = []
    for pid in pids:
        fields = stat_fields(pid)
        # fields[0] is the state, fields[2] the process group.
        if fields is not None and len(fields) > 2 and fields[2] == str(pgid):
            members.append((pid, fields[0]))
    return members


def proc_waiting(master_fd: int, slave_rdev: int | None, leader: int) -> bool | None:
    """Whether the pty's foreground group waits for input: ``None`` when /proc cannot tell.

    Args:
        master_fd: the pty's master end (its foreground group is read from it).
        slave_rdev: device number of the pty slave (:func:`tty_rdev`).
        leader: the command's first process; its group members are all newer.
    """
    reads = _read_syscalls()
    if reads is None or not sys.platform.startswith("linux") or slave_rdev is None:
        return None
    try:
        pgid = os.tcgetpgrp(master_fd)
    except OSError:
        return None
    members = foreground_members(pgid, leader)
    if members is None:
        return None
    return _group_waiting(members, reads, slave_rdev)


def _group_waiting(
    members: list[tuple[int, str]], reads: frozenset[int], slave_rdev: int
) -> bool | None:
    reading = False
    for pid, state in members:
        if state in ("Z", "X", "x"):
            continue
        if state not in ("S", "T", "t"):
            return False  # running or in uninterruptible I/O: busy
        try:
            with open(f"/proc/{pid}/syscall") as f:
                syscall = f.read().split()
        except PermissionError:
            return None
        except OSError:
            continue  # exited in between
        if not syscall or syscall[0] == "running":
            return False
        try:
            number = int(syscall[0])
            fd = int(syscall[1], 16) if len(syscall) > 1 else -1
        except ValueError:
            continue
        if number in reads and fd >= 0 and _is_terminal(pid, fd, slave_rdev):
            reading = True
    return reading


def _is_terminal(pid: int, fd: int, slave_rdev: int) -> bool:
    try:
        rdev = os.stat(f"/proc/{pid}/fd/{fd}").st_rdev
    except OSError:
        return False
    return rdev in (slave_rdev, _DEV_TTY)


class CpuIdleSampler:
    """Tells whether a process tree used (almost) no CPU over the last *window* seconds.

    Call :meth:`sample` every poll; :meth:`idle` compares the newest sample with the
    oldest one at least *window* old. Works wherever psutil does.

    Args:
        pid: the tree's root.
        window: seconds to look back.
        max_share: CPU seconds per wall second still counted as idle (default 0.05).
    """

    def __init__(self, pid: int, window: float, max_share: float = 0.05) -> None:
        self._pid = pid
        self._window = window
        self._max_share = max_share
        self._samples: list[tuple[float, float]] = []

    def reset(self) -> None:
        """Forget the history (new output arrived)."""
        self._samples.clear()

    def sample(self, now: float) -> None:
        """Record the tree's CPU time at *now*."""
        self._samples.append((now, _tree_cpu(self._pid)))
        # Keep one sample older than the window, drop the rest of the old ones.
        while len(self._samples) > 2 and now - self._samples[1][0] >= self._window:
            self._samples.pop(0)

    def idle(self, now: float) -> bool:
        """Whether the last *window* seconds were idle (``False`` until that much history)."""
        if len(self._samples) < 2:
            return False
        then, cpu_then = self._samples[0]
        span = now - then
        if span < self._window:
            return False
        cpu_now = self._samples[-1][1]
        return (cpu_now - cpu_then) <= self._max_share * span


def _tree_cpu(pid: int) -> float:
    total = 0.0
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return total
    for proc in procs:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + getattr(t, "children_user", 0.0)
        total += getattr(t, "children_system", 0.0)
    return total
