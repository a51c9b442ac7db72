"""A test-only tools/shell worker: a few file tools and a command runner.

Used until the real tools and shell workers are on main. ``slow_read`` sleeps, so a
test can kill the worker mid-call.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import trio

from harness.actors.base import Worker
from harness.actors.protocol.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

worker = Worker(os.environ.get("TEST_WORKER_NAME", "tools"))


def _path(req: ToolInvoke, key: str = "path") -> Path:
    return Path(req.workspace or ".") / str(req.arguments[key])


@worker.handle(ToolInvoke)
async def invoke(req: ToolInvoke) -> ToolOutcome:
    a = req.arguments
    try:
        if req.name == "read_file":
            if os.environ.get("TEST_SLOW_READ"):
                await trio.sleep(float(os.environ["TEST_SLOW_READ"]))
            lines = _path(req).read_text().splitlines()
            return ToolOutcome(True, "\n".join(f"{i}:{t}" for i, t in enumerate(lines, 1)))
        if req.name == "write_file":
            p = _path(req)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(a["content"])
            return ToolOutcome(True, f"wrote {a['path']}")
        if req.name == "edit_file":
            p = _path(req)
            text = p.read_text()
            if text.count(a["old_text"]) != 1:
                return ToolOutcome(False, "old_text must match exactly once")
            p.write_text(text.replace(a["old_text"], a["new_text"]))
            return ToolOutcome(True, f"edited {a['path']}")
        if req.name == "list_dir":
            names = sorted(os.listdir(_path(req)))
            return ToolOutcome(True, "\n".join(names))
        if req.name == "run_cmd":
            r = await trio.run_process(
                ["bash", "-c", a["command"]],
                cwd=req.workspace or None,
                capture_stdout=True,
                stderr=subprocess.STDOUT,
                check=False,
            )
            return ToolOutcome(r.returncode == 0, r.stdout.decode())
    except OSError as exc:
        return ToolOutcome(False, str(exc))
    return ToolOutcome(False, f"tool {req.name} is not in the test worker")


@worker.handle(ToolPreview)
async def preview(req: ToolPreview) -> ToolPreviewResult:
    return ToolPreviewResult(summary=f"{req.name} {req.arguments.get('path', '')}", diff="+new")


if __name__ == "__main__":
    worker.run()
