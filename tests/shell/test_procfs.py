"""The /proc reads shared by the detector and the tree killer, on real processes."""

from __future__ import annotations

import subprocess

from harness.actors.shell._procfs import pids_since

from .conftest import PY

THREADS = (
    "import threading, time\n"
    "ts = [threading.Thread(target=time.sleep, args=(1000,), daemon=True) for _ in range(3)]\n"
    "[t.start() for t in ts]\n"
    "print(*[t.native_id for t in ts], flush=True)\n"
    "time.sleep(1000)\n"
)


def test_both_ways_find_processes_started_since_and_no_threads() -> None:
    before = subprocess.Popen([PY, "-c", "import time; time.sleep(1000)"])
    proc = subprocess.Popen([PY, "-c", THREADS], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        threads = [int(t) for t in proc.stdout.readline().split()]
        assert len(threads) == 3
        one_by_one = pids_since(proc.pid, few=1 << 30)
        listed = pids_since(proc.pid, few=0)
        for found in (one_by_one, listed):
            assert found is not None
            assert proc.pid in found
            assert before.pid not in found
            assert not set(threads) & set(found)
    finally:
        for p in (before, proc):
            p.kill()
            p.wait()
