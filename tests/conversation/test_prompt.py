"""The system prompt's workspace line."""

from __future__ import annotations

from pathlib import Path

from harness.conversation._prompt import build_system_prompt


def test_the_workspace_line_says_paths_start_inside_it(tmp_path: Path) -> None:
    ws = tmp_path / "project"
    ws.mkdir()
    prompt = build_system_prompt(ws)
    line = next(ln for ln in prompt.splitlines() if ln.startswith("Workspace: "))
    assert line.startswith(f"Workspace: {ws} (")
    # small models prefix paths with the folder's own name when only shown its path
    assert line.endswith("Name files from there: main.py, not project/main.py.")
    root = build_system_prompt(Path("/"))
    assert "not /main.py" not in root
    assert "Name files from there" not in root
