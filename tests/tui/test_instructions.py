import subprocess
from pathlib import Path

from harness.instructions import MAX_BYTES, find_instruction_files, instructions_prompt


def test_agents_md_from_workspace_up_to_repo_root(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("outside the repo: never read")
    repo = tmp_path / "repo"
    ws = repo / "pkg" / "sub"
    ws.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("root rules")
    (repo / "CLAUDE.md").write_text("ignored: AGENTS.md wins")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg rules")
    (ws / "AGENTS.md").write_text("sub rules")
    files = find_instruction_files(ws)
    assert [f.text for f in files] == ["root rules", "pkg rules", "sub rules"]
    prompt = instructions_prompt(files, ws)
    assert prompt.index("root rules") < prompt.index("pkg rules") < prompt.index("sub rules")
    assert "## ../../AGENTS.md" in prompt
    assert "ignored" not in prompt


def test_outside_a_repo_only_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("parent")
    ws = tmp_path / "ws"
    ws.mkdir()
    assert find_instruction_files(ws) == []
    (ws / "CLAUDE.md").write_text("x" * (MAX_BYTES + 10))
    [f] = find_instruction_files(ws)
    assert f.truncated
    assert len(f.text) == MAX_BYTES
    assert "(cut at 64 KiB)" in instructions_prompt([f])
    assert instructions_prompt([]) == ""
