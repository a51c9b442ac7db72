"""The progress display, drawn on a string console with a clock the test holds."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from tests.batch.conftest import PYTHONPATH

from harness.batch import JsonProgress, TaskOutcome
from harness.cli._batchview import RichProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_display_counts_done_running_failed_tokens_and_time() -> None:
    out = io.StringIO()
    clock = Clock()
    progress = RichProgress(Console(file=out, width=100, _environ={}), clock=clock, live=False)
    progress.begin(3, 1)
    for i in ("a", "b", "c"):
        progress.task_started(i, 1)
    progress.task_event("a", {"type": "turn_started"})
    progress.task_event("a", {"type": "usage", "prompt_tokens": 10, "completion_tokens": 5})
    clock.now += 65
    progress.task_finished(
        TaskOutcome(
            id="a",
            ok=True,
            reason="done",
            turns=1,
            usage={"prompt_tokens": 10, "completion_tokens": 5},
            duration=65.0,
            attempts=1,
        )
    )
    progress.task_started("b", 2)
    progress.task_finished(
        TaskOutcome(
            id="b",
            ok=False,
            reason="crashed",
            text="the session ended\nmore",
            duration=2.0,
            attempts=2,
        )
    )
    progress.task_finished(TaskOutcome(id="c", ok=False, reason="interrupted", interrupted=True))
    progress.end()
    assert out.getvalue().splitlines() == [
        "1 skipped (a result already, or a line that is not a task)",
        "✓ a  done, 1 turns, 15 tokens, 65.0s",
        "↻ b: attempt 2",
        "✗ b  crashed, 0 turns, 0 tokens, 2.0s, 2 attempts",
        "    the session ended",
        "done 2/3 · running 0 · failed 1 · 15 tokens · 1:05",
    ]


def test_json_progress_lines() -> None:
    out = io.StringIO()
    progress = JsonProgress(out, clock=Clock(), wall=lambda: 5.0)
    progress.begin(1, 0)
    progress.engine_started("Ray on x", 1.5)
    progress.task_finished(TaskOutcome(id="a", ok=True, reason="done", attempts=1))
    progress.end()
    docs = [json.loads(x) for x in out.getvalue().splitlines()]
    assert docs[0] == {"type": "batch_started", "tasks": 1, "skipped": 0}
    assert docs[1] == {"type": "engine_started", "engine": "Ray on x", "startup": 1.5, "ts": 5.0}
    assert docs[2]["type"] == "task_finished"
    assert docs[2]["id"] == "a"
    assert docs[3] == {
        "type": "batch_finished",
        "done": 1,
        "failed": 0,
        "interrupted": 0,
        "elapsed": 0.0,
    }


def test_ray_missing_says_how_to_install_it(tmp_path: Path) -> None:
    # an interpreter where `import ray` fails, as it does without the extra
    shadow = tmp_path / "shadow" / "ray"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "a", "prompt": "p", "workspace": str(ws)}) + "\n")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "batch",
            str(tasks),
            "--ray",
            "--out",
            str(tmp_path / "o"),
        ],
        env={"PYTHONPATH": f"{tmp_path / 'shadow'}:{PYTHONPATH}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2, p.stdout + p.stderr
    assert "pip install 'harness[ray]'" in p.stderr
    assert "Traceback" not in p.stderr
