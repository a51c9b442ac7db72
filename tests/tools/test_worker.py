"""The tools worker as a real process under the real supervisor, including kill -9 mid-call."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from harness.ipc import WorkerDied
from harness.messages.tools import (
    AutocommitState,
    SetAutocommit,
    ToolInvoke,
    ToolOutcome,
    ToolPreview,
    ToolPreviewResult,
    Undo,
    UndoResult,
)
from harness.supervisor import ChildSpec, WorkerHandle, open_supervisor


@pytest.fixture
async def tools(ws: Path, home: Path) -> AsyncIterator[WorkerHandle]:
    spec = ChildSpec(
        name="tools",
        module="harness.actors.tools",
        env={"HARNESS_HOME": str(home), "HARNESS_TOOLS_NO_RG": "1"},
        cwd=str(ws),
        backoff_initial=0.05,
        heartbeat_interval=0.5,
        request_grace=0.5,
        shutdown_grace=1.0,
    )
    async with open_supervisor() as sup:
        yield await sup.start(spec)


async def test_invoke_preview_undo_over_the_channel(ws: Path, tools: WorkerHandle) -> None:
    (ws / "a.py").write_text("x = 1\n")
    out = await tools.request(ToolInvoke("read_file", {"path": "a.py"}), timeout=30)
    assert isinstance(out, ToolOutcome)
    assert out.ok
    assert "|x = 1" in out.output
    edit = {"path": "a.py", "old_text": "x = 1", "new_text": "x = 2"}
    pre = await tools.request(ToolPreview("edit_file", edit), timeout=30)
    assert isinstance(pre, ToolPreviewResult)
    assert pre.summary == "edit a.py"
    assert "-x = 1\n+x = 2\n" in pre.diff
    assert (ws / "a.py").read_text() == "x = 1\n"  # a preview changes nothing
    bad = await tools.request(ToolPreview("edit_file", {**edit, "old_text": "nope"}), timeout=30)
    assert isinstance(bad, ToolPreviewResult)
    assert "will fail" in bad.summary
    done = await tools.request(ToolInvoke("edit_file", edit, session_id="s1"), timeout=30)
    assert isinstance(done, ToolOutcome)
    assert done.ok
    state = await tools.request(SetAutocommit(), timeout=30)
    assert state == AutocommitState(enabled=True, git=False)
    undone = await tools.request(Undo(session_id="s1"), timeout=30)
    assert isinstance(undone, UndoResult)
    assert undone.ok
    assert undone.paths == ("a.py",)
    assert (ws / "a.py").read_text() == "x = 1\n"
    skel = await tools.request(ToolInvoke("get_code_skeleton", {"path": "a.py"}), timeout=30)
    assert isinstance(skel, ToolOutcome)
    assert skel.ok


async def test_kill_9_mid_call_is_an_error_and_the_worker_comes_back(
    ws: Path, tools: WorkerHandle
) -> None:
    # A pathological regex keeps the worker busy for far longer than the test.
    (ws / "slow.txt").write_text("a" * 40 + "!\n")
    slow = ToolInvoke("search_text", {"pattern": "(a+)+$", "regex": True})
    pid = tools.pid
    assert pid is not None
    caught: list[BaseException] = []

    async def call() -> None:
        try:
            await tools.request(slow, timeout=60)
        except WorkerDied as exc:
            caught.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call)
        await trio.sleep(0.5)
        os.kill(pid, signal.SIGKILL)
    assert len(caught) == 1
    err = caught[0]
    assert isinstance(err, WorkerDied)
    assert err.exit_code == -signal.SIGKILL
    assert "tools" in str(err)
    (ws / "after.txt").write_text("still here\n")
    out = await tools.request(ToolInvoke("read_file", {"path": "after.txt"}), timeout=30)
    assert isinstance(out, ToolOutcome)
    assert out.ok
    assert tools.pid not in (None, pid)


async def test_reads_inline_and_in_a_thread_answer_alike(ws: Path, tools: WorkerHandle) -> None:
    from harness.actors.tools._dispatch import QUICK_READ_LIMIT, quick_read

    (ws / "small.txt").write_text("one\ntwo\n")
    (ws / "big.txt").write_text(("x" * 79 + "\n") * (QUICK_READ_LIMIT // 80 + 1))
    os.mkfifo(ws / "pipe")

    def read(path: str, **kw: object) -> ToolInvoke:
        return ToolInvoke(name="read_file", arguments={"path": path, **kw}, workspace=str(ws))

    assert quick_read(read("small.txt"))
    assert quick_read(read("small.txt", start_line=2))
    assert not quick_read(read("big.txt"))
    assert not quick_read(read("pipe"))
    assert not quick_read(read("missing.txt"))
    assert not quick_read(ToolInvoke(name="list_dir", arguments={"path": "."}, workspace=str(ws)))
    with trio.fail_after(10):
        small = await tools.request(read("small.txt"))
        big = await tools.request(read("big.txt", end_line=2))
        pipe = await tools.request(read("pipe"))
        outside = await tools.request(read("../outside.txt"))
    assert isinstance(small, ToolOutcome)
    assert small.ok
    assert "1:" in small.output
    assert "|one" in small.output
    assert isinstance(big, ToolOutcome)
    assert big.ok
    assert isinstance(pipe, ToolOutcome)
    assert not pipe.ok
    assert "FIFO" in pipe.output
    assert isinstance(outside, ToolOutcome)
    assert not outside.ok
