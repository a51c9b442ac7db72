"""Fixtures for the tools tests: a real workspace, a private HARNESS_HOME, real git repos."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.actors.tools._dispatch import invoke
from harness.messages.tools import ToolInvoke, ToolOutcome

Call = Callable[..., ToolOutcome]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    w.mkdir()
    return w


@pytest.fixture
def call(ws: Path, home: Path) -> Call:
    """``call("read_file", path="a")`` runs the tool in the workspace, in process."""

    def run(name: str, session: str = "s", **arguments: Any) -> ToolOutcome:
        return invoke(
            ToolInvoke(name=name, arguments=arguments, workspace=str(ws), session_id=session),
            home=home,
        )

    return run


def sh(cwd: Path, *args: str) -> str:
    """Run git (or anything) and return stdout; fails the test on a non-zero exit."""
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(ws: Path) -> Path:
    """The workspace as a git repository with one commit."""
    sh(ws, "git", "init", "-q", "-b", "main")
    sh(ws, "git", "config", "user.name", "Tester")
    sh(ws, "git", "config", "user.email", "tester@example.com")
    (ws / "README.md").write_text("hello\n")
    sh(ws, "git", "add", "README.md")
    sh(ws, "git", "commit", "-q", "-m", "initial")
    return ws
