"""What a path holds, as one comparable string, and putting a backed-up path back.

Shared by the undo journal (one change at a time) and rewinding to a checkpoint
(every change since a prompt, newest first).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

__all__ = ["fingerprint", "restore_entry", "tree_size"]


def fingerprint(path: Path) -> str:
    """What a path holds now, as one string (content hashes, not times)."""
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_file():
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        return "file:" + h.hexdigest()
    if path.is_dir():
        h = hashlib.sha256()
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            for name in sorted(filenames) + [d + "/" for d in dirnames]:
                full = Path(dirpath) / name.rstrip("/")
                h.update(os.path.relpath(full, path).encode() + b"\0")
                if not name.endswith("/"):
                    h.update(fingerprint(full).encode() + b"\0")
        return "dir:" + h.hexdigest()
    if os.path.lexists(path):
        return "other"
    return "absent"


def tree_size(path: Path) -> int:
    """The bytes of the files under *path* (a symlink counts nothing)."""
    if path.is_symlink() or not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def restore_entry(workspace: Path, folder: Path, manifest: dict[str, Any]) -> None:
    """Put every path of the entry in *folder* back as it was before its change.

    Each path is removed and then written whole from the backup, so restoring an
    entry twice (a rewind started again after a crash) gives the same bytes.
    """
    for i, item in enumerate(manifest["paths"]):
        target = workspace / item["path"]
        _remove(target)
        saved = folder / f"{i}"
        if item["kind"] == "symlink":
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(item["target"], target)
        elif item["kind"] == "file":
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(saved, target)
        elif item["kind"] == "dir":
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(saved, target, symlinks=True)
        elif item.get("missing_from"):
            _remove_empty(workspace, Path(item["path"]), Path(item["missing_from"]))


def _remove_empty(workspace: Path, path: Path, top: Path) -> None:
    """Remove the folders above *path* up to *top* while they are empty (a folder
    something else has since put a file in stays)."""
    parents = list(path.parents)
    if top not in parents:
        return
    for folder in parents[: parents.index(top) + 1]:
        try:
            os.rmdir(workspace / folder)
        except OSError:
            return
