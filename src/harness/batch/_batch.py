"""A whole batch: the engine chosen, Ctrl+C turned into a stop, the outcomes."""

from __future__ import annotations

import functools
import signal
from collections.abc import Mapping, Sequence

import attrs
import trio

from harness.batch._child import Stop
from harness.batch._local import run_local
from harness.batch._progress import Progress
from harness.batch._results import ResultsFile
from harness.batch._run import BatchSettings, TaskOutcome
from harness.batch._tasks import Task
from harness.errors import ConfigError

__all__ = ["BatchRun", "run_batch"]


@attrs.frozen
class BatchRun:
    """How a batch ended.

    Attributes:
        outcomes: the tasks that ended in this run (interrupted ones included).
        interrupted: Ctrl+C (or SIGTERM) stopped it.
        error: why the engine could not run at all (Ray missing, workspaces too big).
    """

    outcomes: list[TaskOutcome]
    interrupted: bool = False
    error: ConfigError | None = None


def run_batch(
    tasks: Sequence[Task],
    settings: BatchSettings,
    results: ResultsFile,
    progress: Progress,
    *,
    concurrency: int,
    ray: str | None,
    environ: Mapping[str, str],
) -> BatchRun:
    """Run *tasks* on this machine (*ray* ``None``) or on Ray (``""``: a local instance).

    The first SIGINT or SIGTERM asks every running task to end, the second kills them.
    """
    return trio.run(
        functools.partial(
            _run,
            list(tasks),
            settings,
            results,
            progress,
            concurrency=concurrency,
            ray=ray,
            environ=dict(environ),
        )
    )


async def _run(
    tasks: list[Task],
    settings: BatchSettings,
    results: ResultsFile,
    progress: Progress,
    *,
    concurrency: int,
    ray: str | None,
    environ: dict[str, str],
) -> BatchRun:
    stop = Stop()
    error: ConfigError | None = None
    outcomes: list[TaskOutcome] = []
    async with trio.open_nursery() as nursery:

        async def on_signal() -> None:
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    if not stop.soft.is_set():
                        progress.note("stopping: running tasks are asked to end (again: kill)")
                        stop.soft.set()
                    else:
                        stop.hard.set()

        nursery.start_soon(on_signal)
        if ray is None:
            outcomes = await run_local(
                tasks,
                settings,
                results,
                progress,
                concurrency=concurrency,
                environ=environ,
                stop=stop,
            )
        else:
            from harness.batch._ray import run_ray

            run = functools.partial(
                run_ray,
                tasks,
                settings,
                results,
                progress,
                address=ray,
                num_cpus=concurrency,
                environ=environ,
                stop=stop,
            )
            try:
                outcomes = (await trio.to_thread.run_sync(run)).outcomes
            except ConfigError as exc:
                error = exc
        nursery.cancel_scope.cancel()
    return BatchRun(outcomes=outcomes, interrupted=stop.soft.is_set(), error=error)
