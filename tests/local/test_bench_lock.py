"""Two runs of ``python -m bench local-tasks`` at once would share one folder: the second
stops at once with an error, and runs again once the first is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_HOLD = """
import fcntl, sys, time
f = open(sys.argv[1], "w")
fcntl.flock(f, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def _bench(tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "BENCH_SET": "fresh", "BENCH_TASKS": "none"}
    code = "from bench.bench_local_tasks import run; run()"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_second_run_stops_while_the_first_holds_the_folder(tmp_path: Path) -> None:
    (tmp_path / "harness-bench-tasks").mkdir()
    lock = tmp_path / "harness-bench-tasks" / ".lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        busy = _bench(tmp_path)
        assert busy.returncode == 1
        assert "another `python -m bench local-tasks` is running" in busy.stderr
    finally:
        holder.kill()
        holder.wait()
    free = _bench(tmp_path)  # the kernel let go of the lock with the process
    assert free.returncode == 0, free.stderr
