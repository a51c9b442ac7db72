"""The table and the handlers may not drift apart.

Every tool the table gives to the tools worker has a handler and every handler a
table entry; every parameter the table declares is read by its handler's module;
and each tool runs with every one of its parameters given, so a handler that
reads an argument the schema does not declare (or the other way round) fails here.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

from harness.actors.tools import builtin_table
from harness.actors.tools._dispatch import HANDLERS
from tests.tools.conftest import Call, sh

TOOLS_SPECS = builtin_table().by_executor("tools")

# Calls that together give EVERY parameter of each tool (optional ones too).
FULL_CALLS: dict[str, dict[str, Any]] = {
    "read_file": {"path": "a.py", "start_line": 1, "end_line": 3, "next_read": {"line": 1}},
    "write_file": {"path": "b.py", "content": "y = 2\n", "version": None},
    "edit_file": {"path": "a.py", "old_text": "x = 1", "new_text": "x = 3"},
    "edit_file#2": {"path": "a.py", "edits": [{"old_text": "x = 3", "new_text": "x = 1"}]},
    "move_file": {"source": "b.py", "destination": "c.py"},
    "copy_file": {"source": "c.py", "destination": "d.py"},
    "delete_path": {"path": "d.py"},
    "create_dir": {"path": "pkg"},
    "list_dir": {"path": "."},
    "find_files": {"pattern": "*.py", "path": "."},
    "search_text": {"pattern": "x", "path": ".", "glob": "*.py", "regex": False},
    "git_status": {},
    "git_diff": {"path": "a.py"},
    "get_system_info": {},
    "get_code_skeleton": {"path": "a.py"},
    "query_ast": {"path": "a.py", "query": "(identifier) @id"},
}


def test_handlers_and_table_name_the_same_tools() -> None:
    assert set(HANDLERS) == {s.name for s in TOOLS_SPECS}
    assert {n.split("#")[0] for n in FULL_CALLS} == set(HANDLERS)


@pytest.mark.parametrize("spec", TOOLS_SPECS, ids=lambda s: s.name)
def test_every_declared_parameter_is_read_by_its_handler(spec: Any) -> None:
    handler = HANDLERS[spec.name]
    module = importlib.import_module(handler.__module__)
    # The handler's module and the tool modules it calls into.
    used = {module} | {
        importlib.import_module(v.__module__)
        for v in vars(module).values()
        if getattr(v, "__module__", "").startswith("harness.actors.tools.")
    }
    source = "".join(inspect.getsource(m) for m in used)
    for param in spec.parameters.get("properties", {}):
        assert f'"{param}"' in source, f"{spec.name}: handler never reads {param!r}"
    given = {k for n, a in FULL_CALLS.items() if n.split("#")[0] == spec.name for k in a}
    assert given == set(spec.parameters.get("properties", {}))


def test_every_tool_runs_with_all_its_parameters(ws: Path, call: Call) -> None:
    sh(ws, "git", "init", "-q", "-b", "main")
    (ws / "a.py").write_text("x = 1\n")
    for name, args in FULL_CALLS.items():
        full = {k: v for k, v in args.items() if v is not None}
        out = call(name.split("#")[0], **full)
        assert out.ok, (name, out.output)
        assert "unexpectedly" not in out.output


def _sample(schema: dict[str, Any]) -> Any:
    """A value fitting *schema*, with every property given (strings span lines)."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        return {k: _sample(v) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [_sample(schema.get("items", {"type": "string"}))]
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return float(max(1, schema.get("minimum", 1)))
    if kind == "boolean":
        return True
    return 'line one "quoted"\n    line two {braces} <tag>\n'


@pytest.mark.parametrize("spec", list(builtin_table()), ids=lambda s: s.name)
def test_the_text_protocol_carries_every_tool_exactly(spec: Any) -> None:
    """The model's text-protocol prompt names each tool with every parameter (and
    which are required), and a call rendered the text way parses back to the same
    arguments, which then bind."""
    from harness.actors.model import parse_reply, render_call, text_protocol_prompt
    from harness.messages.model import ToolCall

    table = builtin_table()
    prompt = text_protocol_prompt(table.schemas(mode="plan") + table.schemas())
    assert f"## {spec.name}\n" in prompt
    section = prompt.split(f"## {spec.name}\n", 1)[1].split("\n## ", 1)[0]
    required = set(spec.parameters.get("required", ()))
    for name in spec.parameters.get("properties", {}):
        line = next(ln for ln in section.splitlines() if ln.startswith(f"- {name} ("))
        assert ("required" in line.split(")")[0]) == (name in required), line
    args = _sample(spec.parameters)
    if spec.name == "edit_file":
        del args["edits"]  # one form at a time
    if spec.name == "read_file":
        args["next_read"] = {"line": 2, "column": 0}
    text = render_call(ToolCall(id="c1", name=spec.name, arguments=args), spec.schema())
    params = {s.name: list(s.parameters.get("properties", {})) for s in table}
    parsed = parse_reply(text, params)
    assert [c.name for c in parsed.calls] == [spec.name]
    assert parsed.calls[0].arguments == args
    assert table.bind(spec.name, parsed.calls[0].arguments) is not None
