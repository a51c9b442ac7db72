"""Atomic state files: write a temporary file beside the target, fsync, rename over it.

Killing harness mid-write leaves either the old file or the new one, never an
empty or half-written one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

__all__ = ["read_json", "write_atomic", "write_json_atomic"]


def write_atomic(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> None:
    """Replace *path* with *data* atomically (creating parent folders)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike[str], obj: Any, *, mode: int = 0o644) -> None:
    """Write *obj* as indented JSON to *path* atomically."""
    write_atomic(path, orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n", mode=mode)


def read_json(path: str | os.PathLike[str], default: Any) -> Any:
    """The JSON in *path*, or *default* when it is missing.

    Raises:
        ValueError: the file exists but is not valid JSON (the message names it).
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return default
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from None
