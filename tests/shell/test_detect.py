"""The /proc detector and the fallback's CPU sampler on real ptys."""

from __future__ import annotations

import os
import subprocess
import time

from harness.actors.shell._detect import CpuIdleSampler, proc_waiting, tty_rdev

from .conftest import py


def on_pty(command: str) -> tuple[subprocess.Popen[bytes], int]:
    master, slave = os.openpty()
    proc = subprocess.Popen(
        ["setsid", "--ctty", "bash", "-c", command],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    return proc, master


def settle(master: int, rdev: int | None, pid: int, expect: bool) -> bool | None:
    """Poll the detector for up to 5 s until it says *expect*; return its last word."""
    deadline = time.monotonic() + 5
    verdict = proc_waiting(master, rdev, pid)
    while verdict != expect and time.monotonic() < deadline:
        time.sleep(0.05)
        verdict = proc_waiting(master, rdev, pid)
    return verdict


def finish(proc: subprocess.Popen[bytes], master: int) -> None:
    proc.kill()
    proc.wait()
    os.close(master)


def test_input_is_waiting_and_sleep_is_not() -> None:
    proc, master = on_pty(py("input('? ')") + "; sleep 1000")
    try:
        time.sleep(0.2)
        rdev = tty_rdev(proc.pid)
        assert rdev
        assert settle(master, rdev, proc.pid, True) is True
        os.write(master, b"answer\n")
        # Python exits, bash runs sleep: asleep, but not reading the terminal.
        assert settle(master, rdev, proc.pid, False) is False
        time.sleep(0.3)
        assert proc_waiting(master, rdev, proc.pid) is False
    finally:
        finish(proc, master)


def test_busy_loop_is_never_waiting() -> None:
    proc, master = on_pty(py("while True: pass"))
    try:
        time.sleep(0.2)
        rdev = tty_rdev(proc.pid)
        verdicts = set()
        for _ in range(20):
            verdicts.add(proc_waiting(master, rdev, proc.pid))
            time.sleep(0.02)
        assert verdicts == {False}
    finally:
        finish(proc, master)


def test_a_reader_in_a_child_of_the_shell_counts() -> None:
    # bash forks (two commands), so the reader is not the leader itself.
    proc, master = on_pty("echo start; read x; echo $x")
    try:
        time.sleep(0.2)
        assert settle(master, tty_rdev(proc.pid), proc.pid, True) is True
    finally:
        finish(proc, master)


def test_cpu_sampler_tells_idle_from_busy() -> None:
    idle = subprocess.Popen(["sleep", "1000"])
    busy = subprocess.Popen(["bash", "-c", "while :; do :; done"])
    try:
        samplers = {p.pid: CpuIdleSampler(p.pid, window=0.3) for p in (idle, busy)}
        start = time.monotonic()
        while time.monotonic() - start < 0.5:
            for s in samplers.values():
                s.sample(time.monotonic())
            time.sleep(0.05)
        now = time.monotonic()
        assert samplers[idle.pid].idle(now)
        assert not samplers[busy.pid].idle(now)
        samplers[idle.pid].reset()
        assert not samplers[idle.pid].idle(now)  # no history, no verdict
    finally:
        for p in (idle, busy):
            p.kill()
            p.wait()
