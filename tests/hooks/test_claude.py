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


def test_one_table_of_claude_names_serves_hooks_and_tool_lists() -> None:
    """harness.words.CLAUDE_TOOLS is the one owner: a name an agent's ``tools`` reads is
    the name a hook matcher uses for the same tool, and every tool it names exists."""
    from harness.actors.tools import builtin_table
    from harness.custom import map_tools
    from harness.words import CLAUDE_TOOLS, harness_tool

    known = set(builtin_table().names())
    for claude, tools in CLAUDE_TOOLS.items():
        assert set(tools) <= known, claude
        assert map_tools([claude], known)[0] == tools
        assert claude in tool_names(harness_tool(claude)), claude
        assert harness_tool(claude) == tools[0]


@pytest.mark.parametrize(
    ("claude", "tool"),
    [
        ("BashOutput", "send_input"),
        ("KillShell", "end_process"),
        ("Agent", "spawn_agent"),
        ("Skill", "use_skill"),
        ("AskUserQuestion", "get_user_input"),
        ("ExitPlanMode", "submit_plan"),
    ],
)
def test_every_claude_name_a_tool_list_reads_is_a_hook_matcher_too(claude: str, tool: str) -> None:
    from harness.hooks import HookConfig, HookHandler

    config = HookConfig((HookHandler("PreToolUse", claude, "exit 0", source="t"),))
    assert len(config.for_event("PreToolUse", tool_names(tool))) == 1
    first = claude_tool(tool, {}, WS)[0]
    assert first in tool_names(tool)
    assert first != tool  # the payload names it as Claude Code does
