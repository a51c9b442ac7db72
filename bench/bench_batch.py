"""Batch runs: 16 tasks whose one model answer takes 2 s, locally (8 at once) and on Ray.

The scripted model on loopback holds every answer for 2 s, so the ideal wall time of
16 tasks 8 at a time is two rounds, 4 s; the batch is I/O-bound by design, and what
it costs beyond that is harness's own: starting a session process per task (with its
workers) and copying the workspace. The baseline, in the same run, is one task alone
(concurrency 1): its wall time is one answer plus one task's overhead. Per-task
overhead is from a task's start (``started`` in its result line) to its first model
request, also shown in its parts. Ray's start-up (a local instance declaring 8 CPUs:
``ray.init`` and its workers up) is measured apart, and so is Ray by itself on the same
shape of job (16 tasks that sleep 2 s, its workers started first too): what Ray's own
scheduling costs, beside which harness's cost on Ray shows; and Ray by itself once more
with a folder shipped as the job's ``working_dir``, whose runtime environment has Ray
start workers of the job's own instead of running it on the idle ones it started with
the instance (a local batch has no runtime environment for that reason). The Ray run's
wall time is split into start-up, the job (start-up ended to the last task ended) and
the driver's own start and end (``ray.shutdown`` most of it). CPU is the driver's and
everything it started and reaped (``RUSAGE_CHILDREN``); for the Ray run also by kind of
process, sampled from ``/proc`` (:mod:`bench._census`).

Run: ``python -m bench batch``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.scripted import Reply, ScriptedModel, reply

from bench._census import TASK_COMMANDS, Census

ROOT = Path(__file__).resolve().parents[1]
TASKS = 16
CONCURRENCY = 8
ANSWER = 2.0


class _SlowModel:
    """Answers every task after ``ANSWER`` seconds, noting each task's first request."""

    def __init__(self) -> None:
        self.first: dict[str, float] = {}
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = next(m for m in body["messages"] if m["role"] == "user")["content"]
        task_id = prompt.split()[1].rstrip(":")
        with self._lock:
            self.first.setdefault(task_id, time.time())
        time.sleep(ANSWER)
        return reply(f"done {task_id}")


@dataclasses.dataclass
class _Run:
    wall: float
    lines: list[dict[str, Any]]
    first: dict[str, float]  # task id -> its first model request
    engine: dict[str, Any]  # the engine_started document
    cpu: float  # CPU seconds of the driver and everything it started (and reaped)
    opened: dict[str, float]  # task id -> its session_started event
    census: Census | None  # the driver's process tree, sampled
    began: float  # wall clock as the driver was started


def _batch(
    folder: Path, n: int, more: list[str], env: dict[str, str], census: bool = False
) -> _Run:
    """One batch run; with *census*, its process tree sampled (:class:`Census`)."""
    workspace = folder / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "README").write_text("a workspace\n")
    tasks = folder / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps({"id": f"b{i}", "prompt": f"task b{i}: answer", "workspace": str(workspace)})
            + "\n"
            for i in range(n)
        )
    )
    script = _SlowModel()
    with ScriptedModel([script] * (n * 4)) as model:
        argv = [sys.executable, "-m", "harness", "batch", str(tasks), "--out", str(folder / "out")]
        argv += ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
        argv += ["--output-format", "json", *more]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.time()
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        sampler = Census(proc.pid) if census else None
        if sampler is not None:
            sampler.start()
        stdout, stderr = proc.communicate(timeout=600)
        wall = time.perf_counter() - started
        if sampler is not None:
            sampler.finish()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"batch failed ({proc.returncode}): {stdout[-2000:]}{stderr[-2000:]}")
    lines = [json.loads(x) for x in (folder / "out" / "results.jsonl").read_text().splitlines()]
    docs = [json.loads(x) for x in stdout.splitlines()]
    engine = next((d for d in docs if d["type"] == "engine_started"), {})
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    opened = {}
    for line in lines:
        events = (folder / "out" / line["id"] / "events.jsonl").read_text().splitlines()
        opened[line["id"]] = json.loads(events[0])["ts"]
    return _Run(wall, lines, script.first, engine, cpu, opened, sampler, began)


