"""Batch runs: a headless session for every task of a JSON-lines file.

``harness batch TASKS.jsonl`` runs each task in its own copy of its workspace, as a
child ``harness -p`` process, at most ``--concurrency`` at once on this machine, or as
Ray tasks across a cluster (``--ray``); each task's events, diff and result line land
in ``--out``. Ray is imported only by :func:`harness.batch._ray.run_ray` and the Ray
workers it starts.
"""

from harness.batch._child import Attempt, Stop, run_child
from harness.batch._command import batch_main, build_batch_parser
from harness.batch._progress import JsonProgress, Progress, RichProgress
from harness.batch._results import ResultsFile
from harness.batch._run import BatchSettings, TaskOutcome, child_argv, run_task
from harness.batch._tasks import Task, TaskLineError, parse_task, read_tasks
from harness.batch._workspace import GitFailed, TaskCopy, diff_copy, make_copy, remove_copy

__all__ = [
    "Attempt",
    "BatchSettings",
    "GitFailed",
    "JsonProgress",
    "Progress",
    "ResultsFile",
    "RichProgress",
    "Stop",
    "Task",
    "TaskCopy",
    "TaskLineError",
    "TaskOutcome",
    "batch_main",
    "build_batch_parser",
    "child_argv",
    "diff_copy",
    "make_copy",
    "parse_task",
    "read_tasks",
    "remove_copy",
    "run_child",
    "run_task",
]
