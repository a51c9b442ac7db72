"""Fixtures for the rewind tests: the tools tests' workspace, repository and in-process call."""

from __future__ import annotations

import os
from pathlib import Path

from tests.tools.conftest import call, repo, ws

__all__ = ["call", "repo", "tree", "ws"]


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
