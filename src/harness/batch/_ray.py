"""The Ray engine: each task a Ray task on some node of a cluster.

Only the batch driver and Ray's own workers import :mod:`ray` (lazily, here); a
normal harness run never does. A task declares one CPU and ``max_retries`` (Ray runs
it again when its worker or node is lost); inside, :func:`harness.batch._run.run_task`
retries a crashed session as the local engine does. The sessions are forked from one task
server per node and run, shared by the run's Ray workers there and kept for every task they
run: joined (or started) as each worker starts on a joined cluster (Ray's
``worker_process_setup_hook``), with its first task on a local instance, whose workers are
all started before the job (see :mod:`harness.batch._barrier`). What a task produced
(events, diff, stderr, result line) comes back to the driver, which writes it to ``DIR``.
The driver waits in ``ray.wait`` with no timeout; a thread cancels the tasks when a stop
comes.

Workspaces reach the nodes two ways: a ``repo`` URL is cloned on the node; a local
``workspace`` is staged (a repository as a git bundle of its ``ref``, a plain folder
as a copy) into one folder, shipped to a cluster as the job's runtime environment
``working_dir`` (at most :data:`STAGE_LIMIT` bytes in all).

A local instance's job has no runtime environment: its workers are this machine's and
inherit this process's environment, so the staged folder is named to them by its path
and the forwarded variables are already theirs. Ray starts a job that has a runtime
environment workers of its own, beside the idle ones it starts with the instance for the
default one; on a small machine those were seconds of the start-up, and the idle
workers' start was spent for nothing.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from harness.batch import _barrier, _scratch
from harness.batch._child import Flag, Stop, start_task_server
from harness.batch._progress import Progress
from harness.batch._results import ResultsFile
from harness.batch._run import BatchSettings, TaskOutcome, clear_task_dir, run_task
from harness.batch._tasks import Task
from harness.batch._workspace import STAGED_BRANCH, folder_size, stage_workspace
from harness.errors import ConfigError
from harness.keys import held_items, is_secret_name, is_secret_value, take_keys

__all__ = ["STAGE_LIMIT", "RayMissing", "RayRun", "run_on_node", "run_ray", "warm_worker"]

STAGE_LIMIT = 100 * 1024 * 1024
"""Bytes of local workspaces (staged) a Ray run may ship; above it, give a ``repo``."""
#: Seconds a local instance's workers have to start before the job goes on without them.
WORKERS_TIMEOUT = 120.0
#: How often the driver, waiting for a local instance's workers, looks for a stop (s).
STOP_POLL = 0.1

INSTALL_HINT = "pip install 'harness[ray]'"

# Environment a task's session needs on the node as it has it here: harness's own
# settings and where Python finds code; never keys (a cluster's nodes hold their own;
# a local instance's tasks are handed the driver's with the task, never in an
# environment, which /proc/PID/environ shows to any process of the user).
_FORWARD_PREFIXES = ("HARNESS_",)
_FORWARD_NAMES = ("PYTHONPATH",)
#: The run a Ray worker works for (its node's task server is the run's).
RUN_ENV = "HARNESS_BATCH_RUN"
_NOT_FORWARDED = frozenset({"HARNESS_WORKER_TAG", RUN_ENV})


class RayMissing(ConfigError):
    """``--ray`` was asked for but Ray is not installed; the message says how to install it."""


@attrs.frozen
class RayRun:
    """What a Ray run measured beside its outcomes.

    Attributes:
        startup: seconds to start or join the cluster (``ray.init``), and for a local
            instance to have its workers up (:attr:`workers`).
        staged_bytes: bytes of local workspaces staged (shipped in the runtime
            environment when a cluster was joined).
        workers: seconds of :attr:`startup` a local instance took to start its workers
            (0 when a cluster was joined).
    """

    outcomes: list[TaskOutcome]
    startup: float
    staged_bytes: int
    workers: float = 0.0


def _forwarded(environ: Mapping[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in environ.items()
        if (k.startswith(_FORWARD_PREFIXES) or k in _FORWARD_NAMES) and k not in _NOT_FORWARDED
    }


def _secrets(environ: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in environ.items() if is_secret_name(k) or is_secret_value(v)}


def _take_keys() -> dict[str, str]:
    """This worker's environment for the task's sessions: its keys are taken out of the
    process's own (``/proc/PID/environ``, which a task's command could read) and handed
    to the sessions only."""
    take_keys()
    return {**os.environ, **held_items()}


def _stage(tasks: Sequence[Task], folder: Path, *, shipped: bool) -> tuple[dict[str, str], int]:
    """Stage every distinct local (workspace, ref) once: task id -> staged path (relative
    to the shipped ``working_dir``, or absolute for a local instance), and the size.

    Raises:
        ConfigError: *shipped* workspaces over :data:`STAGE_LIMIT`.
    """
    staged: dict[tuple[str, str | None], str] = {}
    where: dict[str, str] = {}
    for task in tasks:
        if task.workspace is None:
            continue
        key = (task.workspace, task.ref)
        if key not in staged:
            path = stage_workspace(task.workspace, task.ref, folder / f"ws{len(staged)}")
            staged[key] = path.name if shipped else str(path)
        where[task.id] = staged[key]
    size = folder_size(folder) if where else 0
    if shipped and size > STAGE_LIMIT:
        raise ConfigError(
            f"the local workspaces come to {size / 2**20:.0f} MiB, over the "
            f"{STAGE_LIMIT // 2**20} MiB Ray may ship in a runtime environment: "
            'give those tasks a "repo" (a git URL the nodes can clone) and a "ref"'
        )
    return where, size


def _node_server(run_id: str) -> None:
    # One task server per node and run, shared by the run's workers there: eight
    # workers starting eight servers (each importing all a session needs) was most of
    # what harness added to a short job on a small machine.
    start_task_server(os.environ, shared=f"harness-batch-{run_id}-{os.getuid()}")


def warm_worker() -> None:
    """Ray's setup hook in each worker of the job: join (or start) the node's task
    server now, so that its imports overlap Ray's own start-up instead of the first
    task's."""
    _take_keys()
    _node_server(os.environ[RUN_ENV])


