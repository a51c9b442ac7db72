"""Command files: where they are found, their names and namespaces, built-in clashes."""

from __future__ import annotations

from pathlib import Path

from harness.custom import load_commands


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# Claude Code's documented example, copied unchanged.
CLAUDE_COMMIT = """---
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)
argument-hint: [message]
description: Create a git commit
model: claude-3-5-haiku-20241022
---

## Context

- Current git status: !`git status`
- Current git diff (staged and unstaged changes): !`git diff HEAD`

## Your task

Based on the above changes, create a single git commit.
"""


def test_a_claude_code_command_loads_with_its_frontmatter(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(ws / ".claude/commands/commit.md", CLAUDE_COMMIT)
    cmd = load_commands(ws, home).get("commit")
    assert cmd is not None
    assert cmd.description == "Create a git commit"
    assert cmd.argument_hint == "[message]"
    assert cmd.allowed_tools == ("Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)")
    assert cmd.model == "claude-3-5-haiku-20241022"
    assert cmd.label == "project"
    assert "!`git status`" in cmd.body


def test_subfolders_namespace_as_claude_code_does(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    _write(ws / ".claude/commands/frontend/component.md", "Make a component $1\n")
    _write(ws / ".claude/commands/backend/component.md", "Make an endpoint $1\n")
    cmds = load_commands(ws, home)
    back, front = cmds.get("backend:component"), cmds.get("frontend:component")
    assert back is not None
    assert front is not None
    assert front.label == "project:frontend"
    assert front.description == "Make a component $1"  # the first line, lacking one
    # the bare name goes to the first; the other stays reachable by its full name
    assert cmds.get("component") is back
    assert len(cmds) == 2
    assert [c.qualified for c in cmds] == [
        "backend:component",
        "frontend:component",
    ]


def test_a_builtin_name_is_refused_with_a_message(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    clash = _write(ws / ".harness/commands/help.md", "---\ndescription: mine\n---\nX\n")
    _write(ws / ".harness/commands/ok.md", "fine\n")
    cmds = load_commands(ws, home, reserved={"help", "exit", "q"})
    assert cmds.get("help") is None
    assert cmds.get("ok") is not None
    assert f"{clash}: refused: /help is a built-in command; rename the file" in cmds.problems


def test_project_over_user_and_bad_files_reported(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    user = _write(home / "commands" / "fix.md", "the user's fix\n")
    _write(home / "commands" / "mine.md", "only mine\n")
    _write(ws / ".harness/commands/fix.md", "the project's fix\n")
    bad = _write(ws / ".harness/commands/bad.md", "---\ndescription: [unclosed\nx\n")
    spaced = _write(ws / ".harness/commands/two words.md", "x\n")
    cmds = load_commands(ws, home)
    fix, mine = cmds.get("fix"), cmds.get("mine")
    assert fix is not None
    assert fix.body.startswith("the project's")
    assert fix.label == "project"
    assert mine is not None
    assert mine.label == "user"
    text = "\n".join(cmds.problems)
    assert f"{user}: ignored: /fix is already defined by" in text
    assert f"{bad}: skipped: frontmatter starts with '---' but is never closed" in text
    assert f"{spaced}: skipped: 'two words' is not a usable command name" in text
    assert {c.name for c in cmds} == {"fix", "mine"}


def test_argument_hints_read_as_written(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    folder = ws / ".claude/commands"
    _write(folder / "a.md", "---\nargument-hint: [pr-number] [priority] [assignee]\n---\nx\n")
    _write(folder / "b.md", "---\nargument-hint: add [tagId] | remove [tagId] | list\n---\nx\n")
    cmds = load_commands(ws, home)
    assert [c.argument_hint for c in cmds] == [
        "[pr-number] [priority] [assignee]",
        "add [tagId] | remove [tagId] | list",
    ]
