"""The task file: one JSON object a line, each a task for one headless session.

``{"id", "prompt", "workspace": PATH | "repo": GIT_URL, "ref"?, "verify"?, "max_turns"?,
"provider"?, "model"?}``. A relative ``workspace`` is taken from the task file's folder.
A line that is not a task is a :class:`TaskLineError` naming the line; the others run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from harness.errors import ConfigError
from harness.messages import PROVIDERS

__all__ = ["Task", "TaskLineError", "parse_task", "read_tasks"]

# An id names the task's output folder, so it must be one plain path component.
_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_FIELDS = frozenset(
    {"id", "prompt", "workspace", "repo", "ref", "verify", "max_turns", "provider", "model"}
)


class TaskLineError(ConfigError, ValueError):
    """A line of the task file that is not a task; the message names the file and line."""

    def __init__(self, path: str, line: int, problem: str) -> None:
        super().__init__(f"{path} line {line}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


@attrs.frozen
class Task:
    """One task of a batch.

    Attributes:
        id: names its output folder ``DIR/<id>/`` and its result line.
        prompt: what the model is asked.
        workspace: an absolute folder (a git repository or a plain folder), or ``None``.
        repo: a git URL to clone, or ``None`` (exactly one of the two is set).
        ref: the commit, branch or tag to start from (default: the repository's HEAD).
        verify: a shell command run when the model says it is done.
        max_turns: model requests the task may make.
        provider: who answers this task (default: the command line's).
        model: the model for this task (default: the command line's).
        line: the task file's line it came from.
    """

    id: str
    prompt: str
    workspace: str | None = None
    repo: str | None = None
    ref: str | None = None
    verify: str | None = None
    max_turns: int | None = None
    provider: str | None = None
    model: str | None = None
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        """The task as plain data (how it travels to a Ray node)."""
        return attrs.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Task:
        """The inverse of :meth:`to_json`."""
        return cls(**data)


def _text(obj: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise ValueError(f'"{name}" is missing')
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'"{name}" must be a non-empty string')
    return value


def parse_task(text: str, *, line: int, base: Path, path: str = "tasks") -> Task:
    """One task from one line of the file; *base* resolves a relative ``workspace``.

    Raises:
        TaskLineError: the line is not a task (the message says why).
    """
    try:
        obj = json.loads(text)
    except ValueError as exc:
        raise TaskLineError(path, line, f"not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise TaskLineError(path, line, "not a JSON object")
    try:
        unknown = sorted(set(obj) - _FIELDS)
        if unknown:
            raise ValueError(f"unknown field {', '.join(map(repr, unknown))}")
        task_id = _text(obj, "id", required=True)
        assert task_id is not None
        if not _ID.match(task_id):
            raise ValueError(
                f"id {task_id!r} must be letters, digits, '_', '-' or '.' (not first), at most 128"
            )
        prompt = _text(obj, "prompt", required=True)
        assert prompt is not None
        workspace = _text(obj, "workspace")
        repo = _text(obj, "repo")
        if (workspace is None) == (repo is None):
            raise ValueError('give exactly one of "workspace" and "repo"')
        if workspace is not None:
            folder = (base / Path(workspace).expanduser()).resolve()
            if not folder.is_dir():
                raise ValueError(f"workspace {workspace!r} is not a folder")
            workspace = str(folder)
        max_turns = obj.get("max_turns")
        if max_turns is not None and (
            not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1
        ):
            raise ValueError('"max_turns" must be a whole number of at least 1')
        provider = _text(obj, "provider")
        if provider is not None and provider not in PROVIDERS:
            raise ValueError(f"provider {provider!r} is not one of {', '.join(PROVIDERS)}")
        return Task(
            id=task_id,
            prompt=prompt,
            workspace=workspace,
            repo=repo,
            ref=_text(obj, "ref"),
            verify=_text(obj, "verify"),
            max_turns=max_turns,
            provider=provider,
            model=_text(obj, "model"),
            line=line,
        )
    except ValueError as exc:
        raise TaskLineError(path, line, str(exc)) from None


def read_tasks(path: str | Path) -> tuple[list[Task], list[TaskLineError]]:
    """The tasks of the file at *path*, and the lines that are not tasks.

    Blank lines and lines starting with ``#`` are skipped; a second task with an id
    already seen is an error on its line.

    Raises:
        OSError: the file cannot be read.
    """
    file = Path(path)
    base = file.resolve().parent
    tasks: list[Task] = []
    problems: list[TaskLineError] = []
    seen: set[str] = set()
    with file.open(encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            try:
                task = parse_task(text, line=number, base=base, path=str(path))
            except TaskLineError as exc:
                problems.append(exc)
                continue
            if task.id in seen:
                problems.append(TaskLineError(str(path), number, f"id {task.id!r} is repeated"))
                continue
            seen.add(task.id)
            tasks.append(task)
    return tasks, problems
