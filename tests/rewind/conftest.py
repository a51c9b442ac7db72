"""Fixtures for the rewind tests: the tools tests' workspace, repository and in-process call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.tools.conftest import call, repo, ws

__all__ = ["call", "harness", "repo", "tree", "ws"]


def tree(root: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every path under *root* but ``.git``: its kind, bytes (or link target) and mode."""
    out: dict[str, tuple[str, bytes, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = str(full.relative_to(root))
            st = os.lstat(full)
            if full.is_symlink():
                out[rel] = ("link", os.readlink(full).encode(), 0)
            elif full.is_dir():
                out[rel] = ("dir", b"", st.st_mode & 0o7777)
            else:
                out[rel] = ("file", full.read_bytes(), st.st_mode & 0o7777)
    return out


ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
WORKERS = {
    "model": "harness.actors.model",
    "tools": "harness.actors.tools",
    "shell": "harness.actors.shell",
}


def harness(
    args: list[str], *, workspace: Path, home: Path, stdin: str = "", shell: bool = False
) -> subprocess.CompletedProcess[str]:
    """The real program, ``python -m harness ARGS``, in *workspace* with *home*; its shell
    worker only with *shell* (a run whose model runs a command): each worker costs a
    start-up."""
    env = dict(os.environ)
    workers = WORKERS if shell else {k: v for k, v in WORKERS.items() if k != "shell"}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=PYTHONPATH, HARNESS_WORKERS=json.dumps(workers))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=workspace,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=90,
    )
