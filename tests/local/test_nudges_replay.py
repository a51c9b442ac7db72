"""``python -m bench nudges`` asks the replies of the task bench's recorded runs of the
nudge rules as they are now, and says which rules reach which tasks, and where a run had
not recorded the rule asking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.bench_nudges import replay_folders, rows_for


def _record(base: Path, task: str, verdict: str, events: list[dict[str, Any]]) -> None:
    (base / task).mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(e) for e in events]
    (base / task / f"{verdict}-1.jsonl").write_text("\n".join(lines) + "\n")


def _run(
    session: str, call: tuple[str, dict[str, Any], str], reply: str, recorded: str = ""
) -> list[dict[str, Any]]:
    name, arguments, output = call
    events: list[dict[str, Any]] = [
        {"type": "session_started", "session_id": session},
        {"type": "tool_call_requested", "call_id": "c1", "name": name, "arguments": arguments},
        {"type": "tool_call_finished", "call_id": "c1", "name": name, "ok": True, "output": output},
    ]
    if recorded:
        events.append(
            {"type": "model_progress", "stage": "nudged", "message": f"asking again: {recorded}"}
        )
    return [*events, {"type": "assistant_message", "text": reply}, {"type": "result"}]


def test_the_rules_are_asked_of_recorded_replies_and_a_new_ask_is_named(tmp_path: Path) -> None:
    runs, copy = tmp_path / "runs", tmp_path / "copy"
    search = ("search_text", {"pattern": "frost"}, 'greenhouse.toml:4:name = "Glasshouse"')
    # half B: a figure no result holds, in a run that failed, never asked of it then
    made_up = _run("s1", search, "It skips watering below 10 degrees.")
    _record(runs, "ask-frost-limit", "failed", made_up)
    # the same run in a folder copied from the first: counted once
    _record(copy, "ask-frost-limit", "failed", made_up)
    # half A: the same rule, recorded asking there, in a run that passed
    mot = ("list_dir", {"path": "."}, "./\nbookings.py")
    dated = _run("s2", mot, "The minibus is due its MOT on 2023-04-15.", "made-up-figure")
    _record(runs, "missing-mot-due", "ok", dated)
    # a reply no rule answers: the figure a result holds
    pool = ("search_text", {"pattern": "connections"}, "settings.toml:9:max_connections = 20")
    _record(runs, "ask-db-connections", "ok", _run("s3", pool, "At most 20 at once."))
    # a reply that made a call of its own: no rule was asked of it
    own = _run("s4", search, "Below 10 degrees, I think; let me check.")
    more = {"type": "tool_call_requested", "call_id": "c2", "name": "read_file", "arguments": {}}
    own.insert(-1, more)
    _record(runs, "ask-reorder-units", "failed", own)
    replayed = replay_folders([runs, copy])
    assert sorted(replayed) == [
        ("ask-db-connections", "A", True, []),
        ("ask-frost-limit", "B", False, [("made-up-figure", False)]),
        ("ask-reorder-units", "B", False, []),
        ("missing-mot-due", "A", True, [("made-up-figure", True)]),
    ]
    rows = {what: (figure, note) for what, figure, note in rows_for(replayed)}
    assert rows["half A: runs replayed"][0] == "2"
    assert rows["half A: made-up-figure"] == ("1 / 0", "new in failed runs: none")
    assert rows["half B: made-up-figure"] == ("0 / 1", "new in failed runs: ask-frost-limit")
    # only the rules asked for
    assert "half B: made-up-figure" not in {r[0] for r in rows_for(replayed, frozenset({"x"}))}
