"""The tools worker: ``python -m harness.actors.tools``.

Runs with cwd = the workspace (a request's ``workspace`` overrides it). File
work, git and tree-sitter run in a worker thread so the worker keeps answering
heartbeats while a big search runs; only a plain read of a small regular file runs
inline (see ``_dispatch.quick_read``).
"""

from __future__ import annotations

import functools

import trio

from harness.actors.tools import _dispatch
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
from harness.worker import Worker

worker = Worker("tools")


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    if _dispatch.quick_read(req):
        # a page of a small file takes less time than the hop to a thread and back
        return _dispatch.invoke(req)
    return await trio.to_thread.run_sync(
        functools.partial(_dispatch.invoke, req), abandon_on_cancel=True
    )


@worker.handle(ToolPreview)
async def preview(req: ToolPreview) -> ToolPreviewResult:
    return await trio.to_thread.run_sync(
        functools.partial(_dispatch.preview, req), abandon_on_cancel=True
    )


@worker.handle(Undo)
async def undo(req: Undo) -> UndoResult:
    return await trio.to_thread.run_sync(functools.partial(_dispatch.undo, req))


@worker.handle(Rewind)
async def rewind(req: Rewind) -> RewindResult:
    return await trio.to_thread.run_sync(functools.partial(_dispatch.rewind, req))


@worker.handle(SetAutocommit)
async def set_autocommit(req: SetAutocommit) -> AutocommitState:
    return await trio.to_thread.run_sync(functools.partial(_dispatch.autocommit, req))


if __name__ == "__main__":
    worker.run()
