"""Claude Code's tool names and input shapes, both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.hooks import claude_tool, harness_arguments, tool_names

WS = Path("/work/project")

CASES = [
    ("run_cmd", {"command": "ls", "timeout": 5}, "Bash", {"command": "ls", "timeout": 5000}),
    (
        "write_file",
        {"path": "a.py", "content": "x"},
        "Write",
        {"file_path": "/work/project/a.py", "content": "x"},
    ),
    (
        "edit_file",
        {"path": "a.py", "old_text": "x", "new_text": "y"},
        "Edit",
        {"file_path": "/work/project/a.py", "old_string": "x", "new_string": "y"},
    ),
    (
        "edit_file",
        {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]},
        "MultiEdit",
        {"file_path": "/work/project/a.py", "edits": [{"old_string": "x", "new_string": "y"}]},
    ),
    (
        "read_file",
        {"path": "a.py", "start_line": 3, "end_line": 7},
        "Read",
        {"file_path": "/work/project/a.py", "offset": 3, "limit": 5},
    ),
    ("search_text", {"pattern": "def"}, "Grep", {"pattern": "def"}),
    ("find_files", {"pattern": "*.py"}, "Glob", {"pattern": "*.py"}),
    ("get_url", {"url": "https://x.org/"}, "WebFetch", {"url": "https://x.org/"}),
    ("search_web", {"query": "q"}, "WebSearch", {"query": "q"}),
    ("mcp__fs__read", {"path": "a"}, "mcp__fs__read", {"path": "a"}),
    ("git_status", {}, "git_status", {}),
]


@pytest.mark.parametrize(("name", "args", "claude", "shape"), CASES)
def test_a_call_reads_as_claude_code_and_comes_back(
    name: str, args: dict[str, object], claude: str, shape: dict[str, object]
) -> None:
    assert claude_tool(name, args, WS) == (claude, shape)
    assert harness_arguments(name, shape, WS) == args
    assert claude in tool_names(name)
    assert name in tool_names(name)


def test_a_task_reads_as_claude_codes_task() -> None:
    name, shape = claude_tool("spawn_agent", {"task": "review a.py\nthen say"}, WS)
    assert (name, shape) == (
        "Task",
        {"prompt": "review a.py\nthen say", "description": "review a.py"},
    )
    assert harness_arguments("spawn_agent", shape, WS) == {"task": "review a.py\nthen say"}


def test_a_path_outside_the_workspace_stays_absolute() -> None:
    back = harness_arguments("write_file", {"file_path": "/etc/passwd", "content": ""}, WS)
    assert back == {"path": "/etc/passwd", "content": ""}  # the jail refuses it, as any call
