"""The local engine: up to N tasks at once on this machine, each a child session."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import trio

from harness.batch._child import Stop, start_task_server, stop_task_server
from harness.batch._progress import Progress
from harness.batch._results import ResultsFile
from harness.batch._run import BatchSettings, TaskOutcome, clear_task_dir, run_task
from harness.batch._scratch import scratch
from harness.batch._tasks import Task

__all__ = ["run_local"]


async def run_local(
    tasks: Sequence[Task],
    settings: BatchSettings,
    results: ResultsFile,
    progress: Progress,
    *,
    concurrency: int,
    environ: Mapping[str, str],
    stop: Stop,
) -> list[TaskOutcome]:
    """Run *tasks*, at most *concurrency* at once; each finished one is written as it ends.

    A task is a thread that waits on its session (see :mod:`harness.batch._child`),
    forked from this process's task server; *stop* ends them all. The task copies live
    in a temporary folder removed at the end, and the task server stops.
    """
    # its imports overlap the first tasks' workspace copies
    start_task_server(environ)
    with scratch() as work_root:
        limiter = trio.CapacityLimiter(concurrency)
        outcomes: list[TaskOutcome] = []

        async def one(task: Task) -> None:
            try:
                task_dir = results.task_dir(task.id)
                clear_task_dir(task_dir)
                call = functools.partial(
                    run_task,
                    task,
                    settings,
                    task_dir=task_dir,
                    work_dir=work_root / task.id,
                    environ=environ,
                    stop=stop,
                    on_event=functools.partial(progress.task_event, task.id),
                    on_attempt=functools.partial(progress.task_started, task.id),
                )
                # never abandoned: the thread returns only once its child tree is gone
                outcome = await trio.to_thread.run_sync(call, limiter=trio.CapacityLimiter(1))
            finally:
                limiter.release_on_behalf_of(task.id)
            if not outcome.interrupted:
                results.append(outcome.line())
            outcomes.append(outcome)
            progress.task_finished(outcome)

        try:
            async with trio.open_nursery() as nursery:
                for task in tasks:
                    # slots are taken here, so tasks start in the file's order
                    await limiter.acquire_on_behalf_of(task.id)
                    if stop.soft.is_set():
                        limiter.release_on_behalf_of(task.id)
                        break
                    nursery.start_soon(one, task)
        finally:
            with trio.CancelScope(shield=True):
                # every session has ended: the server leaves, and is reaped here
                await trio.to_thread.run_sync(stop_task_server)
    return outcomes
