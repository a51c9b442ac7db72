"""Agent definitions read from files: Claude Code's format as it is, bad files reported."""

from __future__ import annotations

import os
from pathlib import Path

from harness.actors.tools import builtin_table
from harness.custom import load_agents

KNOWN = builtin_table().names()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# A definition as Claude Code's documentation writes one, copied unchanged.
CLAUDE_REVIEWER = """---
name: code-reviewer
description: Expert code review specialist. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash
model: sonnet
---

You are a senior code reviewer ensuring high standards of code quality and security.
"""


def test_a_claude_code_definition_loads_as_it_is(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(ws / ".claude" / "agents" / "code-reviewer.md", CLAUDE_REVIEWER)
    agents = load_agents(ws, home, known_tools=KNOWN)
    agent = agents.get("code-reviewer")
    assert agent is not None
    assert agent.description.startswith("Expert code review specialist.")
    assert agent.prompt.startswith("You are a senior code reviewer")
    assert agent.tools == (
        "read_file",
        "search_text",
        "find_files",
        "run_cmd",
        "send_input",
        "end_process",
    )
    # a Claude alias names no model harness has: the session's model, said so
    assert agent.model is None
    assert any("'sonnet' is a Claude Code alias" in n for n in agent.notes)
    assert agent.source == "project"


def test_tools_as_a_list_with_harness_names_and_a_real_model(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(
        ws / ".harness" / "agents" / "t.md",
        "---\nname: tester\ndescription: writes tests\ntools:\n  - read_file\n  - Write\n"
        "  - mcp__db__query\nmodel: qwen3:8b\n---\nWrite tests.\n",
    )
    agent = load_agents(ws, home, known_tools=KNOWN).get("tester")
    assert agent is not None
    assert agent.tools == ("read_file", "write_file", "mcp__db__query")
    assert agent.model == "qwen3:8b"
    assert agent.notes == ()


def test_no_tools_line_means_every_tool_and_inherit_means_the_sessions_model(
    dirs: tuple[Path, Path],
) -> None:
    ws, home = dirs
    _write(ws / ".harness/agents/a.md", "---\nname: a\ndescription: d\nmodel: inherit\n---\nP\n")
    agent = load_agents(ws, home, known_tools=KNOWN).get("a")
    assert agent is not None
    assert agent.tools is None
    assert agent.model is None


def test_an_unknown_tool_is_named_not_silently_dropped(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    path = _write(
        ws / ".claude/agents/x.md",
        "---\nname: x\ndescription: d\n"
        "tools: Read, TodoWrite, frobnicate, Bash(git diff:*)\n---\nP\n",
    )
    agents = load_agents(ws, home, known_tools=KNOWN)
    agent = agents.get("x")
    assert agent is not None
    assert agent.tools == ("read_file", "run_cmd", "send_input", "end_process")
    text = "\n".join(agents.problems)
    assert f"{path}: unknown tool TodoWrite" in text
    assert f"{path}: unknown tool frobnicate" in text
    assert "Bash(git diff:*) is read as run_cmd" in text


def test_project_wins_over_user_and_duplicates_are_reported(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(home / "agents" / "r.md", "---\nname: r\ndescription: the user's\n---\nU\n")
    first = _write(ws / ".harness/agents/r.md", "---\nname: r\ndescription: harness dir\n---\nH\n")
    second = _write(ws / ".claude/agents/r.md", "---\nname: r\ndescription: claude dir\n---\nC\n")
    _write(home / "agents" / "mine.md", "---\nname: mine\ndescription: only mine\n---\nM\n")
    agents = load_agents(ws, home, known_tools=KNOWN)
    assert agents.names() == ["mine", "r"]
    r = agents.get("r")
    assert r is not None
    assert r.description == "harness dir"
    assert r.source == "project"
    mine = agents.get("mine")
    assert mine is not None
    assert mine.source == "user"
    text = "\n".join(agents.problems)
    assert f"{second}: ignored: agent 'r' is already defined by {first}" in text
    assert "the project's wins over the user's" in text


def test_bad_files_are_reported_with_file_and_reason_and_the_rest_load(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    ws, home = dirs
    folder = ws / ".claude" / "agents"
    unclosed = _write(folder / "a.md", "---\nname: a\ndescription: d\nP\n")
    nodesc = _write(folder / "b.md", "---\nname: b\n---\nP\n")
    badname = _write(folder / "c.md", "---\nname: 'no spaces allowed'\ndescription: d\n---\nP\n")
    binary = folder / "d.md"
    binary.write_bytes(b"---\nname: d\n---\n\xff\xfe\n")
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    link = folder / "e.md"
    link.symlink_to(secret)
    fifo = folder / "f.md"
    os.mkfifo(fifo)  # would hang a plain read
    big = _write(folder / "g.md", "---\nname: g\ndescription: d\n---\n" + "x" * 300_000)
    _write(folder / "good.md", "---\nname: good\ndescription: fine\n---\nP\n")
    agents = load_agents(ws, home, known_tools=KNOWN)
    assert agents.names() == ["good"]
    text = "\n".join(agents.problems)
    assert f"{unclosed}: skipped: frontmatter starts with '---' but is never closed" in text
    assert f"{nodesc}: skipped: no description" in text
    assert f"{badname}: skipped: 'no spaces allowed' is not a usable agent name" in text
    assert f"{binary}: skipped: not UTF-8 text" in text
    assert f"{link}: skipped: it is a symlink to {secret}" in text
    assert f"{fifo}: skipped: not a regular file" in text
    assert f"{big}: skipped: " in text
    assert "over the limit" in text
    assert "PRIVATE KEY" not in repr(agents)


def test_name_defaults_to_the_file_name(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(ws / ".harness/agents/helper.md", "---\ndescription: helps\n---\nHelp.\n")
    assert load_agents(ws, home).names() == ["helper"]
