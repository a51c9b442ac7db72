"""Claude Code's tool names, read as harness's, so a definition copied from a Claude
Code project works as it is.

Claude Code names its tools ``Read``, ``Edit``, ``Bash`` ...; harness has its own
table, and :data:`harness.words.CLAUDE_TOOLS` says which harness tools do each Claude
tool's job (the hooks read the same table). :func:`map_tools` turns a list written with
either kind of name into harness's names and says, one note each, what it could not map
and what it read more loosely than it was written (``Bash(git diff:*)`` becomes the whole
``run_cmd``: a tool list limits tools, the permission rules limit arguments).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from harness.words import CLAUDE_TOOLS, UNMAPPED_CLAUDE_TOOLS

__all__ = ["map_tools", "split_tool_list"]

# ``Bash(git diff:*)``, ``Task(reviewer)``: a tool name and what it is narrowed to
_CALL = re.compile(r"^([A-Za-z_][\w.-]*)\s*\((.*)\)$", re.DOTALL)


def split_tool_list(value: Any) -> list[str]:
    """A ``tools`` / ``allowed-tools`` field as a list of entries.

    Claude Code writes it as a comma-separated string (``Read, Grep, Bash(git log:*)``)
    or a YAML list; commas inside parentheses belong to the entry.
    """
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    out: list[str] = []
    depth, cur = 0, ""
    for ch in str(value):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [e for e in out if e]


def map_tools(entries: list[str], known: Collection[str]) -> tuple[tuple[str, ...], list[str]]:
    """Harness's tool names for *entries*, and a note per entry not taken as written.

    Args:
        entries: tool names, Claude Code's (``Read``, ``Bash(npm test:*)``) or
            harness's (``read_file``, ``mcp__server__tool``).
        known: harness's tool names a definition may use; an ``mcp__`` name is
            taken as it is (its server may not be up yet).

    An entry that names no harness tool is left out and named in a note.
    """
    tools: list[str] = []
    notes: list[str] = []

    def add(names: tuple[str, ...]) -> None:
        tools.extend(n for n in names if n not in tools)

    for entry in entries:
        call = _CALL.match(entry)
        base = call.group(1) if call else entry
        if base in CLAUDE_TOOLS:
            add(CLAUDE_TOOLS[base])
            if call:
                notes.append(
                    f"{entry} is read as {', '.join(CLAUDE_TOOLS[base])}: a tool list "
                    "limits tools, not their arguments (the permission rules still decide "
                    "each call)"
                )
        elif base in known or base.startswith("mcp__"):
            add((base,))
        elif base in UNMAPPED_CLAUDE_TOOLS:
            notes.append(f"unknown tool {entry}: harness has no tool like Claude Code's {base}")
        else:
            notes.append(f"unknown tool {entry}: no harness tool has that name")
    return tuple(tools), notes
