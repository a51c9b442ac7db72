"""Messages for running a tool on the worker that executes it (tools, shell, mcp)."""

from __future__ import annotations

from typing import Any

import attrs

from harness.ipc import Message


@attrs.frozen
class ToolInvoke(Message, tag="tool.invoke"):
    """Run tool ``name`` with validated ``arguments`` in ``workspace``.

    ``read_only``: the call comes from plan mode (or a read-only stage of deepthink);
    the shell worker then runs the command with the file system read-only where it can.
    ``buffers``: the text of files open in the user's editor, by real path, which the
    file tools read and change instead of the disk's (unsaved edits count).
    """

    name: str
    arguments: dict[str, Any]
    call_id: str = ""
    session_id: str = ""
    workspace: str = ""
    read_only: bool = False
    buffers: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen
class ToolOutcome(Message, tag="tool.outcome"):
    """What a tool produced. ``output`` is the text the model sees; ``data`` holds
    structured extras for frontends (a diff, changed paths, a shell session id)."""

    ok: bool
    output: str
    data: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ToolPreview(Message, tag="tool.preview"):
    """Describe what ``name(arguments)`` would change, without changing anything
    (``buffers``: as :class:`ToolInvoke`'s)."""

    name: str
    arguments: dict[str, Any]
    workspace: str = ""
    buffers: dict[str, str] = attrs.field(factory=dict)


@attrs.frozen
class ToolPreviewResult(Message, tag="tool.preview_result"):
    summary: str
    diff: str = ""


@attrs.frozen
class Undo(Message, tag="tool.undo"):
    """Revert the newest AI change in ``workspace`` (of ``session_id`` when given).

    In a git repository that is the newest ``ai(<tool>): <paths>`` commit harness
    made; outside one, the session's backup. Answered with :class:`UndoResult`.
    """

    workspace: str = ""
    session_id: str = ""


@attrs.frozen
class UndoResult(Message, tag="tool.undo_result"):
    """What ``/undo`` did. ``ok`` false means nothing was changed; ``message`` says why
    (nothing to undo, or which files changed since the AI wrote them)."""

    ok: bool
    message: str
    paths: tuple[str, ...] = ()
    commit: str | None = None


@attrs.frozen
class RewindSpan:
    """The AI changes of one session that a rewind takes back: those made at or after
    ``since`` and before ``until`` (epoch seconds; ``until=None``: up to now)."""

    session_id: str
    since: float
    until: float | None = None


@attrs.frozen
class Rewind(Message, tag="tool.rewind"):
    """Put the files of ``workspace`` back as they were at a checkpoint: every AI change
    the undo journal holds in ``spans`` is undone, newest first. With ``apply`` false
    nothing changes: the answer says what would. Answered with :class:`RewindResult`.
    """

    workspace: str = ""
    spans: tuple[RewindSpan, ...] = ()
    apply: bool = False


@attrs.frozen
class RewindFile:
    """One path a rewind changes.

    ``action`` is ``restore`` (written back as it was), ``remove`` (it did not exist
    at the checkpoint) or ``recreate`` (the AI deleted it). ``note`` says why the
    result may not be what the path held at the checkpoint, or why it cannot be
    restored at all (``restorable`` false).
    """

    path: str
    action: str
    note: str = ""
    restorable: bool = True


@attrs.frozen
class RewindResult(Message, tag="tool.rewind_result"):
    """What a rewind changes (``apply`` false) or changed.

    ``unrecorded``: paths changed since the checkpoint that no AI file tool changed
    (by commands, or outside harness), which a rewind cannot put back;
    ``unrecorded_more`` counts those left out of the list. ``notes`` are whole
    sentences about what the rewind cannot do (pruned history, a partial look).
    """

    ok: bool
    message: str
    files: tuple[RewindFile, ...] = ()
    unrecorded: tuple[str, ...] = ()
    unrecorded_more: int = 0
    notes: tuple[str, ...] = ()
    commit: str | None = None


@attrs.frozen
class SetAutocommit(Message, tag="tool.set_autocommit"):
    """``/autocommit on|off`` for ``workspace``; ``enabled=None`` only asks.

    Answered with :class:`AutocommitState`. The setting is kept under
    ``HARNESS_HOME``, so it survives a restart of the tools worker.
    """

    workspace: str = ""
    enabled: bool | None = None


@attrs.frozen
class AutocommitState(Message, tag="tool.autocommit_state"):
    """Whether AI changes are committed, and whether ``workspace`` is a git repository."""

    enabled: bool
    git: bool
