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

When the editor offers terminals (:attr:`EditorPort.runs_commands`), ``run_cmd`` runs
in one of them, so the user watches it there: after the approval, as ``bash -c`` under
``env -i`` with the environment harness's shell worker gives a command (secrets left
out), in a folder the jail let through, killed at the call's timeout. A call the shell
worker must run stays there: in plan mode (its file system is read-only), under a
sandbox, with ``stdin`` answers, or when the editor cannot start the terminal.

The editor is untrusted input and the model hostile: a path is resolved by the
workspace jail first, and only a regular file inside the workspace is ever asked
about (a path outside it, or protected, is refused by the worker without a word to
the editor). An answer that is not text, holds a NUL, is over the change limit or
takes longer than :data:`EDITOR_WAIT` is ignored: the disk is read as usual.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs
import trio

from harness.actors.tools import Workspace
from harness.conversation._ports import ExecutorPort
from harness.errors import ToolError
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

__all__ = [
    "EDITOR_WAIT",
    "MAX_BUFFER_BYTES",
    "EditorExecutors",
    "EditorPort",
    "TerminalRun",
]

#: how long the editor may take to give a file's text before the disk is read instead
EDITOR_WAIT = 5.0
#: the largest buffer taken, in UTF-8 bytes (write_file's limit): with the call, it must
#: fit one frame to the tools worker (16 MiB), JSON escapes included
MAX_BUFFER_BYTES = 4 * 1024 * 1024

# run_cmd's default timeout (the shell worker's)
_DEFAULT_TIMEOUT = 120.0

# the tools whose file's current text the editor may hold
_BUFFERED = frozenset({"read_file", "edit_file", "write_file"})
_CHANGING = frozenset({"edit_file", "write_file"})


@attrs.frozen
class TerminalRun:
    """What a command run in the editor's terminal came to: its output (``truncated``
    when the editor kept only its end), how it ended, and the editor's id of the
    terminal (shown in the tool call)."""

    terminal_id: str
    output: str
    truncated: bool = False
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False


class EditorPort(Protocol):
    """The user's editor, which holds the files it has open (and may run commands)."""

    @property
    def runs_commands(self) -> bool:
        """Whether commands may run in the editor's terminals."""
        ...

    async def run_command(
        self, call_id: str, argv: list[str], cwd: str, timeout: float
    ) -> TerminalRun | None:
        """Run *argv* in a terminal of the editor, in *cwd*, killed after *timeout*
        seconds (or when the caller is cancelled); ``None``: it could not start."""
        ...

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
        sandboxed: commands run under a sandbox (only the shell worker has one).
        environ: the environment a command starts from, secrets left out (default: this
            process's).
        wait: how long an answer of the editor is waited for (:data:`EDITOR_WAIT`).
    """

    def __init__(
        self,
        inner: ExecutorPort,
        editor: EditorPort,
        workspace: Path,
        *,
        sandboxed: bool = False,
        environ: Mapping[str, str] | None = None,
        wait: float = EDITOR_WAIT,
    ) -> None:
        self.inner = inner
        self.editor = editor
        self.workspace = Workspace(workspace)
        self.sandboxed = sandboxed
        self.environ = os.environ if environ is None else environ
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

    def _folder(self, cwd: object) -> str | None:
        # the real path of a folder inside the workspace (the root too), else None
        if not isinstance(cwd, str):
            return None
        try:
            real = os.path.realpath(self.workspace.resolve(cwd, allow_root=True))
        except ToolError:
            return None
        return real if os.path.isdir(real) else None

    async def _buffers(self, name: str, arguments: dict[str, object]) -> dict[str, str]:
        real = self._file(name, arguments.get("path")) if name in _BUFFERED else None
        if real is None:
            return {}
        text: str | None = None
        with trio.move_on_after(self.wait):
            text = await self.editor.read_text(real)
        if not isinstance(text, str) or "\x00" in text or len(text) > MAX_BUFFER_BYTES:
            return {}
        if len(text.encode("utf-8", "surrogatepass")) > MAX_BUFFER_BYTES:
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
        """Run *request*; a file tool's file is read from the editor and shown there, and
        ``run_cmd`` runs in the editor's terminal when it can."""
        if executor == "shell" and request.name == "run_cmd" and self._in_terminal(request):
            done = await self._run_in_terminal(request)
            if done is not None:
                return done
        if executor != "tools" or request.name not in _BUFFERED:
            return await self.inner.invoke(executor, request, timeout)
        buffers = await self._buffers(request.name, request.arguments)
        if buffers:
            request = attrs.evolve(request, buffers=buffers)
        outcome = await self.inner.invoke(executor, request, timeout)
        if request.name in _CHANGING and outcome.ok and outcome.data.get("changed"):
            await self._show(outcome)
        return outcome

    def _in_terminal(self, request: ToolInvoke) -> bool:
        args = request.arguments
        return (
            self.editor.runs_commands
            and not self.sandboxed
            and not request.read_only
            and not args.get("stdin")
            and isinstance(args.get("command"), str)
        )

    async def _run_in_terminal(self, request: ToolInvoke) -> ToolOutcome | None:
        args = request.arguments
        where = self._folder(args.get("cwd") or ".")
        if where is None:
            return None  # the shell worker refuses it, saying why
        timeout = args.get("timeout")
        seconds = float(timeout) if isinstance(timeout, int | float) else _DEFAULT_TIMEOUT
        from harness.actors.shell import command_env

        env = [f"{k}={v}" for k, v in command_env(self.environ).items() if "=" not in k]
        # No input: the agent cannot type into the editor's terminal, so a command that
        # asks reads end-of-file at once instead of waiting out its timeout (the model
        # gives answers through run_cmd's stdin, which the shell worker takes).
        argv = ["env", "-i", *env, "bash", "-c", "exec </dev/null\n" + args["command"]]
        run = await self.editor.run_command(request.call_id, argv, where, max(seconds, 1.0))
        return None if run is None else _terminal_outcome(run, seconds)

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
            data = f.read(MAX_BUFFER_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text if len(data) <= MAX_BUFFER_BYTES else None


def _terminal_outcome(run: TerminalRun, timeout: float) -> ToolOutcome:
    # the words the shell worker gives the model: the output, then one status line
    if run.timed_out:
        status = f"[timed out after {timeout:g} s: the command was stopped]"
    elif run.signal:
        status = f"[killed by signal {run.signal}]"
    else:
        status = f"[exit code {run.exit_code}]"
    body = run.output if run.output.strip() else "(no output)\n"
    if not body.endswith("\n"):
        body += "\n"
    head = "[output cut: only its end is shown]\n" if run.truncated else ""
    data: dict[str, Any] = {
        "status": "timeout" if run.timed_out else "exited",
        "exit_code": run.exit_code,
        "signal": run.signal,
        "terminal_id": run.terminal_id,
    }
    # as the shell worker: a command that ran is a result, whatever its exit code
    return ToolOutcome(not run.timed_out, f"{head}{body}{status}", data)
