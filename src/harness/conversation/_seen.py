"""Which files the model has seen, so it never replaces whole a file it has not.

``write_file`` over an existing file replaces everything in it. A model that never read the
file writes what it imagines is there: measured, the 1.5B embedded model asked to rename a
function wrote ``def compute(): pass`` over the whole of ``util.py``. So a write over a file
with content is refused until the file was read, written or edited in this session (by a
call that worked); the refusal says how to go on. A resumed session counts the reads and
writes its history asked for.

A model that may not replace files at all (the embedded small model: ``replace=False``)
changes a file with content through ``edit_file`` only, read or not: measured in ``bench
local-tasks``, the 1.5B model asked to rename a function read ``util.py``, then wrote
``def compute(self, x, y): return x + y`` over the whole of it. An edit's old text must be
in the file, so what it leaves is the file's own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from harness.messages.model import ChatMessage

__all__ = ["SeenFiles"]

_SEEING = frozenset({"read_file", "write_file", "edit_file"})


class SeenFiles:
    """The files of *workspace* the model has seen; *replace*: whether it may replace
    one that has content at all."""

    def __init__(
        self, workspace: str, history: Iterable[ChatMessage] = (), *, replace: bool = True
    ) -> None:
        self.workspace = workspace
        self.replace = replace
        self._seen: set[str] = set()
        for msg in history:
            for call in msg.tool_calls:
                self.saw(call.name, call.arguments, ok=True)

    def _key(self, path: object) -> str | None:
        if not isinstance(path, str) or not path.strip():
            return None
        return os.path.realpath(os.path.join(self.workspace, path.strip()))

    def saw(self, tool: str, args: Mapping[str, Any], ok: bool) -> None:
        """Note a finished call: a read, write or edit that worked shows the file."""
        key = self._key(args.get("path")) if ok and tool in _SEEING else None
        if key is not None:
            self._seen.add(key)

    def refusal(self, tool: str, args: Mapping[str, Any]) -> str | None:
        """Why a ``write_file`` call may not run (a clause, no full stop): it would
        replace a file with content the model has not seen, or may not replace. ``None``
        for every other call, and when it may (the tool itself still checks the path)."""
        key = self._key(args.get("path")) if tool == "write_file" else None
        if key is None or (self.replace and key in self._seen):
            return None
        try:
            if os.path.getsize(key) == 0:
                return None  # nothing in it to lose
        except OSError:
            return None  # a new file (or not one the tool will take)
        shown = str(args["path"]).strip()
        if not self.replace:
            return (
                f"{shown} exists, and write_file only creates files here: change it with "
                "edit_file, replacing the lines to change (read it first with read_file)"
            )
        return (
            f"{shown} exists and was not read in this session, and write_file would replace "
            "all of it: read it first with read_file, or change part of it with edit_file"
        )
