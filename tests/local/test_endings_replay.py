"""``python -m bench endings`` reads the task bench's recorded runs back through the record
the conversation keeps, and asks their endings again of the rules as they are now."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.bench_endings import replay_folder, rows_for


def _record(base: Path, task: str, verdict: str, events: list[dict[str, Any]]) -> None:
    (base / task).mkdir(parents=True)
    lines = [json.dumps(e) for e in events]
    (base / task / f"{verdict}-1.jsonl").write_text("\n".join(lines) + "\n")


def _run(prompt: str, calls: list[tuple[str, dict]], last: str, reason: str) -> list[dict]:
    events: list[dict[str, Any]] = [{"type": "user_message", "text": prompt, "source": "prompt"}]
    for name, data in calls:
        events.append({"type": "assistant_message", "text": ""})
        events.append({"type": "tool_call_finished", "name": name, "ok": True, "data": data})
    events.append({"type": "assistant_message", "text": last})
    return [*events, {"type": "result", "ok": reason == "done", "reason": reason}]


def test_recorded_runs_end_as_the_rules_say_now(tmp_path: Path) -> None:
    failed_install = {"command": "pip install inventroy", "exit_code": 1}
    # recorded as done, with a claimed change backed by a command that failed
    _record(
        tmp_path,
        "error-module-typo",
        "failed",
        _run(
            "python3 report.py stopped working: ModuleNotFoundError. Can you sort it out?",
            [("run_cmd", failed_install)],
            "I sorted out the ModuleNotFoundError by installing the `inventroy` package.",
            "done",
        ),
    )
    # a run that passed, and stays done
    _record(
        tmp_path,
        "ask-db-connections",
        "ok",
        _run("How many connections?", [("read_file", {})], "It keeps at most 20.", "done"),
    )
    # a run the output limit ended is left as it was
    _record(tmp_path, "create-running-page", "failed", _run("Write it.", [], "x", "incomplete"))
    runs = replay_folder(tmp_path)
    assert runs == [
        ("ask-db-connections", "A", True, "done", "done"),
        ("error-module-typo", "B", False, "done", "unbacked_claim"),
    ]
    rows = {what: figure for what, figure, _ in rows_for(runs)}
    assert rows["half A: passed, now not done"] == "0"
    assert rows["half B: failed and ended ok, now not done"] == "1/1"
