"""Claude Code's tool names and argument shapes, so a hook copied from its documentation
reads what it expects.

A hook for ``Bash`` reads ``tool_input.command``; one for ``Edit|Write`` reads
``tool_input.file_path`` (absolute). harness's tools have other names and arguments:
:func:`claude_tool` gives the name and input a hook sees for a harness call, and
:func:`harness_arguments` turns an ``updatedInput`` a hook wrote in that shape back into
the harness call's arguments. Which harness tool goes by which Claude name is
:data:`harness.words.CLAUDE_TOOLS`, the one table of those names. Tools with no Claude
counterpart keep their own name and arguments; so do those whose Claude counterpart reads
other arguments (``Skill``, ``AskUserQuestion``...); MCP tools are
``mcp__<server>__<tool>`` in both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.words import claude_aliases, claude_name

__all__ = ["claude_response", "claude_tool", "harness_arguments", "tool_names"]

# harness argument -> Claude argument, per tool (file paths become absolute on the way out)
_RENAMES: dict[str, dict[str, str]] = {
    "write_file": {"path": "file_path"},
    "edit_file": {"path": "file_path", "old_text": "old_string", "new_text": "new_string"},
    "read_file": {"path": "file_path", "start_line": "offset"},
    "spawn_agent": {"task": "prompt"},
}
_PATH_ARGS = frozenset({"file_path", "path"})


def tool_names(name: str) -> tuple[str, ...]:
    """The names a matcher may use for harness tool *name*: Claude's (when it has any)
    and harness's own."""
    return (*claude_aliases(name), name)


def _absolute(value: Any, cwd: Path) -> Any:
    if not isinstance(value, str) or not value:
        return value
    return value if os.path.isabs(value) else str(cwd / value)


def claude_tool(name: str, arguments: Mapping[str, Any], cwd: Path) -> tuple[str, dict[str, Any]]:
    """``(tool_name, tool_input)`` as a Claude Code hook reads them for a harness call."""
    claude = claude_name(name)
    if claude is None:
        return name, dict(arguments)
    renames = _RENAMES.get(name, {})
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        new = renames.get(key, key)
        out[new] = _absolute(value, cwd) if new in _PATH_ARGS else value
    if name == "edit_file" and isinstance(arguments.get("edits"), list):
        claude = "MultiEdit"
        out["edits"] = [
            {"old_string": e.get("old_text"), "new_string": e.get("new_text")}
            if isinstance(e, dict)
            else e
            for e in arguments["edits"]
        ]
    if name == "run_cmd" and isinstance(arguments.get("timeout"), int | float):
        out["timeout"] = int(arguments["timeout"] * 1000)  # Claude's Bash counts milliseconds
    if name == "read_file" and isinstance(arguments.get("start_line"), int):
        end = arguments.get("end_line")
        if isinstance(end, int):
            out["limit"] = end - arguments["start_line"] + 1
            out.pop("end_line", None)
    if name == "spawn_agent":
        task = str(arguments.get("task", ""))
        out.setdefault("description", task.split("\n", 1)[0][:80])
    return claude, out


def harness_arguments(name: str, updated: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """The arguments of harness tool *name* from a hook's ``updatedInput`` (written in the
    shape :func:`claude_tool` gave it, or in harness's own); the loop binds and checks
    them again like any call's."""
    if claude_name(name) is None:
        return dict(updated)
    back = {new: old for old, new in _RENAMES.get(name, {}).items()}
    out: dict[str, Any] = {}
    for key, value in updated.items():
        old = back.get(key, key)
        if old == "path" and isinstance(value, str) and os.path.isabs(value):
            try:
                value = str(Path(value).relative_to(cwd))
            except ValueError:
                pass  # outside the workspace: the jail says no, as for any call
        out[old] = value
    if name == "edit_file" and isinstance(updated.get("edits"), list):
        out["edits"] = [
            {"old_text": e.get("old_string"), "new_text": e.get("new_string")}
            if isinstance(e, dict) and "old_string" in e
            else e
            for e in updated["edits"]
        ]
    if name == "run_cmd" and isinstance(updated.get("timeout"), int | float):
        out["timeout"] = max(1, int(updated["timeout"]) // 1000)
    if name == "read_file" and isinstance(updated.get("limit"), int):
        start = out.get("start_line", 1)
        out.pop("limit", None)
        if isinstance(start, int):
            out["end_line"] = start + updated["limit"] - 1
    if name == "spawn_agent":
        out.pop("description", None)
    return out


def claude_response(
    name: str, arguments: Mapping[str, Any], ok: bool, output: str, cwd: Path
) -> dict[str, Any]:
    """``tool_response`` for PostToolUse: the fields Claude's hooks read for the tool, and
    harness's own ``ok`` and ``output``."""
    out: dict[str, Any] = {"success": ok, "output": output}
    if name == "run_cmd":
        out.update(stdout=output, stderr="", interrupted=False, isImage=False)
    elif name in ("write_file", "edit_file", "read_file"):
        out["filePath"] = _absolute(arguments.get("path", ""), cwd)
    return out
