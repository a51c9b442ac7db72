"""What an engine tells whoever watches a batch, and the JSON-lines watcher for machines.

Every method may be called from any thread (the local engine reports events from the
thread that runs each task). The live display for people is the command line's
(``harness.cli``), the one place that draws on the screen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO, Any, Protocol

import orjson

from harness.batch._run import TaskOutcome

__all__ = ["JsonProgress", "Progress", "tokens"]


class Progress(Protocol):
    """What an engine tells whoever watches the batch."""

    def note(self, text: str) -> None:
        """A line of information (the permission mode, the engine, a skipped line)."""

    def begin(self, total: int, skipped: int) -> None:
        """The run starts: *total* tasks to run, *skipped* already have a result."""

    def engine_started(self, engine: str, startup: float) -> None:
        """The engine is ready (for Ray: the cluster joined or started, in *startup* s)."""

    def task_started(self, task_id: str, attempt: int) -> None:
        """An attempt at a task started (attempt 2 and on are retries)."""

    def task_event(self, task_id: str, event: dict[str, Any]) -> None:
        """A stream-json event of a running task."""

    def task_finished(self, outcome: TaskOutcome) -> None:
        """A task ended (``outcome.interrupted``: stopped, with no result)."""

    def end(self) -> None:
        """The run is over."""


def tokens(usage: dict[str, Any]) -> int:
    """Prompt plus completion tokens of a usage record."""
    return int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))


class JsonProgress:
    """One JSON object a line on *out*: ``note``, ``batch_started``, ``engine_started``,
    ``task_started``,
    ``task_finished`` (the result line), ``task_interrupted``, ``batch_finished``."""

    def __init__(
        self,
        out: IO[str],
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._out = out
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._start = clock()
        self._counts = {"done": 0, "failed": 0, "interrupted": 0}

    def _write(self, doc: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(orjson.dumps(doc).decode() + "\n")
            self._out.flush()

    def note(self, text: str) -> None:
        self._write({"type": "note", "text": text})

    def begin(self, total: int, skipped: int) -> None:
        self._start = self._clock()
        self._write({"type": "batch_started", "tasks": total, "skipped": skipped})

    def engine_started(self, engine: str, startup: float) -> None:
        self._write(
            {
                "type": "engine_started",
                "engine": engine,
                "startup": round(startup, 3),
                "ts": round(self._wall(), 3),
            }
        )

    def task_started(self, task_id: str, attempt: int) -> None:
        self._write({"type": "task_started", "id": task_id, "attempt": attempt})

    def task_event(self, task_id: str, event: dict[str, Any]) -> None:
        pass  # the events are in DIR/<id>/events.jsonl

    def task_finished(self, outcome: TaskOutcome) -> None:
        with self._lock:
            if outcome.interrupted:
                self._counts["interrupted"] += 1
            else:
                self._counts["done"] += 1
                self._counts["failed"] += 0 if outcome.ok else 1
        if outcome.interrupted:
            self._write({"type": "task_interrupted", "id": outcome.id})
        else:
            self._write({"type": "task_finished", **outcome.line()})

    def end(self) -> None:
        elapsed = round(self._clock() - self._start, 3)
        self._write({"type": "batch_finished", **self._counts, "elapsed": elapsed})
