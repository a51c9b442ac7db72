"""The tools worker's side of the table: handlers by name, invoke and preview.

Everything here is plain synchronous code over real files, so tests call it in
process and the worker runs it in a thread.
"""

from __future__ import annotations

import importlib
import os
import stat
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.actors.tools import _files
from harness.actors.tools._builtin import builtin_table
from harness.actors.tools._edit import unified_diff
from harness.actors.tools._git import git_diff, git_status
from harness.actors.tools._jail import ToolError, Workspace
from harness.actors.tools._readfile import read_file as _read_file
from harness.actors.tools._result import Result
from harness.actors.tools._rewind import rewind_files
from harness.actors.tools._search import find_files, search_text
from harness.actors.tools._table import ToolArgumentError, UnknownToolError
from harness.actors.tools._undo import Journal
from harness.home import harness_home
from harness.messages.tools import (
    AutocommitState,
    Rewind,
    RewindResult,
    SetAutocommit,
    ToolInvoke,
    ToolOutcome,
    ToolPreview,
    ToolPreviewResult,
    Undo,
    UndoResult,
)

__all__ = [
    "HANDLERS",
    "QUICK_READ_LIMIT",
    "autocommit",
    "invoke",
    "preview",
    "quick_read",
    "rewind",
    "undo",
]

Handler = Callable[[Workspace, dict[str, Any]], Result]


def read_file(ws: Workspace, args: dict[str, Any]) -> Result:
    lexical = ws.resolve(args["path"])
    if not os.path.lexists(lexical):
        raise ToolError(ws.missing(lexical))
    real = Path(os.path.realpath(lexical))
    r = _read_file(
        real,
        ws.rel(lexical),
        start_line=args.get("start_line"),
        end_line=args.get("end_line"),
        next_read=args.get("next_read"),
        text=ws.buffer(real),
    )
    return Result(r.output, r.data)


def _lazy(module: str, name: str) -> Handler:
    """A handler imported on its first call: tree-sitter and psutil stay out of the
    worker's start-up (its restart time) until a call needs them."""

    def handler(ws: Workspace, args: dict[str, Any]) -> Result:
        fn: Handler = getattr(importlib.import_module(module), name)
        return fn(ws, args)

    handler.__module__ = module  # where the drift test finds the real code
    handler.__name__ = handler.__qualname__ = name
    return handler


get_code_skeleton = _lazy("harness.actors.tools._ast", "get_code_skeleton")
query_ast = _lazy("harness.actors.tools._ast", "query_ast")
get_system_info = _lazy("harness.actors.tools._system", "get_system_info")

HANDLERS: dict[str, Handler] = {
    "read_file": read_file,
    "write_file": _files.write_file,
    "edit_file": _files.edit_file,
    "move_file": _files.move_file,
    "copy_file": _files.copy_file,
    "delete_path": _files.delete_path,
    "create_dir": _files.create_dir,
    "list_dir": _files.list_dir,
    "find_files": find_files,
    "search_text": search_text,
    "git_status": git_status,
    "git_diff": git_diff,
    "get_system_info": get_system_info,
    "get_code_skeleton": get_code_skeleton,
    "query_ast": query_ast,
}

_TABLE = builtin_table()


def _workspace(path: str, buffers: dict[str, str] | None = None) -> Workspace:
    return Workspace(path or os.getcwd(), buffers)


def _changed_paths(ws: Workspace, name: str, args: dict[str, Any]) -> list[str]:
    """The workspace-relative paths a mutating call names (checked by the jail)."""
    keys = {"move_file": ("source", "destination"), "copy_file": ("destination",)}.get(
        name, ("path",)
    )
    alias = name != "write_file"  # as the tools resolve them
    return [ws.rel(ws.resolve(args[k], alias=alias)) for k in keys]


QUICK_READ_LIMIT = 64 * 1024


def quick_read(req: ToolInvoke) -> bool:
    """Whether *req* is a ``read_file`` of a regular file of at most
    :data:`QUICK_READ_LIMIT` bytes (a bounded piece of work that may run without a
    thread). Only a hint: :func:`invoke` still checks everything."""
    path = req.arguments.get("path") if req.name == "read_file" else None
    if not isinstance(path, str) or not path:
        return False
    try:
        st = os.stat(os.path.join(req.workspace or os.getcwd(), path))
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= QUICK_READ_LIMIT


