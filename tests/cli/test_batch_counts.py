"""``harness batch``'s first line counts what it will not run."""

from __future__ import annotations

import io
import json
from pathlib import Path

from harness.cli._batch import batch_main


def test_a_line_that_is_not_a_task_counts_as_skipped(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "t0", "prompt": "no workspace"}\n')
    out = io.StringIO()
    status = batch_main(
        [str(tasks), "--output-format", "json", "--out", str(tmp_path / "out")],
        stdout=out,
        stderr=io.StringIO(),
        environ={},
    )
    docs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "line 1" in docs[0]["text"]
    [started] = [d for d in docs if d["type"] == "batch_started"]
    assert started == {"type": "batch_started", "tasks": 0, "skipped": 1}
    assert status == 1  # the bad line