def run_on_node(
    task_json: dict[str, Any],
    settings_json: dict[str, Any],
    staged: str | None,
    run_id: str,
    keys: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The Ray task: run one task on this node; its outputs as plain data.

    *staged* is the task's staged workspace: inside the job's ``working_dir`` (the
    current folder here), or an absolute path on a local instance; copied again before
    the task touches it. *keys* are the driver's, for
    a local instance (a cluster's node has its own in its environment).
    """
    _interruptible()
    stop = Stop()
    environ = {**_take_keys(), **(keys or {})}
    _node_server(run_id)
    task = Task.from_json(task_json)
    settings = attrs.evolve(BatchSettings.from_json(settings_json), python=sys.executable)
    if staged is not None:
        path = str(Path.cwd() / staged)
        if staged.endswith(".bundle"):
            task = attrs.evolve(task, workspace=None, repo=path, ref=STAGED_BRANCH)
        else:
            task = attrs.evolve(task, workspace=path, ref=None)
    # One folder per run and task on the node: when Ray runs the task again after its
    # worker died, the new attempt finds the count of attempts and the dead one's leftovers.
    # Held while the task runs (harness.batch._scratch): a later task on this node sweeps
    # the folders of runs that were killed with their tasks running.
    run_dir = _scratch.folder(f"{_scratch.PREFIX}{run_id}")
    scratch = run_dir / task.id
    marker = scratch / "attempts"
    try:
        before = int(marker.read_text() or 0)
    except (OSError, ValueError):
        before = 0
    for leftover in ("out", "ws"):
        shutil.rmtree(scratch / leftover, ignore_errors=True)
    scratch.mkdir(parents=True, exist_ok=True)
    _scratch.sweep(keep=run_dir)

    def count(n: int) -> None:
        marker.write_text(str(n))

    try:
        with _scratch.held(scratch), _woken_by_cancel(stop):
            outcome = run_task(
                task,
                settings,
                task_dir=scratch / "out",
                work_dir=scratch / "ws",
                environ=environ,
                stop=stop,
                on_attempt=count,
                first_attempt=before + 1,
            )
        out = scratch / "out"
        return {
            "outcome": attrs.asdict(outcome),
            "events": _read(out / "events.jsonl"),
            "diff": _read(out / "diff.patch").decode("utf-8", "replace"),
            "stderr": _read(out / "stderr.log"),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            run_dir.rmdir()  # the last task of the run on this node


def _interruptible() -> None:
    """Let Ray cancel this task. Ray interrupts a running task with
    ``_thread.interrupt_main()``, which does nothing while SIGINT is ignored, and a Ray
    started from a shell's background job or under ``nohup`` passes an ignored SIGINT on
    to its workers: the task then ran to its end after the batch was stopped (measured:
    ``test_sigint_stops_the_ray_tasks`` failed in every ``nohup make test &``). So an
    ignored SIGINT gets Python's own handler back."""
    with contextlib.suppress(ValueError):  # not the main thread: nothing to restore here
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def _woken_by_cancel(stop: Stop) -> Iterator[None]:
    """Make Ray's cancel reach a task that waits in ``select`` for its session.

    ``_thread.interrupt_main()`` raises in the main thread only when it next runs Python
    code; a task waiting on its session's output would first wait for the model's reply
    (Ctrl+C on a batch whose model was slow took a minute). The interrupt also writes
    to the signal wakeup descriptor, so a thread reading it sets *stop*'s soft flag,
    which the wait watches: it returns, and the interrupt is raised.
    """
    try:
        read, write = os.pipe2(os.O_CLOEXEC)
        os.set_blocking(write, False)
        previous = signal.set_wakeup_fd(write)
    except ValueError:  # not the main thread: Ray's interrupt cannot reach it anyway
        os.close(read)
        os.close(write)
        yield
        return

    def watch() -> None:
        with contextlib.suppress(OSError):
            if os.read(read, 1):
                stop.soft.set()

    watcher = threading.Thread(target=watch, name="ray-cancel-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write)  # the watcher reads the end of the pipe and leaves
        watcher.join()
        os.close(read)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def run_ray(
    tasks: Sequence[Task],
    settings: BatchSettings,
    results: ResultsFile,
    progress: Progress,
    *,
    address: str,
    num_cpus: int | None,
    environ: Mapping[str, str],
    stop: Stop,
) -> RayRun:
    """Run *tasks* as Ray tasks; *address* ``""`` starts a local Ray for the run.

    Synchronous (Ray's API is); *stop* cancels what is still running.

    Raises:
        RayMissing: Ray is not installed.
        ConfigError: the local workspaces are too big to ship.
    """
    try:
        import ray
    except ImportError:
        raise RayMissing(f"--ray needs Ray, an optional extra: {INSTALL_HINT}") from None
    run_id = uuid.uuid4().hex[:12]
    with _scratch.scratch("stage-") as stage_dir:
        where, size = _stage(tasks, stage_dir, shipped=bool(address))
        runtime_env: dict[str, Any] = {}
        env_vars = _forwarded(environ)
        if address:
            env_vars[RUN_ENV] = run_id
            # On a cluster the workers start as the job's tasks come: each worker's task
            # server starts with it, its imports overlapping Ray's start of the worker.
            runtime_env["worker_process_setup_hook"] = f"{__name__}.{warm_worker.__name__}"
            if where:
                runtime_env["working_dir"] = str(stage_dir)
                # a staged folder is the task's workspace whole, ignored files too
                os.environ.setdefault("RAY_RUNTIME_ENV_IGNORE_GITIGNORE", "1")
        else:
            # a local instance's workers inherit this process's environment: only what
            # differs from it needs a runtime environment (and workers of its own)
            env_vars = {k: v for k, v in env_vars.items() if os.environ.get(k) != v}
        if env_vars:
            runtime_env["env_vars"] = env_vars
        init: dict[str, Any] = {
            "address": address or "local",
            "runtime_env": runtime_env or None,
            "include_dashboard": False,
            "logging_level": "ERROR",
            "log_to_driver": False,
        }
        if not address:
            init["num_cpus"] = num_cpus
        # Ray's driver prints the errors it hears from the cluster ("(raylet) A worker
        # died ...") to sys.stdout, whatever log_to_driver says; the progress holds its
        # own stream, so those go to stderr with the run's other messages. Only Python's
        # sys.stdout is moved, never descriptor 1: Ray's processes inherit what they did.
        with contextlib.redirect_stdout(sys.stderr):
            t0 = time.monotonic()
            try:
                ray.init(**init)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where_to = address or "a local instance"
                raise ConfigError(f"could not start or join Ray at {where_to}: {exc}") from None
            try:
                workers = 0.0
                if not address and tasks:
                    t1 = time.monotonic()
                    _start_workers(ray, min(num_cpus or os.cpu_count() or 1, len(tasks)), stop)
                    workers = time.monotonic() - t1
                startup = time.monotonic() - t0
                if stop.soft.is_set():  # stopped while the workers started: no task ran
                    return RayRun(outcomes=[], startup=startup, staged_bytes=size, workers=workers)
                if address:
                    where_to = address
                else:
                    where_to = (
                        f"a local instance ({num_cpus or os.cpu_count()} CPUs, workers started)"
                    )
                progress.engine_started(f"Ray on {where_to}", startup)
                keys = {} if address else _secrets(environ)
                outcomes = _drive(
                    ray, tasks, settings, results, progress, where, run_id, stop, keys
                )
            finally:
                ray.shutdown()
            return RayRun(outcomes=outcomes, startup=startup, staged_bytes=size, workers=workers)


def _start_workers(ray: Any, count: int, stop: Stop) -> None:
    """Have a local instance's *count* workers (the job's runtime environment) up.

    Ray starts them only as tasks come, a few at a time; this holds *count* tasks
    (:func:`harness.batch._barrier.hold`) until each has a worker of its own.
    """
    ray.cloudpickle.register_pickle_by_value(_barrier)
    hold = ray.remote(num_cpus=1, max_retries=0)(_barrier.hold)
    folder = tempfile.mkdtemp(prefix="harness-batch-workers-")
    try:
        refs = [hold.remote(folder, count, WORKERS_TIMEOUT) for _ in range(count)]
        with _Canceller(ray, refs, stop):
            left = list(refs)
            # A hold that already runs does not hear a soft cancel (a Ray worker
            # ignores SIGINT, and the hold imports nothing that would give it back)
            # and would wait out WORKERS_TIMEOUT for a worker that is not coming. No
            # task of the job has run yet, so a stop stops the waiting; the instance's
            # shutdown then ends the workers.
            while left and not stop.soft.is_set():
                _, left = ray.wait(left, num_returns=len(left), timeout=STOP_POLL)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Canceller:
    """Cancels Ray tasks when a stop comes, from a thread of its own, so that the
    driver can wait in ``ray.wait`` with no timeout: a soft stop cancels the tasks
    still pending (Ray interrupts a running one), a hard stop kills their workers."""

    def __init__(self, ray: Any, refs: Iterable[Any], stop: Stop) -> None:
        self._ray = ray
        self._refs = list(refs)
        self._stop = stop
        self._done = Flag()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="ray-canceller", daemon=True)

    def __enter__(self) -> _Canceller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def finished(self, ref: Any) -> None:
        """*ref* is done: no stop will cancel it."""
        with self._lock:
            self._refs.remove(ref)

    def _cancel(self, force: bool) -> None:
        with self._lock:
            refs = list(self._refs)
        for ref in refs:
            self._ray.cancel(ref, force=force)

    def _run(self) -> None:
        soft, hard = self._stop.soft, self._stop.hard
        with selectors.DefaultSelector() as sel:
            sel.register(soft.fileno(), selectors.EVENT_READ, soft)
            sel.register(hard.fileno(), selectors.EVENT_READ, hard)
            sel.register(self._done.fileno(), selectors.EVENT_READ, self._done)
            while True:
                for key, _ in sel.select():
                    if key.data is self._done:
                        return
                    sel.unregister(key.fd)
                    self._cancel(force=key.data is hard)


def _drive(
    ray: Any,
    tasks: Sequence[Task],
    settings: BatchSettings,
    results: ResultsFile,
    progress: Progress,
    where: dict[str, str],
    run_id: str,
    stop: Stop,
    keys: dict[str, str],
) -> list[TaskOutcome]:
    remote = ray.remote(num_cpus=1, max_retries=settings.retries, retry_exceptions=False)(
        run_on_node
    )
    pending: dict[Any, Task] = {}
    for task in tasks:
        clear_task_dir(results.task_dir(task.id))
        ref = remote.options(name=f"harness-batch:{task.id}").remote(
            task.to_json(), settings.to_json(), where.get(task.id), run_id, keys
        )
        pending[ref] = task
        progress.task_started(task.id, 1)
    outcomes: list[TaskOutcome] = []
    with _Canceller(ray, pending, stop) as canceller:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                task = pending.pop(ref)
                canceller.finished(ref)
                outcome = _collect(ray, ref, task, results)
                if not outcome.interrupted:
                    results.append(outcome.line())
                outcomes.append(outcome)
                progress.task_finished(outcome)
    return outcomes


def _collect(ray: Any, ref: Any, task: Task, results: ResultsFile) -> TaskOutcome:
    try:
        out = ray.get(ref)
    except ray.exceptions.TaskCancelledError:
        return TaskOutcome(id=task.id, ok=False, reason="interrupted", interrupted=True)
    except ray.exceptions.RayError as exc:
        first = str(exc).strip().splitlines()
        return TaskOutcome(
            id=task.id,
            ok=False,
            reason="lost",
            text=f"Ray could not run the task: {first[0] if first else type(exc).__name__}",
            attempts=0,
        )
    results.write_outputs(task.id, out["events"], out["diff"], out["stderr"])
    data = dict(out["outcome"])
    data["usage"] = {str(k): int(v) for k, v in data.get("usage", {}).items()}
    return TaskOutcome(**data)
