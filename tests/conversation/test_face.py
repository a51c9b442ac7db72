"""The conversation's one public face, and who may import what of it.

The terminal, headless mode and the Python API hold a session only through
``harness.conversation``'s face; none of them, nor the conversation itself,
imports a sibling package's private module, and only ``harness.cli`` knows the screen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import harness.api
import harness.conversation

SRC = Path(harness.conversation.__file__).resolve().parents[1]


def _imports(path: Path) -> list[str]:
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
            out.extend(f"{node.module}.{a.name}" for a in node.names)
    return out


def _files(*roots: str) -> list[Path]:
    out: list[Path] = []
    for root in roots:
        p = SRC / root
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return out


def test_the_face_exports_what_it_names() -> None:
    face = harness.conversation
    assert sorted(face.__all__) == sorted(set(face.__all__))
    for name in face.__all__:
        assert hasattr(face, name), name
    for name in ("open_session", "Session", "SessionOptions", "Approver", "ApprovalRequest"):
        assert name in face.__all__
    # the documented import path is the same face
    for name in face.__all__:
        assert getattr(harness.api, name) is getattr(face, name)


@pytest.mark.parametrize(
    "path", _files("cli", "api.py", "conversation"), ids=lambda p: str(p.relative_to(SRC))
)
def test_no_private_module_of_another_package_is_imported(path: Path) -> None:
    own = ".".join(path.relative_to(SRC.parent).parts[:2])  # harness.cli, harness.conversation
    for name in _imports(path):
        parts = name.split(".")
        private = [i for i, p in enumerate(parts) if p.startswith("_") and p != "__future__"]
        if not private or parts[0] != "harness":
            continue
        owner = ".".join(parts[: private[0]])
        # its own package's, or its parent's (``harness._version``), but no sibling's
        assert own == owner or own.startswith(owner + ".") or owner.startswith(own + "."), (
            f"{path.name} imports {name}"
        )


@pytest.mark.parametrize(
    "path", _files("api.py", "conversation"), ids=lambda p: str(p.relative_to(SRC))
)
def test_only_the_terminal_knows_the_screen(path: Path) -> None:
    for name in _imports(path):
        assert name.split(".")[0] not in ("rich", "prompt_toolkit"), f"{path.name} imports {name}"
