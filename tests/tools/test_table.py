"""The tool table: specs, schemas, argument binding, the public surface."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import harness.actors.tools as tools_pkg
from harness.actors.tools import (
    BUILTIN_TOOLS,
    ToolArgumentError,
    ToolSpec,
    ToolTable,
    UnknownToolError,
    builtin_table,
)
from harness.messages.model import ToolSchema

SHELL_TOOLS = {
    "run_cmd": {"command", "stdin", "timeout", "cwd"},
    "send_input": {"session", "text"},
    "end_process": {"session"},
}
SEARCH_TOOLS = {
    "search_web": {"query"},
    "get_url": {"url"},
    "call_api": {"method", "url", "headers", "body"},
}
ISSUE_TOOLS = {
    "read_file": {"path", "start_line", "end_line", "next_read"},
    "write_file": {"path", "content", "version"},
    "edit_file": {"path", "old_text", "new_text", "edits"},
    "move_file": {"source", "destination"},
    "copy_file": {"source", "destination"},
    "delete_path": {"path"},
    "create_dir": {"path"},
    "list_dir": {"path"},
    "find_files": {"pattern", "path"},
    "search_text": {"pattern", "path", "glob", "regex"},
    "git_status": set(),
    "git_diff": {"path"},
    "get_system_info": set(),
    "get_code_skeleton": {"path"},
    "query_ast": {"path", "query"},
    "get_user_input": {"questions"},
    "submit_plan": {"plan"},
    "use_skill": {"name"},
    "spawn_agent": {"task", "context", "model", "tools"},
    **SHELL_TOOLS,
    **SEARCH_TOOLS,
}
MEMORY_TOOLS = {"write_memory", "read_memory", "list_memory", "edit_memory", "delete_memory"}


def test_public_surface_is_exactly_all() -> None:
    # a sub-package (the shell reading, ``bash``) is an attribute once imported, not a name
    # the package exports
    exported = {
        n
        for n in dir(tools_pkg)
        if not n.startswith("_") and not isinstance(getattr(tools_pkg, n), types.ModuleType)
    }
    assert set(tools_pkg.__all__) == exported - {"annotations"}


def test_every_issue_tool_has_its_parameters() -> None:
    table = builtin_table()
    for name, params in ISSUE_TOOLS.items():
        assert set(table.get(name).parameters["properties"]) == params, name
    assert set(table.names()) >= MEMORY_TOOLS
    assert set(table.names()) == set(ISSUE_TOOLS) | MEMORY_TOOLS


def test_kinds_executors_and_terminating() -> None:
    table = builtin_table()
    assert table.get("read_file").kind == "read"
    assert all(table.get(n).kind == "mutating" for n in ("write_file", "edit_file", "delete_path"))
    assert table.get("run_cmd").kind == "shell"
    assert {s.name for s in table.by_executor("shell")} == set(SHELL_TOOLS)
    assert {s.name for s in table.by_executor("search")} == set(SEARCH_TOOLS)
    assert all(table.get(n).kind == "network" for n in SEARCH_TOOLS)
    assert table.get("get_url").main_arg == table.get("call_api").main_arg == "url"
    assert {s.name for s in table.by_executor("frontend")} == {"get_user_input", "submit_plan"}
    assert {s.name for s in table.by_executor("conversation")} == MEMORY_TOOLS | {
        "use_skill",
        "spawn_agent",
    }
    assert table.get("spawn_agent").kind == "agent"  # asks, like a command
    assert [s.name for s in table if s.terminating] == ["submit_plan"]
    assert table.get("run_cmd").main_arg == "command"


def test_schemas_are_copies_and_match_the_specs() -> None:
    table = builtin_table()
    schemas = table.schemas()
    assert all(isinstance(s, ToolSchema) for s in schemas)
    by_name = {s.name: s for s in schemas}
    for spec in BUILTIN_TOOLS:
        if spec.name == "submit_plan":
            assert spec.name not in by_name
            continue
        assert by_name[spec.name].parameters == spec.parameters
        assert by_name[spec.name].description == spec.description
    by_name["read_file"].parameters["properties"].clear()
    assert table.get("read_file").parameters["properties"]


def test_plan_mode_switches_mutating_tools_off() -> None:
    names = {s.name for s in builtin_table().schemas(mode="plan")}
    assert "submit_plan" in names
    assert not names & {"write_file", "edit_file", "move_file", "delete_path", "write_memory"}
    assert {"read_file", "run_cmd", "search_text"} <= names


def test_bind_fills_defaults_and_coerces_harmless_things() -> None:
    table = builtin_table()
    assert table.bind("search_text", {"pattern": "x", "regex": "true"}) == {
        "pattern": "x",
        "regex": True,
        "path": ".",
    }
    assert table.bind("read_file", {"path": "a", "start_line": "7", "end_line": 9.0}) == {
        "path": "a",
        "start_line": 7,
        "end_line": 9,
    }
    assert table.bind("git_diff", {"path": None}) == {}
    assert table.bind("git_status", None) == {}


@pytest.mark.parametrize(
    ("name", "args", "words"),
    [
        ("read_file", {}, "missing required argument 'path'"),
        ("read_file", {"path": 3}, "path must be string, got integer"),
        ("read_file", {"path": "a", "start_line": 0}, "at least 1"),
        ("read_file", {"path": "a", "start_line": "x"}, "start_line must be integer"),
        ("write_file", {"path": "a", "content": "", "bogus": 1}, "unknown argument 'bogus'"),
        ("edit_file", {"path": "a", "edits": []}, "at least 1"),
        ("edit_file", {"path": "a", "edits": [{"old_text": "x"}]}, "'edits[0].new_text'"),
        ("read_file", ["a"], "arguments must be an object"),
        ("read_file", {"path": "a", "next_read": {"column": 2}}, "next_read.line"),
    ],
)
def test_bind_refuses_with_a_clear_message(name: str, args: object, words: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        builtin_table().bind(name, args)  # type: ignore[arg-type]
    assert words in str(info.value)
    assert str(info.value).startswith(f"{name}: ")


def test_a_read_tool_drops_arguments_it_does_not_have() -> None:
    # What a 1.5B model sent: the read is what it meant.
    got = builtin_table().bind("read_file", {"path": "notes.txt", "content": "...\n"})
    assert got["path"] == "notes.txt"
    assert "content" not in got
    # Nested objects are still checked, and tools that change things still refuse.
    with pytest.raises(ToolArgumentError):
        builtin_table().bind("read_file", {"path": "a", "next_read": {"column": 2}})
    with pytest.raises(ToolArgumentError):
        builtin_table().bind("delete_path", {"path": "a", "recursive_all": True})


def test_unknown_tool_names_the_known_ones() -> None:
    with pytest.raises(UnknownToolError) as info:
        builtin_table().get("reed_file")
    assert "'reed_file'" in str(info.value)
    assert "read_file" in str(info.value)


def test_mcp_tools_join_at_run_time() -> None:
    table = builtin_table()
    spec = ToolSpec(
        name="mcp__github__create_issue",
        description="Create an issue.",
        parameters={"type": "object", "properties": {"title": {"type": "string"}}},
        main_arg="title",
        kind="network",
        executor="mcp",
    )
    table.register(spec)
    assert "mcp__github__create_issue" in table
    assert table.bind("mcp__github__create_issue", {"title": "t"}) == {"title": "t"}
    with pytest.raises(ValueError, match="already in the table"):
        table.register(spec)
    table.unregister("mcp__github__create_issue")
    assert "mcp__github__create_issue" not in table
    assert "mcp__github__create_issue" not in builtin_table()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "bad name"},
        {"kind": "dangerous"},
        {"executor": "elsewhere"},
        {"parameters": {"type": "array"}},
        {"parameters": {"type": "object", "properties": {}, "required": ["x"]}},
        {"main_arg": "nope"},
    ],
)
def test_a_broken_spec_is_refused(kwargs: dict[str, object]) -> None:
    base: dict[str, object] = {
        "name": "t",
        "description": "d",
        "parameters": {"type": "object", "properties": {"a": {"type": "string"}}},
    }
    base.update(kwargs)
    with pytest.raises(ValueError):  # noqa: PT011 - each case has its own message
        ToolSpec(**base)  # type: ignore[arg-type]


def test_importing_the_table_stays_light() -> None:
    code = (
        "import sys, harness.actors.tools as t; t.builtin_table(); t.Permissions;"
        "heavy = [m for m in ('tree_sitter', 'tree_sitter_language_pack', 'psutil', 'subprocess')"
        " if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_fresh_table_is_independent() -> None:
    a, b = builtin_table(), ToolTable()
    assert len(b) == 0
    a.unregister("read_file")
    assert "read_file" in builtin_table()
