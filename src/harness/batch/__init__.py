"""Batch runs: a headless session for every task of a JSON-lines file.

Each task runs in its own copy of its workspace, as a headless ``harness -p`` session
forked from a task server (one per driver or Ray worker process), at most
``concurrency`` at once on this machine, or as Ray tasks across a cluster; each
task's events, diff and result line land in the output folder. :func:`run_batch` is
the whole of it (the command line, ``harness batch``, is :mod:`harness.cli`'s). Ray is
imported only by the Ray engine and the Ray workers it starts.

Only the attempt (:mod:`harness.batch._child`) loads with the package, so that a
driver starts its task server (:func:`start_task_server`) before it imports the
rest (and trio): the server's imports and the driver's then overlap.
"""

from typing import TYPE_CHECKING

from harness._lazy import lazy_names as _lazy_names
from harness.batch._child import (
    Attempt,
    Flag,
    Stop,
    run_child,
    start_task_server,
    stop_task_server,
)

__all__ = [
    "Attempt",
    "BatchRun",
    "BatchSettings",
    "Flag",
    "GitFailed",
    "JsonProgress",
    "Progress",
    "ResultsFile",
    "Stop",
    "Task",
    "TaskCopy",
    "TaskLineError",
    "TaskOutcome",
    "child_argv",
    "diff_copy",
    "make_copy",
    "parse_task",
    "read_tasks",
    "remove_copy",
    "run_batch",
    "run_child",
    "run_task",
    "start_task_server",
    "stop_task_server",
    "tokens",
]

if TYPE_CHECKING:
    from harness.batch._batch import BatchRun, run_batch
    from harness.batch._progress import JsonProgress, Progress, tokens
    from harness.batch._results import ResultsFile
    from harness.batch._run import BatchSettings, TaskOutcome, child_argv, run_task
    from harness.batch._tasks import Task, TaskLineError, parse_task, read_tasks
    from harness.batch._workspace import (
        GitFailed,
        TaskCopy,
        diff_copy,
        make_copy,
        remove_copy,
    )

_LAZY = {
    **dict.fromkeys(("BatchRun", "run_batch"), "harness.batch._batch"),
    **dict.fromkeys(("JsonProgress", "Progress", "tokens"), "harness.batch._progress"),
    "ResultsFile": "harness.batch._results",
    **dict.fromkeys(
        ("BatchSettings", "TaskOutcome", "child_argv", "run_task"), "harness.batch._run"
    ),
    **dict.fromkeys(("Task", "TaskLineError", "parse_task", "read_tasks"), "harness.batch._tasks"),
    **dict.fromkeys(
        ("GitFailed", "TaskCopy", "diff_copy", "make_copy", "remove_copy"),
        "harness.batch._workspace",
    ),
}


__getattr__ = _lazy_names(__name__, _LAZY)
