"""The file tools through the user's editor: unsaved buffers count, changes show there.

A frontend that sits in an editor (``harness acp``) hands :func:`open_session` an
:class:`EditorPort`. :class:`EditorExecutors` then wraps the executors: before
``read_file``, ``edit_file`` or ``write_file`` runs, it asks the editor for the file's
text and hands it to the tools worker with the call (``ToolInvoke.buffers``), which
reads, versions and edits that text instead of the disk's; the approval's preview is
made the same way, so the diff the user approves is the one that happens.

The worker still makes the change itself: the jail, the protected paths, the undo
journal (whose backup is the buffer's text the change was made to, so ``/undo`` and
rewind put back what the editor showed) and the atomic write are all as without an
editor. Then the editor is given the file's new text, so its buffer holds the change.

The editor is untrusted input and the model hostile: a path is resolved by the
workspace jail first, and only a regular file inside the workspace is ever asked
about (a path outside it, or protected, is refused by the worker without a word to
the editor). An answer that is not text, holds a NUL, is over the change limit or
takes longer than :data:`EDITOR_WAIT` is ignored: the disk is read as usual.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Protocol

import attrs
import trio

from harness.actors.tools import Workspace
from harness.conversation._ports import ExecutorPort
from harness.errors import ToolError
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

__all__ = ["EDITOR_WAIT", "MAX_BUFFER_CHARS", "EditorExecutors", "EditorPort"]

#: how long the editor may take to give a file's text before the disk is read instead
EDITOR_WAIT = 5.0
#: the longest buffer taken (the tools' limit for a file they change, 8 MiB)
MAX_BUFFER_CHARS = 8 * 1024 * 1024

# the tools whose file's current text the editor may hold
_BUFFERED = frozenset({"read_file", "edit_file", "write_file"})
_CHANGING = frozenset({"edit_file", "write_file"})


class EditorPort(Protocol):
    """The user's editor, which holds the files it has open."""

    async def read_text(self, path: str) -> str | None:
        """The editor's text of the file at absolute *path*, unsaved edits included
        (``None``: it has none to give)."""
        ...

    async def write_text(self, path: str, text: str) -> None:
        """Show *text* as the new content of the file at absolute *path* (the file on
        disk already holds it)."""
        ...


class EditorExecutors:
    """An :class:`ExecutorPort` that runs the file tools on the editor's buffers.

    Args:
        inner: the executors that run the calls.
        editor: the user's editor.
        workspace: the workspace root.
        wait: how long an answer of the editor is waited for (:data:`EDITOR_WAIT`).
    """

    def __init__(
        self, inner: ExecutorPort, editor: EditorPort, workspace: Path, wait: float = EDITOR_WAIT
    ) -> None:
        self.inner = inner
        self.editor = editor
        self.workspace = Workspace(workspace)
        self.wait = wait

    def _file(self, name: str, path: object) -> str | None:
        # the real path of a regular file inside the workspace that the call names, as the
        # worker resolves it; None for anything the jail refuses (the worker says why)
        if not isinstance(path, str):
            return None
        try:
            lexical = self.workspace.resolve(path, alias=name != "write_file")
        except ToolError:
            return None
        real = os.path.realpath(lexical)
        try:
            if not stat.S_ISREG(os.stat(real).st_mode):
                return None
        except OSError:
            return None
        return real

    async def _buffers(self, name: str, arguments: dict[str, object]) -> dict[str, str]:
        real = self._file(name, arguments.get("path")) if name in _BUFFERED else None
        if real is None:
            return {}
        text: str | None = None
        with trio.move_on_after(self.wait):
            text = await self.editor.read_text(real)
        if not isinstance(text, str) or len(text) > MAX_BUFFER_CHARS or "\x00" in text:
            return {}
        return {real: text}

    async def _show(self, outcome: ToolOutcome) -> None:
        # the changed files' new text, from the disk the worker wrote, into the editor
        for shown in outcome.data.get("paths") or ():
            real = self._file("read_file", shown)
            if real is None:
                continue
            text = await trio.to_thread.run_sync(_disk_text, real)
            if text is None:
                continue
            with trio.move_on_after(self.wait):
                await self.editor.write_text(real, text)

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        """Run *request*; a file tool's file is read from the editor and shown there."""
        if executor != "tools" or request.name not in _BUFFERED:
            return await self.inner.invoke(executor, request, timeout)
        buffers = await self._buffers(request.name, request.arguments)
        if buffers:
            request = attrs.evolve(request, buffers=buffers)
        outcome = await self.inner.invoke(executor, request, timeout)
        if request.name in _CHANGING and outcome.ok and outcome.data.get("changed"):
            await self._show(outcome)
        return outcome

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        """What a call would change, measured against the editor's buffer."""
        buffers = await self._buffers(request.name, request.arguments)
        if buffers:
            request = attrs.evolve(request, buffers=buffers)
        return await self.inner.preview(request)


def _disk_text(real: str) -> str | None:
    # the file's text as the worker wrote it (None: not text, or over the limit)
    try:
        with open(real, "rb") as f:
            data = f.read(MAX_BUFFER_CHARS * 4 + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if len(text) <= MAX_BUFFER_CHARS else None
