"""The manual (README.md and docs/*.md) shows what exists: the slash-command table is
the declared commands, and the Python API example imports what ``harness.api`` exports."""

from __future__ import annotations

import ast
from pathlib import Path

import harness.api
from harness.cli.tui._dispatch import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
README = "\n\n".join(
    p.read_text(encoding="utf-8")
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
)


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def command_rows() -> list[str]:
    """The manual's table rows, one per declared command (``|`` escaped in code)."""
    rows = []
    for c in COMMANDS:
        usage = f"/{c.name} {c.usage}".rstrip().replace("|", "\\|")
        aliases = "".join(f", `/{a}`" for a in c.aliases)
        rows.append(f"| `{usage}`{aliases} | {c.help} |")
    return rows


def test_the_command_table_is_the_declared_commands() -> None:
    text = _section("The interactive terminal")
    table = text[text.index("| command | what it does |") :].split("\n\n", 1)[0]
    assert table.splitlines()[2:] == command_rows()


def test_the_api_example_imports_what_the_api_exports() -> None:
    text = _section("The Python API")
    code = text[text.index("```python\n") + len("```python\n") :].split("```", 1)[0]
    tree = ast.parse(code)
    imported = [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    assert ("harness.api", "open_session") in imported
    for module, name in imported:
        if module == "harness.api":
            assert name in harness.api.__all__
            assert hasattr(harness.api, name)
    # and what the example calls on a session is there
    called = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "session"
    }
    assert called
    for method in called:
        assert hasattr(harness.api.Session, method), method
