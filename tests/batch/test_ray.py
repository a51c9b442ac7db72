"""``harness batch --ray`` against a real local Ray instance (127.0.0.1, 2 CPUs).

One instance, started in a process of its own by a fixture shared by the tests here
and stopped after them; each batch is a driver process of its own that joins it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from tests.batch.conftest import (
    PYTHONPATH,
    EditModel,
    assert_own_diffs,
    assert_six_done,
    batch_argv,
    batch_env,
    find_session,
    read_results,
    run_holding,
    serve,
    write_tasks,
)
from tests.scripted import ScriptedModel

# Ray puts the machine's address where it is given 127.0.0.1, unless it believes
# it is on a laptop: then everything stays on loopback.
# The drivers here are not the head's children, so they would not have the token of
# a cluster that no other machine can reach anyway.
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled"}


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    head = subprocess.Popen(
        [sys.executable, "-m", "tests.batch._ray_head"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": PYTHONPATH, **LOOPBACK},
        text=True,
    )
    try:
        assert head.stdout is not None
        address = head.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), address
        yield address
    finally:
        assert head.stdin is not None
        head.stdin.close()
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()


def started_at(proc: psutil.Process) -> float:
    """When *proc* started, on the wall clock, to the kernel's tick (psutil's
    ``create_time`` counts from the boot time in whole seconds)."""
    with open(f"/proc/{proc.pid}/stat", "rb") as f:
        ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time() - since_boot + ticks / os.sysconf("SC_CLK_TCK")


def ray_worker(task_id: str) -> psutil.Process:
    """The Ray worker running the batch task *task_id* (Ray titles it by the task)."""
    for proc in psutil.process_iter(["cmdline"]):
        if (proc.info["cmdline"] or [""])[0] == f"ray::harness-batch:{task_id}":
            return proc
    raise LookupError(f"no Ray worker runs {task_id}")


def ray_env(home: Path) -> dict[str, str]:
    return {**batch_env(home), **LOOPBACK}


def test_six_tasks_on_ray(
    ray_address: str,
    tmp_path: Path,
    repo: Path,
    home: Path,
    edit_model: tuple[EditModel, ScriptedModel],
) -> None:
    _, model = edit_model
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo)
    out = tmp_path / "out"
    p = subprocess.run(
        batch_argv(tasks, out, model, "--ray", ray_address),
        env=ray_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert_six_done(out, repo)
    docs = [json.loads(x) for x in p.stdout.splitlines()]
    started = [d for d in docs if d["type"] == "engine_started"]
    assert len(started) == 1
    assert started[0]["engine"] == f"Ray on {ray_address}"


def test_a_killed_ray_worker_is_retried(
    ray_address: str, tmp_path: Path, repo: Path, home: Path
) -> None:
    script = EditModel(hold=("t2",))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    sessions: list[psutil.Process] = []

    def kill_the_worker() -> None:
        session = find_session("/t2/ws")
        # forked by the node's task server, for the Ray worker running the task
        server = session.parent()
        assert server is not None
        assert server.cmdline()[1:3] == ["-m", "harness.supervisor._zygote"]
        ray_worker("t2").kill()
        session.wait(10)  # the session dies with the worker that ran it
        sessions.append(session)

    with serve(script) as model:
        argv = batch_argv(tasks, out, model, "--ray", ray_address, "--retries", "2")
        run_holding(script, argv, ray_env(home), "t2", kill_the_worker)
    [session] = sessions
    results = read_results(out)
    assert results["t2"]["ok"] is True
    assert results["t2"]["attempts"] == 2
    assert results["t1"]["attempts"] == 1
    assert_own_diffs(out, ("t1", "t2"))
    assert not psutil.pid_exists(session.pid) or session.status() == psutil.STATUS_ZOMBIE


def test_sigint_stops_the_ray_tasks(
    ray_address: str, tmp_path: Path, repo: Path, home: Path
) -> None:
    script = EditModel(hold=("t1", "t2"))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--ray", ray_address),
            env=ray_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            script.wait_asked("t1", timeout=120)
            script.wait_asked("t2", timeout=120)
            sessions = [find_session(f"/{i}/ws") for i in ("t1", "t2")]
            trees = [s.children(recursive=True) for s in sessions]
            driver.send_signal(signal.SIGINT)
            stdout, stderr = driver.communicate(timeout=120)
        finally:
            script.release()
            driver.kill()
    assert driver.returncode == 130, stdout + stderr
    everything = [*sessions, *(p for tree in trees for p in tree)]
    _, alive = psutil.wait_procs(everything, timeout=10)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    assert not (out / "results.jsonl").exists()
    docs = [json.loads(x) for x in stdout.splitlines()]
    assert sorted(d["id"] for d in docs if d["type"] == "task_interrupted") == ["t1", "t2"]


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


def test_a_killed_driver_leaves_no_task_server_or_session(
    ray_address: str, tmp_path: Path, repo: Path, home: Path
) -> None:
    script = EditModel(hold=("t1", "t2"))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--ray", ray_address),
            env=ray_env(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            script.wait_asked("t1", timeout=120)
            script.wait_asked("t2", timeout=120)
            sessions = [find_session(f"/{i}/ws") for i in ("t1", "t2")]
            server = sessions[0].parent()
            assert server is not None
            trees = [s.children(recursive=True) for s in sessions]
            driver.kill()
            driver.wait(10)
            # Ray ends a dead driver's workers; the node's task server leaves with the
            # last of them, and every session with its worker
            everything = [server, *sessions, *(p for tree in trees for p in tree)]
            _, alive = psutil.wait_procs(everything, timeout=60)
        finally:
            script.release()
            driver.kill()
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []


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
    """The first process under *pid* whose command line *match* accepts."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for proc in psutil.Process(pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if match(proc.cmdline()):
                    return proc
        time.sleep(0.02)
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
