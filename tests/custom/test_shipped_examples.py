"""The example agents and commands under docs/examples load as they are."""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.actors.tools import builtin_table
from harness.custom import load_agents, load_commands

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_the_example_agents_load_without_a_problem(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    shutil.copytree(EXAMPLES / "agents", ws / ".claude" / "agents")
    agents = load_agents(ws, home, known_tools=builtin_table().names())
    assert agents.problems == ()
    assert agents.names() == ["reviewer", "test-writer"]
    reviewer = agents.get("reviewer")
    assert reviewer is not None
    assert reviewer.tools == ("read_file", "search_text", "find_files", "git_diff", "git_status")


def test_the_example_commands_load_without_a_problem(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    shutil.copytree(EXAMPLES / "commands", ws / ".harness" / "commands")
    commands = load_commands(ws, home, reserved={"help"})
    assert commands.problems == ()
    assert sorted(c.qualified for c in commands) == ["fix-issue", "git:changelog", "review"]
