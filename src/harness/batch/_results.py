"""``DIR/results.jsonl``: one line per finished task, and what a resumed run skips."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

__all__ = ["ResultsFile"]


class ResultsFile:
    """The results of a batch in *out_dir*; every task's outputs in ``out_dir/<id>/``."""

    def __init__(self, out_dir: str | Path) -> None:
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / "results.jsonl"

    def task_dir(self, task_id: str) -> Path:
        """Where a task's ``events.jsonl`` and ``diff.patch`` go."""
        return self.out_dir / task_id

    def finished(self) -> dict[str, dict[str, Any]]:
        """The result lines written so far, by task id.

        A torn last line (the driver was killed mid-write) is not a result: that task
        runs again.
        """
        done: dict[str, dict[str, Any]] = {}
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return done
        for raw in data.splitlines():
            try:
                line = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(line, dict) and isinstance(line.get("id"), str):
                done[line["id"]] = line
        return done

    def append(self, line: dict[str, Any]) -> None:
        """Add one task's result: a single ``write`` of a whole line, then an fsync."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        data = orjson.dumps(line) + b"\n"
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size and not _ends_with_newline(fd):
                data = b"\n" + data  # after a torn line, start a new one
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def write_outputs(self, task_id: str, events: bytes, diff: str, stderr: bytes) -> None:
        """A task's files, for an engine that ran it elsewhere and sent them back."""
        folder = self.task_dir(task_id)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "events.jsonl").write_bytes(events)
        (folder / "diff.patch").write_text(diff, encoding="utf-8")
        (folder / "stderr.log").write_bytes(stderr)


def _ends_with_newline(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return os.pread(fd, 1, size - 1) == b"\n"
