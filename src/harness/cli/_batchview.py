"""The live display of ``harness batch``: done / running / failed, tokens, elapsed.

Every method may be called from any thread (the local engine reports events from
the thread that runs each task).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from harness.batch import TaskOutcome, tokens

__all__ = ["RichProgress"]


@attrs.define
class _Running:
    since: float
    attempt: int = 1
    turns: int = 0
    tokens: int = 0


class RichProgress:
    """The live display: done / running / failed, tokens, elapsed, and the running tasks.

    Args:
        console: where it draws (default: a new rich ``Console`` on stderr).
        clock: seconds, for elapsed times (default :func:`time.monotonic`).
        live: redraw in place (default: when the console is a terminal).
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        live: bool | None = None,
    ) -> None:
        self.console = console or Console(stderr=True)
        self._clock = clock
        self._lock = threading.Lock()
        self._running: dict[str, _Running] = {}
        self._total = self._done = self._failed = self._tokens = 0
        self._start = clock()
        use_live = self.console.is_terminal if live is None else live
        self._live: Live | None = (
            Live(console=self.console, get_renderable=self._render, refresh_per_second=4)
            if use_live
            else None
        )

    def note(self, text: str) -> None:
        self.console.print(Text(text, style="dim"))

    def begin(self, total: int, skipped: int) -> None:
        with self._lock:
            self._total = total
            self._start = self._clock()
        if skipped:
            self.note(f"{skipped} skipped (a result already, or a line that is not a task)")
        if self._live is not None:
            self._live.start()

    def engine_started(self, engine: str, startup: float) -> None:
        self.note(f"{engine}: ready in {startup:.1f}s")

    def task_started(self, task_id: str, attempt: int) -> None:
        with self._lock:
            self._running[task_id] = _Running(since=self._clock(), attempt=attempt)
        if attempt > 1:
            self.console.print(Text(f"↻ {task_id}: attempt {attempt}", style="yellow"))

    def task_event(self, task_id: str, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind not in ("usage", "turn_started"):
            return
        with self._lock:
            row = self._running.get(task_id)
            if row is None:
                return
            if kind == "turn_started":
                row.turns += 1
            else:
                n = tokens(event)
                row.tokens += n
                self._tokens += n

    def task_finished(self, outcome: TaskOutcome) -> None:
        with self._lock:
            row = self._running.pop(outcome.id, None)
            if outcome.interrupted:
                if row is not None:
                    self._tokens -= row.tokens
                return
            if row is not None:
                self._tokens += tokens(outcome.usage) - row.tokens
            else:
                self._tokens += tokens(outcome.usage)
            self._done += 1
            self._failed += 0 if outcome.ok else 1
        mark, style = ("✓", "green") if outcome.ok else ("✗", "red")
        line = Text(f"{mark} {outcome.id}", style=style)
        retried = f", {outcome.attempts} attempts" if outcome.attempts > 1 else ""
        line.append(
            f"  {outcome.reason}, {outcome.turns} turns, {tokens(outcome.usage)} tokens, "
            f"{outcome.duration:.1f}s{retried}",
            style="dim",
        )
        if not outcome.ok and outcome.text:
            line.append(f"\n    {outcome.text.splitlines()[0][:200]}", style="dim")
        self.console.print(line)

    def end(self) -> None:
        if self._live is not None:
            self._live.stop()
        self.console.print(self._summary())

    def _summary(self) -> Text:
        with self._lock:
            elapsed = self._clock() - self._start
            text = Text()
            text.append(f"done {self._done}/{self._total}", style="bold")
            text.append(f" · running {len(self._running)}")
            text.append(f" · failed {self._failed}", style="red" if self._failed else "")
            text.append(f" · {self._tokens} tokens · {_elapsed(elapsed)}")
        return text

    def _render(self) -> RenderableType:
        table = Table(box=None, show_header=False, padding=(0, 1))
        now = self._clock()
        with self._lock:
            rows = sorted(self._running.items(), key=lambda kv: kv[1].since)
            for task_id, row in rows[:12]:
                extra = f" (attempt {row.attempt})" if row.attempt > 1 else ""
                table.add_row(
                    Text("…", style="cyan"),
                    task_id + extra,
                    f"{row.turns} turns",
                    f"{row.tokens} tokens",
                    _elapsed(now - row.since),
                )
            more = len(rows) - 12
        parts: list[RenderableType] = [table] if rows else []
        if more > 0:
            parts.append(Text(f"  and {more} more running", style="dim"))
        parts.append(self._summary())
        return Group(*parts)


def _elapsed(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}:{s:02d}"
