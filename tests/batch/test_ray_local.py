"""``harness batch --ray`` with no address: a local Ray instance the driver starts.

Each test's driver starts an instance of its own, so they are kept apart from
tests/batch/test_ray.py, whose shared instance is stopped once its tests are done.
The two tests cannot share one: the instance is its driver's (its ``ray.init`` starts
it, its ``ray.shutdown`` stops it), and one driver is interrupted while its workers
start, the other runs its tasks to the end. An instance costs the same whatever it is
asked: with ``include_dashboard=False`` Ray still starts its GCS, raylet, autoscaler
monitor, log monitor, API server, dashboard agent and runtime environment agent (with
the two workers, 5.8 s of CPU in one measure on two cores), and ``ray.init`` has no
setting that leaves one out.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil
from tests.batch.conftest import (
    EditModel,
    batch_argv,
    find_session,
    ray_env,
    ray_worker,
    read_results,
    serve,
    started_at,
    write_tasks,
)
from tests.scripted import ScriptedModel


def test_a_local_instance_has_its_workers_up_before_the_job_and_one_task_server(
    tmp_path: Path, repo: Path, home: Path
) -> None:
    """Ray's workers are up before the job, one task server serves both tasks, and (issue
    34) the keys reach each task's session while no environment block of any process
    (driver, Ray's own, its workers, task servers, sessions) holds them. One test, since
    every local instance costs Ray's whole start-up."""
    secret = "sk-ray-key-not-in-proc"
    script = EditModel(hold=("t1", "t2"))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--ray", "--concurrency", "2"),
            env=ray_env(home) | {"OPENAI_API_KEY": secret},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            script.wait_asked("t1", timeout=180)
            script.wait_asked("t2", timeout=180)
            showing = showing_in_environ(secret)
            sessions = [find_session(f"/{i}/ws") for i in ("t1", "t2")]
            servers = [s.parent() for s in sessions]
            assert servers[0] is not None
            assert servers[1] is not None
            workers = [ray_worker(i) for i in ("t1", "t2")]
            started = [started_at(w) for w in workers]
            served = [started_at(s) for s in servers]
            commands = [p.cmdline() for p in (servers[0], *workers)]
            script.release()
            stdout, stderr = driver.communicate(timeout=300)
        finally:
            script.release()
            driver.kill()
    assert driver.returncode == 0, stdout + stderr
    assert len(commands) == 3
    assert commands[0][1:3] == ["-m", "harness.supervisor._zygote"]
    assert all(cmd[0].startswith("ray::") for cmd in commands[1:])
    assert len({w.pid for w in workers}) == 2  # a worker each ...
    assert len({s.pid for s in servers}) == 1  # ... and one task server for both
    docs = [json.loads(x) for x in stdout.splitlines()]
    engine = next(d for d in docs if d["type"] == "engine_started")
    assert engine["engine"] == "Ray on a local instance (2 CPUs, workers started)"
    # both workers were up before the job began: the start-up counts them
    assert max(started) < engine["ts"]
    results = read_results(out)
    assert all(results[i]["ok"] and results[i]["started"] > engine["ts"] for i in ("t1", "t2"))
    # the task servers started with the job, not in the start-up
    assert min(served) > engine["ts"]
    everything = [*sessions, servers[0], *workers]
    _, alive = psutil.wait_procs(everything, timeout=30)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    assert showing == []
    assert {h.get("authorization") for h in model.headers} == {f"Bearer {secret}"}


def test_sigint_while_a_local_instance_starts_its_workers(
    tmp_path: Path, repo: Path, home: Path, edit_model: tuple[EditModel, ScriptedModel]
) -> None:
    script, model = edit_model
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    driver = subprocess.Popen(
        batch_argv(tasks, out, model, "--ray", "--concurrency", "2"),
        env=ray_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # A worker is starting: it has still to import Ray and register before the
        # driver can hold it, so the interrupt comes before the job, never after.
        starting = wait_for_descendant(driver.pid, is_starting_worker, timeout=180)
        tree = psutil.Process(driver.pid).children(recursive=True)
        driver.send_signal(signal.SIGINT)
        stdout, stderr = driver.communicate(timeout=120)
    finally:
        driver.kill()
    assert driver.returncode == 130, stdout + stderr
    docs = [json.loads(x) for x in stdout.splitlines()]
    assert [d for d in docs if d["type"] in ("engine_started", "task_started")] == []
    assert not (out / "results.jsonl").exists()
    assert script.asked == []
    assert starting in tree
    _, alive = psutil.wait_procs(tree, timeout=30)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []


def is_starting_worker(cmdline: list[str]) -> bool:
    """A Ray worker that has not yet taken its title (``ray::IDLE``, ``ray::<task>``):
    its interpreter still runs Ray's worker script."""
    return any(arg.endswith("default_worker.py") for arg in cmdline[:3])


def wait_for_descendant(
    pid: int, match: Callable[[list[str]], bool], timeout: float
) -> psutil.Process:
    """The first process under *pid* whose command line *match* accepts.

    A look every 0.1 s, at every process's command line (and at the parents of one that
    matches): a starting Ray worker keeps its title for longer, while it imports Ray.
    psutil's ``children(recursive=True)`` reads every process's ``/proc/PID/stat``
    instead, which sums the times of all its threads (Ray's processes have dozens): 4.9
    ms of CPU a look against 2.3 with a local instance up, and at a look every 20 ms while
    a loaded machine took 20-50 s to start Ray, 2.4 s of this process's CPU."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmdline = [x.decode(errors="replace") for x in f.read().split(b"\0") if x]
                if match(cmdline):
                    proc = psutil.Process(int(entry))
                    if pid in (p.pid for p in proc.parents()):
                        return proc
            except (OSError, psutil.Error):
                continue
        time.sleep(0.1)
    raise TimeoutError(f"no such process under {pid}")


def showing_in_environ(secret: str) -> list[int]:
    """The pids of the machine's processes whose environment block holds *secret*."""
    showing = []
    for proc in psutil.process_iter():
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as f:
                if secret.encode() in f.read():
                    showing.append(proc.pid)
        except OSError:
            continue
    return showing
