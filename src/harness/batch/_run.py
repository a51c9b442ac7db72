"""One task from start to result, on whatever machine runs it: copy, attempts, diff.

The same function serves both engines: the local engine calls it in a thread per
task, the Ray engine inside a Ray task on a node. It writes ``events.jsonl``,
``stderr.log`` and ``diff.patch`` into the task's folder and returns the result line.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from harness.batch._child import Attempt, Stop, run_child
from harness.batch._tasks import Task
from harness.batch._workspace import TaskCopy, diff_copy, make_copy, remove_copy
from harness.errors import ConfigError

__all__ = ["BatchSettings", "TaskOutcome", "child_argv", "run_task"]


@attrs.frozen
class BatchSettings:
    """What every task of a batch shares.

    Attributes:
        flags: headless flags for every task (provider, permissions ...), without ``--model``.
        models: the ``--model`` values, unless a task names its own.
        retries: attempts after the first when a task's process crashes, hangs or is killed.
        task_timeout: seconds an attempt may take (``None``: no limit).
        grace: seconds a stopped task gets to end its run before it is killed.
        python: the interpreter that runs ``-m harness``.
    """

    flags: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    retries: int = 1
    task_timeout: float | None = None
    grace: float = 5.0
    python: str = sys.executable

    def to_json(self) -> dict[str, Any]:
        """As plain data (how the settings travel to a Ray node)."""
        return attrs.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BatchSettings:
        """The inverse of :meth:`to_json`."""
        data = dict(data)
        data["flags"] = tuple(data["flags"])
        data["models"] = tuple(data["models"])
        return cls(**data)


@attrs.frozen
class TaskOutcome:
    """How a task ended: its result line, or ``interrupted`` (no line: it runs again)."""

    id: str
    ok: bool
    reason: str
    text: str = ""
    turns: int = 0
    usage: dict[str, int] = attrs.field(factory=dict)
    duration: float = 0.0
    attempts: int = 0
    started: float = 0.0
    interrupted: bool = False

    def line(self) -> dict[str, Any]:
        """The ``results.jsonl`` line."""
        return {
            "id": self.id,
            "ok": self.ok,
            "reason": self.reason,
            "text": self.text,
            "turns": self.turns,
            "usage": self.usage,
            "duration": round(self.duration, 3),
            "attempts": self.attempts,
            "started": round(self.started, 3),
        }

    @classmethod
    def from_line(cls, line: dict[str, Any]) -> TaskOutcome:
        """The inverse of :meth:`line`."""
        return cls(**{k: v for k, v in line.items() if k in _OUTCOME_FIELDS})


_OUTCOME_FIELDS = frozenset(a.name for a in attrs.fields(TaskOutcome))


def child_argv(task: Task, settings: BatchSettings, workspace: str) -> list[str]:
    """The command line of one task's headless session (the prompt goes on stdin)."""
    # the task's copy is gone after the run: a session log of it could not be resumed, and
    # its events are kept in the task's folder of the output instead
    argv = [settings.python, "-m", "harness", "-p", "-", "--output-format", "stream-json"]
    argv += ["--no-session-persistence"]
    argv += ["--workspace", workspace, *settings.flags]
    for model in (task.model,) if task.model else settings.models:
        argv += ["--model", model]
    # later flags win: a task's own choices over the command line's
    if task.provider:
        argv += ["--provider", task.provider]
    if task.max_turns is not None:
        argv += ["--max-turns", str(task.max_turns)]
    if task.verify:
        argv += ["--verify", task.verify]
    return argv


def _failure(attempt: Attempt) -> tuple[str, str]:
    if attempt.timed_out:
        return "timeout", "the task ran past its timeout and was killed"
    status = attempt.status
    how = f"signal {-status}" if status is not None and status < 0 else f"status {status}"
    text = f"the session ended without a result ({how})"
    if attempt.stderr_tail:
        text += ": " + attempt.stderr_tail.splitlines()[-1][:500]
    return "crashed", text


def run_task(
    task: Task,
    settings: BatchSettings,
    *,
    task_dir: Path,
    work_dir: Path,
    environ: Mapping[str, str],
    stop: Stop | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    on_attempt: Callable[[int], None] | None = None,
    first_attempt: int = 1,
) -> TaskOutcome:
    """Run *task* to its end, retrying a crashed or hung session.

    Each attempt starts from a fresh copy at *work_dir* (removed afterwards); the
    events, stderr and the diff of the last attempt land in *task_dir*.
    """
    stop = stop or Stop()
    started, t0 = time.time(), time.monotonic()
    task_dir.mkdir(parents=True, exist_ok=True)
    attempts = first_attempt - 1
    attempt: Attempt | None = None
    copy: TaskCopy | None = None
    try:
        while True:
            attempts += 1
            if on_attempt is not None:
                on_attempt(attempts)
            remove_copy(work_dir)
            try:
                copy = make_copy(task, work_dir)
            except (ConfigError, OSError) as exc:
                return TaskOutcome(
                    id=task.id,
                    ok=False,
                    reason="workspace",
                    text=f"could not copy the workspace: {exc}",
                    duration=time.monotonic() - t0,
                    attempts=attempts,
                    started=started,
                )
            attempt = run_child(
                child_argv(task, settings, copy.path),
                prompt=task.prompt,
                cwd=copy.path,
                environ=environ,
                events_path=str(task_dir / "events.jsonl"),
                stderr_path=str(task_dir / "stderr.log"),
                timeout=settings.task_timeout,
                stop=stop,
                on_event=on_event,
                grace=settings.grace,
            )
            result = attempt.result
            stopped = attempt.interrupted or stop.soft.is_set()
            if stopped and (result is None or result.get("reason") == "cancelled"):
                return TaskOutcome(id=task.id, ok=False, reason="interrupted", interrupted=True)
            if result is not None or attempts > settings.retries:
                break
        (task_dir / "diff.patch").write_text(diff_copy(copy), encoding="utf-8")
    except (ConfigError, OSError) as exc:
        return TaskOutcome(
            id=task.id,
            ok=False,
            reason="workspace",
            text=f"could not diff the workspace: {exc}",
            duration=time.monotonic() - t0,
            attempts=attempts,
            started=started,
        )
    finally:
        remove_copy(work_dir)
    if result is None:
        reason, text = _failure(attempt)
        return TaskOutcome(
            id=task.id,
            ok=False,
            reason=reason,
            text=text,
            duration=time.monotonic() - t0,
            attempts=attempts,
            started=started,
        )
    usage = result.get("usage") or {}
    return TaskOutcome(
        id=task.id,
        ok=bool(result.get("ok")),
        reason=str(result.get("reason", "")),
        text=str(result.get("text", "")),
        turns=int(result.get("turns", 0)),
        usage={str(k): int(v) for k, v in usage.items()},
        duration=time.monotonic() - t0,
        attempts=attempts,
        started=started,
    )


def clear_task_dir(task_dir: Path) -> None:
    """Forget a previous unfinished run of a task (its partial events and diff)."""
    shutil.rmtree(task_dir, ignore_errors=True)