_RAY_ALONE = """
import os, shutil, sys, tempfile, time
import ray
from harness.batch import _barrier
t0 = time.perf_counter()
ray.init(
    num_cpus={cpus},
    include_dashboard=False,
    logging_level="ERROR",
    log_to_driver=False,
    runtime_env={{"working_dir": sys.argv[1]}} if sys.argv[2] == "shipped" else None,
)
t1 = time.perf_counter()
# the workers up first, as harness batch has them on a local instance
ray.cloudpickle.register_pickle_by_value(_barrier)
hold = ray.remote(num_cpus=1, max_retries=0)(_barrier.hold)
folder = tempfile.mkdtemp()
ray.get([hold.remote(folder, {cpus}, 120.0) for _ in range({cpus})])
shutil.rmtree(folder)
t2 = time.perf_counter()
answer = ray.remote(num_cpus=1)(lambda: time.sleep({answer}))
ray.get([answer.remote() for _ in range({tasks})])
t3 = time.perf_counter()
ray.shutdown()
print(t1 - t0, t2 - t1, t3 - t2)
"""


@dataclasses.dataclass
class _Alone:
    wall: float  # the driver process, start to end
    init: float  # ray.init
    workers: float  # its workers up
    job: float  # the 16 sleeps


def _ray_alone(folder: Path, env: dict[str, str], *, shipped: bool = False) -> _Alone:
    """Ray by itself on the same job: a driver whose 16 tasks each sleep as long as a
    model answer, 8 CPUs declared, its workers started before the job as a batch's are.
    With *shipped*, a small folder goes as the job's ``working_dir`` (as a batch's
    workspace goes to a cluster), so the job's workers are started for that runtime
    environment, not the idle ones Ray starts with the instance (as a local batch's are)."""
    code = _RAY_ALONE.format(cpus=CONCURRENCY, answer=ANSWER, tasks=TASKS)
    workspace = folder / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "README").write_text("a workspace\n")
    started = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", code, str(workspace), "shipped" if shipped else "local"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - started
    if p.returncode != 0:
        raise RuntimeError(f"Ray alone failed ({p.returncode}): {p.stderr[-2000:]}")
    init, workers, job = (float(x) for x in p.stdout.split()[-3:])
    return _Alone(wall, init, workers, job)


def _cpu_rows(run: _Run) -> list[tuple[str, str, str]]:
    """The Ray run's CPU seconds by kind of process (sampled, a lower bound)."""
    assert run.census is not None
    rows = [
        (
            "CPU on Ray by kind of process",
            "",
            f"sampled from /proc every {run.census.interval:.1f} s (the sampler: "
            f"{run.census.own_cpu:.2f} s)",
        )
    ]
    for kind, (count, cpu) in run.census.by_kind().items():
        # a git command mostly starts and ends between two samples
        unseen = ", most end unseen between samples" if kind == TASK_COMMANDS else ""
        rows.append((f"  {kind}", f"{cpu:.2f} s", f"{count} processes{unseen}"))
    return rows


def _overhead(run: _Run) -> float:
    return statistics.median(run.first[x["id"]] - x["started"] for x in run.lines)


def _split(run: _Run) -> str:
    """Start to first request in its two parts: to the session's first event (the
    workspace copied, the session started, its workers up), then to the request."""
    opening = statistics.median(run.opened[x["id"]] - x["started"] for x in run.lines)
    asking = statistics.median(run.first[x["id"]] - run.opened[x["id"]] for x in run.lines)
    return f"{opening:.2f} s to the session's first event + {asking:.2f} s to the request"


