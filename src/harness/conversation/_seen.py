"""Which files the model has seen, so it never replaces whole a file it has not.

``write_file`` over an existing file replaces everything in it. A model that never read the
file writes what it imagines is there: measured, the 1.5B embedded model asked to rename a
function wrote ``def compute(): pass`` over the whole of ``util.py``. So a write over a file
with content is refused until the file was read, written or edited in this session (by a
call that worked); the refusal says how to go on. A resumed session counts the reads and
writes its history asked for.

A model held to strict writes (the embedded small model: ``strict=True``) goes further:

- its ``write_file`` only creates files (or fills empty ones), read or not. Measured in
  ``bench local-tasks``: asked to rename a function, the 1.5B model read ``util.py``, then
  wrote ``def compute(self, x, y): return x + y`` over the whole of it.
- its ``edit_file`` changes a file it has not seen (read, written or edited, or named with
  its lines by an edit's note that a renamed name is still used there) only when each
  ``old_text`` is found in it exactly once: text the file holds, not text the model
  imagined. Measured (a llama.cpp server, 8 samples each): asked to fix ``add`` in
  ``calc.py``, the model edited it unread, believing it said ``return a + b``; shown the
  file by the edit's refusal, it kept its belief and wrote ``return a + b + 1``, 8 times
  in 8. Told to read first, then given the read, it wrote the right edit 5 times in 8
  (the rest wrote nothing, which the nudges handle). An edit refused so is told to read
  the file first, and shown nothing of it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.actors.tools import Workspace, unread_edit
from harness.errors import ToolError
from harness.messages.model import ChatMessage

__all__ = ["SeenFiles"]

_SEEING = frozenset({"read_file", "write_file", "edit_file"})


class SeenFiles:
    """The files of *workspace* the model has seen; *strict*: the stricter rules above."""

    def __init__(
        self, workspace: str, history: Iterable[ChatMessage] = (), *, strict: bool = False
    ) -> None:
        self.workspace = Workspace(workspace)
        self.strict = strict
        self._seen: set[str] = set()
        # files an edit's result showed some lines of: enough to edit, not to replace
        self._shown: set[str] = set()
        self.restart(history)

    def restart(self, history: Iterable[ChatMessage]) -> None:
        """Forget everything, then count what *history* read and wrote (a rewind: the
        turns it dropped no longer show the model anything)."""
        self._seen.clear()
        self._shown.clear()
        for msg in history:
            for call in msg.tool_calls:
                self.saw(call.name, call.arguments, ok=True)

    def _key(self, path: object, tool: str = "") -> str | None:
        """The real path a call's *path* names, resolved as the tool resolves it
        (``None`` for a path the tool refuses)."""
        if not isinstance(path, str):
            return None
        try:
            lexical = self.workspace.resolve(
                path, alias=tool != "write_file", check_protected=False
            )
        except ToolError:
            return None
        return os.path.realpath(lexical)

    def saw(
        self, tool: str, args: Mapping[str, Any], ok: bool, data: Mapping[str, Any] | None = None
    ) -> None:
        """Note a finished call: a read, write or edit that worked shows the file; an
        edit's ``shows`` (the files its note quotes) show those in part."""
        key = self._key(args.get("path"), tool) if ok and tool in _SEEING else None
        if key is not None:
            self._seen.add(key)
        shows = (data or {}).get("shows") if ok and tool == "edit_file" else None
        for path in shows if isinstance(shows, list) else ():
            if (part := self._key(path)) is not None:
                self._shown.add(part)

    def refusal(self, tool: str, args: Mapping[str, Any], decision: str = "ask") -> str | None:
        """Why a ``write_file`` or (strict) ``edit_file`` call may not run (a clause, no
        full stop). ``None`` for every other call, and when it may (the tool itself
        still checks the path). *decision* is the permission rules' on the call: a call
        they deny is told that instead (``None`` here)."""
        if tool not in ("write_file", "edit_file") or decision == "deny":
            return None
        key = self._key(args.get("path"), tool)
        if key is None:
            return None
        if tool == "write_file":
            allowed = key in self._seen and not self.strict
        else:
            allowed = not self.strict or key in self._seen or key in self._shown
        if allowed or not _has_content(key):
            return None
        shown = str(args["path"]).strip()
        if tool == "edit_file":
            return unread_edit(Path(key), shown, args)
        if self.strict:
            return (
                f"{shown} exists, and write_file only creates files here: change it with "
                "edit_file, replacing the lines to change (read it first with read_file)"
            )
        return (
            f"{shown} exists and was not read in this session, and write_file would replace "
            "all of it: read it first with read_file, or change part of it with edit_file"
        )


def _has_content(path: str) -> bool:
    """Whether *path* is a file with something in it to lose (a new file, or one the
    tool will not take, is the tool's to answer)."""
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False
