"""The workspace's map: its files, each with the names it defines, for the system prompt.

A model that cannot see the folder guesses: asked how many database connections the back
office may keep open, the embedded 1.5B model read ``back_office/config.ini``, a file that
was never there; asked which function rounds to cents, it named ``round_to_cents`` in
``utils.py``. The map names the files and, for the kinds of file whose names can be read
without running anything, what each defines: a Python or JavaScript module's functions,
classes and constants (a class with its methods), a shell script's functions and
variables, a TOML, JSON or YAML file's keys (nested in parentheses, three levels), a CSV
file's columns. Never a value: a key's name says where a setting lives, its value stays in
the file.

It is a snapshot taken as the session opens (the system prompt is the same for the whole
session, so a model's saved state after it stays good), and it has a budget: files are
listed the shallowest first, each with its names while the budget lasts, then by name
alone, then counted. Hidden folders and the usual generated ones (``node_modules``,
``__pycache__``, virtual environments, build output) are skipped, no link is followed or
read, nor anything but a regular file, and no file over 64 KB is read.

``--workspace-map`` (the API's ``workspace_map=True``, a profile's
:attr:`~harness.actors.model.ModelProfile.maps_workspace`) turns it on; no profile does
today: on the embedded 1.5B model it won nothing (``docs/models.md``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["BUDGET", "outline", "workspace_map"]

BUDGET = 2400
"""The most characters the map may take (about 600 tokens)."""

_MAX_FILES = 2000  # the walk stops after this many files: a big tree is counted, not read
_MAX_BYTES = 64_000  # a bigger file is listed by name
_MAX_LINE = 400  # one file's line at most, its names cut with "…"
_DEPTH = 3  # levels of nested keys shown

# folders never walked: generated, installed or tool state (hidden ones are skipped too)
_SKIP = frozenset(
    {"node_modules", "__pycache__", "venv", "env", "dist", "build", "target", "site-packages"}
)

_JS = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class)\s+(\w+)"
    r"|^(?:export\s+)?(?:const|let|var)\s+(\w+)",
    re.M,
)
_SH = re.compile(r"^function\s+(\w+)|^(\w+)\s*\(\)\s*\{|^(?:export\s+)?([A-Z_][A-Z0-9_]*)=", re.M)
_HEAD = "Files in the workspace as the session opened (after each, what it defines or its keys):"
_YAML = re.compile(r"^( *)(?:- )?([\w.-]+|\"[^\"\n]+\"|'[^'\n]+'):(?:\s|$)", re.M)


def _nested(tree: Mapping[Any, object], depth: int = _DEPTH) -> str:
    """Keys of *tree*, a nested key's own keys in parentheses, *depth* levels."""
    parts = []
    for key, value in tree.items():
        if isinstance(value, dict) and value and depth > 1:
            parts.append(f"{key} ({_nested(value, depth - 1)})")
        else:
            parts.append(str(key))
    return ", ".join(parts)


def _python(text: str) -> str:
    """Top-level functions, classes (with their methods) and constants."""
    names = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = [
                n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
            names.append(f"{node.name} ({', '.join(methods)})" if methods else node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()]
    return ", ".join(dict.fromkeys(names))


def _found(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def names(text: str) -> str:
        seen = dict.fromkeys(next(g for g in m.groups() if g) for m in pattern.finditer(text))
        return ", ".join(seen)

    return names


def _yaml(text: str) -> str:
    """Keys by their indentation (a list item's keys under its parent)."""
    root: dict[object, object] = {}
    stack: list[tuple[int, dict[object, object]]] = [(-1, root)]
    for m in _YAML.finditer(text):
        indent, key = len(m.group(1)), m.group(2).strip("\"'")
        while stack[-1][0] >= indent:
            stack.pop()
        child = stack[-1][1].setdefault(key, {})
        if isinstance(child, dict):
            stack.append((indent, child))
    return _nested(root)


def _json(text: str) -> str:
    data = json.loads(text)
    return _nested(data) if isinstance(data, dict) else ""


def _csv(text: str) -> str:
    return ", ".join(c.strip() for c in text.partition("\n")[0].split(",") if c.strip())


_OUTLINES: dict[str, Callable[[str], str]] = {
    ".py": _python,
    ".js": _found(_JS),
    ".mjs": _found(_JS),
    ".cjs": _found(_JS),
    ".jsx": _found(_JS),
    ".ts": _found(_JS),
    ".tsx": _found(_JS),
    ".sh": _found(_SH),
    ".bash": _found(_SH),
    ".toml": lambda text: _nested(tomllib.loads(text)),
    ".json": _json,
    ".yaml": _yaml,
    ".yml": _yaml,
    ".csv": _csv,
}


def outline(name: str, text: str) -> str:
    """The names a file called *name* holding *text* defines, comma-separated ("" for a
    kind of file the map does not read, or one that does not parse)."""
    read = _OUTLINES.get(os.path.splitext(name)[1].lower())
    if read is None:
        return ""
    try:
        return read(text)
    except (ValueError, SyntaxError, RecursionError):  # JSON and TOML errors are ValueErrors
        return ""


def _files(root: Path) -> tuple[list[str], bool]:
    """The workspace's files, relative, shallowest first; and whether the walk stopped
    at :data:`_MAX_FILES`."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root, onerror=lambda _: None):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP)
        rel = os.path.relpath(folder, root)
        for name in sorted(names):
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
            if len(found) >= _MAX_FILES:
                return sorted(found, key=_shallow), True
    return sorted(found, key=_shallow), False


def _shallow(path: str) -> tuple[int, str]:
    return (path.count("/"), path)


def _line(root: Path, rel: str) -> str:
    """*rel* with its names, or alone (a link, a pipe or a device is never opened)."""
    path = root / rel
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
            return rel
        names = outline(rel, path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return rel
    if not names:
        return rel
    line = f"{rel}: {names}"
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"


def workspace_map(root: str | Path, budget: int = BUDGET) -> str:
    """The map of the folder *root* as a system-prompt section ("" for an empty folder).

    A line a file, the shallowest first. When every name fits in *budget* characters,
    each file's names follow its own while the budget lasts; else the names alone, as many
    as fit, and a count of the rest (a big tree's names say more than a few outlines)."""
    root = Path(root)
    files, cut = _files(root)
    if not files:
        return ""
    lines = [_HEAD]
    used = len(_HEAD)
    names_left = sum(len(f) + 1 for f in files)  # what the names not yet listed take
    fits = not cut and used + names_left <= budget
    for i, rel in enumerate(files):
        names_left -= len(rel) + 1
        line = rel
        if fits:
            line = _line(root, rel)
            if used + len(line) + 1 + names_left > budget:
                line = rel  # its names would crowd out the names after it
        if used + len(line) + 1 > budget:
            lines.append(f"… and {'at least ' if cut else ''}{len(files) - i} more files")
            return "\n".join(lines)
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