def invoke(req: ToolInvoke, home: Path | None = None) -> ToolOutcome:
    """Run one tool call; every failure becomes ``ok=False`` with one clear sentence."""
    name = req.name
    try:
        spec = _TABLE.get(name)
        if spec.executor != "tools" or name not in HANDLERS:
            return ToolOutcome(False, f"{name} is not run by the tools worker ({spec.executor})")
        args = spec.bind(req.arguments)
        ws = _workspace(req.workspace, req.buffers)
        handler = HANDLERS[name]
        if not spec.mutating:
            result = handler(ws, args)
            return ToolOutcome(True, result.output, result.data)
        journal = Journal(ws.root, home or harness_home())
        paths = _changed_paths(ws, name, args)
        texts = {
            p: t for p in paths if (t := ws.buffer(Path(os.path.realpath(ws.root / p)))) is not None
        }
        pending = journal.before(req.session_id, name, paths, texts)
        try:
            result = handler(ws, args)
        except BaseException:
            journal.discard(pending)
            raise
        data = dict(result.data)
        if data.get("changed", True):
            commit = journal.after(pending)
            if commit:
                data["commit"] = commit
        else:
            journal.discard(pending)
        return ToolOutcome(True, result.output, data)
    except (ToolError, ToolArgumentError, UnknownToolError) as exc:
        return ToolOutcome(False, str(exc))
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        return ToolOutcome(False, f"{name} failed: {exc.strerror or exc}{where}")
    except Exception as exc:  # a tool bug must reach the model as a result, not kill the call
        traceback.print_exc(file=sys.stderr)
        return ToolOutcome(False, f"{name} failed unexpectedly: {type(exc).__name__}: {exc}")


def _summary(ws: Workspace, name: str, args: dict[str, Any]) -> tuple[str, str]:
    if name == "write_file":
        _, shown, old, new = _files.plan_write(ws, args)
        if old == new:
            return f"write {shown}: no change", ""
        verb = "create" if old is None else "overwrite"
        return f"{verb} {shown}", unified_diff(old or "", new, shown)
    if name == "edit_file":
        _, shown, old, new = _files.plan_edit(ws, args)
        if old == new:
            return f"edit {shown}: no change", ""
        return f"edit {shown}", unified_diff(old, new, shown)
    if name in ("move_file", "copy_file"):
        src = ws.rel(ws.resolve(args["source"]))
        dst = ws.rel(ws.resolve(args["destination"]))
        return f"{name.split('_')[0]} {src} to {dst}", ""
    if name == "delete_path":
        target = ws.resolve(args["path"])
        shown = ws.rel(target)
        if target.is_dir() and not target.is_symlink():
            count = sum(len(files) for _, _, files in os.walk(target))
            return f"delete folder {shown} ({count} files)", ""
        if target.is_file():
            try:
                old = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return f"delete {shown}", ""
            return f"delete {shown}", unified_diff(old, "", shown)
        return f"delete {shown}", ""
    if name == "create_dir":
        return f"create folder {ws.rel(ws.resolve(args['path']))}", ""
    if name == "run_cmd":
        where = args.get("cwd") or "."
        return f"run `{args['command']}` in {where}", ""
    if name == "send_input":
        return f"send {args['text']!r} to {args['session']}", ""
    spec = _TABLE.get(name)
    main = spec.main_value(args)
    return (f"{name}({main})" if main else name), ""


def preview(req: ToolPreview) -> ToolPreviewResult:
    """Describe what a call would change (a unified diff for file edits), changing nothing."""
    try:
        spec = _TABLE.get(req.name)
        args = spec.bind(req.arguments)
        summary, diff = _summary(_workspace(req.workspace, req.buffers), req.name, args)
        return ToolPreviewResult(summary, diff)
    except UnknownToolError:
        return ToolPreviewResult(f"{req.name} (a tool harness does not describe)")
    except (ToolError, ToolArgumentError) as exc:
        return ToolPreviewResult(f"{req.name} will fail: {exc}")
    except OSError as exc:
        return ToolPreviewResult(f"{req.name} will fail: {exc.strerror or exc}")


def undo(req: Undo, home: Path | None = None) -> UndoResult:
    """``/undo``: revert the newest AI change of the workspace (or of the session)."""
    try:
        ws = _workspace(req.workspace)
        out = Journal(ws.root, home or harness_home()).undo(req.session_id)
    except (ToolError, OSError) as exc:
        return UndoResult(False, f"undo failed: {exc}")
    return UndoResult(out.ok, out.message, out.paths, out.commit)


def rewind(req: Rewind, home: Path | None = None) -> RewindResult:
    """``/rewind``'s file side: what putting the files back to a checkpoint changes, or
    (``apply``) doing it."""
    try:
        ws = _workspace(req.workspace)
        return rewind_files(Journal(ws.root, home or harness_home()), req.spans, req.apply)
    except (ToolError, OSError) as exc:
        return RewindResult(False, f"rewind failed: {exc}")


def autocommit(req: SetAutocommit, home: Path | None = None) -> AutocommitState:
    """``/autocommit on|off`` (or just ask, with ``enabled=None``)."""
    try:
        ws = _workspace(req.workspace)
    except ToolError:
        return AutocommitState(enabled=False, git=False)
    journal = Journal(ws.root, home or harness_home())
    if req.enabled is not None:
        journal.set_autocommit(req.enabled)
    return AutocommitState(enabled=journal.autocommit(), git=journal.git_root() is not None)
