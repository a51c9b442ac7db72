"""The conversation's one public face.

The terminal, headless mode and the Python API hold a session only through
``harness.conversation``'s face; who may import what is checked for the whole code in
``tests/test_house_rules.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

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
