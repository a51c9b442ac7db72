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


def test_later_runs_work_at_other_paths_and_the_table_names_what_moved(
    tmp_path: Path,
) -> None:
    code = """
from bench._local_task import Task
from bench.bench_local_tasks import Outcome, _by_path, workspace

def task(name):
    return Task(name=name, prompt="p", files={}, check=lambda events, ws: True)

first, second = workspace(1), workspace(2)
print(first.relative_to(first.parents[1]), second.relative_to(second.parents[2]))
tasks = [("fresh A", task("a")), ("fresh A", task("b")), ("fresh B", task("c"))]
done = lambda ok: Outcome(ok, 1.0, True, 0)
results = {"a": [done(True), done(False)], "b": [done(True), done(True)], "c": [done(False)] * 2}
print(_by_path("fresh A", tasks, results, 2))
print(_by_path("fresh B", tasks, results, 2))
"""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    paths, half_a, half_b = out.stdout.splitlines()
    # run 1 keeps the one folder every earlier figure was taken in; run 2 has its own
    assert paths == "harness-bench-tasks/project harness-bench-tasks/2/project"
    assert half_a == "('2/2, 1/2', 'moved with the path: a 1/2')"
    assert half_b == "('0/1, 0/1', 'no task moved with the path')"
