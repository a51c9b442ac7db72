"""``harness batch TASKS.jsonl``: the command line of a batch run (:mod:`harness.batch`).

Exit status: 0 every task has a result and all succeeded; 1 a task failed or a line
of the task file was not a task; 2 a usage error (bad flag, unreadable task file,
Ray missing); 130 interrupted (the tasks that finished are written; run the same
command again to go on).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING

from harness.words import PERMISSION_MODES, PROVIDERS

if TYPE_CHECKING:
    from harness.batch import BatchSettings, Progress

__all__ = ["batch_main", "build_batch_parser"]


def _whole(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value:g}")
    return value


def build_batch_parser() -> argparse.ArgumentParser:
    """The command line of ``harness batch``."""
    p = argparse.ArgumentParser(
        prog="harness batch",
        description="Run a headless session for every task of a JSON-lines file.",
        epilog="exit status: 0 all succeeded, 1 a task failed or a line was bad, "
        "2 usage error, 130 interrupted (run again to resume)",
    )
    p.add_argument("tasks", nargs="?", metavar="TASKS.jsonl", help="one JSON task a line")
    run = p.add_argument_group("the batch")
    run.add_argument("--out", default="batch-out", metavar="DIR", help="default: batch-out/")
    run.add_argument(
        "--concurrency",
        type=_whole(1),
        default=4,
        metavar="N",
        help="tasks at once (default 4; with a local Ray, the CPUs it declares)",
    )
    run.add_argument(
        "--ray",
        nargs="?",
        const="",
        metavar="ADDRESS",
        help="run on Ray: no ADDRESS starts a local instance for the run; 'auto' or "
        "ray://host:10001 joins a cluster",
    )
    run.add_argument(
        "--retries",
        type=_whole(0),
        default=1,
        metavar="N",
        help="attempts after the first when a task's session crashes or hangs (default 1)",
    )
    run.add_argument(
        "--task-timeout", type=_seconds, metavar="S", help="seconds an attempt may take"
    )
    run.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="text (a live display) or json (one event a line)",
    )
    run.add_argument("--verify", metavar="CMD", help="a check run when a task's model is done")
    run.add_argument("--max-turns", type=_whole(1), metavar="N", help="model requests per task")
    model = p.add_argument_group("the model (for every task without its own)")
    model.add_argument("--provider", choices=PROVIDERS)
    model.add_argument("--model", action="append", metavar="NAME")
    model.add_argument("--base-url", metavar="URL")
    model.add_argument("--tool-protocol", choices=("native", "text", "auto"))
    model.add_argument("--temperature", metavar="T")
    model.add_argument("--seed", metavar="N")
    perms = p.add_argument_group("permissions (for every task)")
    perms.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        help="default deny: nobody is there to ask, so only --allow rules permit changes",
    )
    perms.add_argument("--allow", action="append", default=[], metavar="RULE")
    perms.add_argument("--deny", action="append", default=[], metavar="RULE")
    perms.add_argument("--sandbox", choices=("off", "workspace-write"))
    return p


def _settings(args: argparse.Namespace) -> BatchSettings:
    from harness.batch import BatchSettings

    flags: list[str] = ["--permission-mode", args.permission_mode or "deny"]
    for name in (
        "provider",
        "base_url",
        "tool_protocol",
        "temperature",
        "seed",
        "max_turns",
        "verify",
        "sandbox",
    ):
        value = getattr(args, name)
        if value is not None:
            flags += [f"--{name.replace('_', '-')}", str(value)]
    for rule in args.allow:
        flags += ["--allow", rule]
    for rule in args.deny:
        flags += ["--deny", rule]
    models = tuple(m.strip() for arg in args.model or () for m in arg.split(",") if m.strip())
    return BatchSettings(
        flags=tuple(flags),
        models=models,
        retries=args.retries,
        task_timeout=args.task_timeout,
    )


def batch_main(
    argv: Sequence[str],
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run ``harness batch`` with *argv* (the words after ``batch``); the exit status."""
    # the engines (and trio) load once the command line is read: ``--help`` and a usage
    # error need none of them, and a local driver's task server starts before them
    from harness.batch import JsonProgress, ResultsFile, TaskOutcome, read_tasks, run_batch

    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if environ is None:
        # The tasks' sessions need the keys, but no command a task runs may read them in
        # this process's environment (/proc/PID/environ): they are taken out of it, and
        # each session is handed them in the environment it starts with.
        from harness.keys import held_items, take_keys

        take_keys()
        env = {**os.environ, **held_items()}
    else:
        env = dict(environ)
    parser = build_batch_parser()
    args = parser.parse_args(list(argv))
    if args.tasks is None and args.ray and os.path.isfile(args.ray):
        args.tasks, args.ray = args.ray, ""  # `--ray TASKS.jsonl`: no address given
    if args.tasks is None:
        parser.error("the task file is missing: harness batch TASKS.jsonl")
    try:
        tasks, problems = read_tasks(args.tasks)
    except OSError as exc:
        err.write(f"harness batch: cannot read {args.tasks}: {exc.strerror or exc}\n")
        return 2
    progress: Progress
    if args.output_format == "json":
        progress = JsonProgress(out)
    else:
        from rich.console import Console

        from harness.cli._batchview import RichProgress

        progress = RichProgress(Console(file=out, soft_wrap=True))
    for problem in problems:
        progress.note(f"skipped: {problem}")
    if args.permission_mode is None:
        progress.note(
            "permission mode deny: nobody is there to ask, so a task changes only what "
            "--allow rules permit"
        )
    results = ResultsFile(args.out)
    finished = results.finished()
    todo = [t for t in tasks if t.id not in finished]
    settings = _settings(args)
    # skipped: the tasks that already have a result, and the lines that are not tasks
    progress.begin(len(todo), len(tasks) - len(todo) + len(problems))
    run = run_batch(
        todo, settings, results, progress, concurrency=args.concurrency, ray=args.ray, environ=env
    )
    progress.end()
    if run.error is not None:
        err.write(f"harness batch: {run.error}\n")
        return 2
    if run.interrupted:
        return 130
    previous = [TaskOutcome.from_line(line) for line in finished.values()]
    failed = any(not o.ok for o in [*run.outcomes, *previous])
    return 1 if failed or problems else 0