def run() -> list[tuple[str, str, str]]:
    """The rows: local and Ray wall times beside the ideal and one task alone."""
    home = tempfile.mkdtemp(prefix="harness-bench-")
    env = {
        **os.environ,
        "HARNESS_HOME": home,
        "PYTHONPATH": str(ROOT),
        # Ray keeps to loopback only when it believes it is on a laptop
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "HARNESS_WORKERS": json.dumps(
            {"model": "harness.actors.model", "tools": "harness.actors.tools"}
        ),
    }
    scratch = Path(tempfile.mkdtemp(prefix="harness-bench-batch-"))
    ideal = TASKS / CONCURRENCY * ANSWER
    one = _batch(scratch / "one", 1, ["--concurrency", "1"], env)
    local = _batch(scratch / "local", TASKS, ["--concurrency", str(CONCURRENCY)], env)
    ray = _batch(
        scratch / "ray", TASKS, ["--ray", "--concurrency", str(CONCURRENCY)], env, census=True
    )
    alone = _ray_alone(scratch / "alone", env)
    shipped = _ray_alone(scratch / "shipped", env, shipped=True)
    alone_work = alone.wall - alone.init - alone.workers
    startup = float(ray.engine.get("startup", 0.0))
    ray_work = ray.wall - startup
    ray_ready = float(ray.engine.get("ts", 0.0))
    ray_first_task = min(x["started"] for x in ray.lines) - ray_ready
    ray_end = max(x["started"] + x["duration"] for x in ray.lines)
    ray_span = ray_end - min(x["started"] for x in ray.lines)
    ray_job = ray_end - ray_ready
    before_init = ray_ready - startup - ray.began
    after_job = ray.wall - (ray_ready - ray.began) - ray_job
    alone_driver = alone.wall - alone.init - alone.workers - alone.job
    cores = os.cpu_count() or 1
    return [
        ("one task alone (baseline)", f"{one.wall:.2f} s", f"one {ANSWER:.0f} s answer"),
        (
            f"local, {TASKS} tasks, {CONCURRENCY} at once",
            f"{local.wall:.2f} s",
            f"{local.wall / ideal:.2f}x the ideal {ideal:.0f} s (goal 1.3x); "
            f"{local.wall / one.wall:.2f}x one task alone",
        ),
        (
            "Ray start-up (local, 8 CPUs)",
            f"{startup:.2f} s",
            "apart from the run: ray.init and its workers up (Ray alone: "
            f"{alone.init:.2f} s + {alone.workers:.2f} s)",
        ),
        (
            "  Ray alone, the job's workers for a working_dir",
            f"{shipped.init + shipped.workers:.2f} s",
            f"{shipped.init:.2f} s + {shipped.workers:.2f} s: the start-up with workers "
            "of the job's own runtime environment, as on a cluster; "
            f"{(shipped.init + shipped.workers) / (alone.init + alone.workers):.2f}x "
            "Ray alone without one",
        ),
        (
            f"Ray, {TASKS} tasks, {CONCURRENCY} CPUs, without start-up",
            f"{ray_work:.2f} s",
            f"{ray_work / ideal:.2f}x the ideal {ideal:.0f} s, the driver's own start and end "
            f"included; {ray_work / one.wall:.2f}x one task alone",
        ),
        (
            f"Ray alone: {TASKS} sleeps of {ANSWER:.0f} s, without start-up",
            f"{alone_work:.2f} s",
            f"{alone_work / ideal:.2f}x the ideal: Ray's own scheduling, its driver's "
            f"start and end (the sleeps alone {alone.job:.2f} s)",
        ),
        (
            "Ray batch beside Ray alone, both without start-up",
            f"{ray_work / alone_work:.2f}x",
            f"{ray_work - alone_work:.2f} s more: harness's own cost on Ray",
        ),
        (
            "Ray job: start-up ended to last task ended",
            f"{ray_job:.2f} s",
            f"{ray_job / ideal:.2f}x the ideal {ideal:.0f} s (goal 1.5x); Ray alone's "
            f"sleeps {alone.job:.2f} s",
        ),
        (
            "Ray: the driver's own start and end",
            f"{before_init + after_job:.2f} s",
            f"{before_init:.2f} s before ray.init (interpreter, imports, staging), "
            f"{after_job:.2f} s after the last task (ray.shutdown, exit); "
            f"Ray alone's driver {alone_driver:.2f} s",
        ),
        (
            "Ray: ready to first task running",
            f"{ray_first_task:.2f} s",
            "harness's own: the first task on each worker starts its task server",
        ),
        (
            "Ray: first task start to last task end",
            f"{ray_span:.2f} s",
            f"{ray_span / ideal:.2f}x the ideal {ideal:.0f} s",
        ),
        (
            "per-task overhead, start to first model request",
            f"{_overhead(local):.2f} s local",
            f"{_overhead(ray):.2f} s on Ray; {_overhead(one):.2f} s for one task alone",
        ),
        ("  local, in parts", "", _split(local)),
        ("  one task alone, in parts", "", _split(one)),
        ("  Ray, in parts", "", _split(ray)),
        (
            "CPU, driver and all it started",
            f"{one.cpu:.2f} s one task",
            f"{local.cpu:.2f} s local {TASKS} tasks, of the {local.wall * cores:.1f} s "
            f"{cores} cores had in {local.wall:.1f} s; Ray {TASKS} tasks {ray.cpu:.2f} s "
            "(only what Ray's processes reaped)",
        ),
        *_cpu_rows(ray),
        (
            "CPU per task beyond the first",
            f"{(local.cpu - one.cpu) / (TASKS - 1):.2f} s local",
            "the driver's and task server's own start counted once, in one task alone",
        ),
    ]
