"""The editor's buffers (``ToolInvoke.buffers``): the file tools read, version and change
the buffer's text instead of the disk's, the undo journal keeps the buffer's text as the
before, and a buffer is only ever taken for the path the jail resolved."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness.actors.tools._dispatch import invoke, preview, undo
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, Undo


def _run(ws: Path, home: Path, name: str, buffers: dict[str, str], **args: Any) -> ToolOutcome:
    request = ToolInvoke(
        name=name, arguments=args, workspace=str(ws), session_id="s", buffers=buffers
    )
    return invoke(request, home=home)


def test_read_and_version_come_from_the_buffer(ws: Path, home: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    buffers = {os.path.realpath(ws / "a.py"): "x = 2\ny = 3\n"}
    out = _run(ws, home, "read_file", buffers, path="a.py")
    assert out.ok, out.output
    assert "|x = 2" in out.output
    assert "|y = 3" in out.output
    # the buffer's version is what a write checks against, not the disk's
    version = out.data["version"]
    wrote = _run(ws, home, "write_file", buffers, path="a.py", content="z\n", version=version)
    assert wrote.ok, wrote.output
    assert (ws / "a.py").read_text() == "z\n"
    stale = _run(ws, home, "read_file", {}, path="a.py").data["version"]
    assert stale != version


def test_an_edit_changes_the_buffer_text_and_undo_puts_the_buffer_back(
    ws: Path, home: Path
) -> None:
    (ws / "a.txt").write_text("saved\n")
    buffers = {os.path.realpath(ws / "a.txt"): "saved\nunsaved\n"}
    seen = preview(
        ToolPreview(
            name="edit_file",
            arguments={"path": "a.txt", "old_text": "unsaved", "new_text": "AI"},
            workspace=str(ws),
            buffers=buffers,
        )
    )
    assert "-unsaved" in seen.diff
    assert "+AI" in seen.diff
    out = _run(ws, home, "edit_file", buffers, path="a.txt", old_text="unsaved", new_text="AI")
    assert out.ok, out.output
    assert (ws / "a.txt").read_text() == "saved\nAI\n"
    done = undo(Undo(workspace=str(ws), session_id="s"), home=home)
    assert done.ok, done.message
    assert (ws / "a.txt").read_text() == "saved\nunsaved\n"


def test_a_buffer_for_another_path_is_never_taken(ws: Path, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    (ws / "a.txt").write_text("inside\n")
    # keyed by any path but the one the jail resolved: ignored
    buffers = {str(outside): "planted", str(ws / "a.txt") + "/": "planted", "a.txt": "planted"}
    out = _run(ws, home, "read_file", buffers, path="a.txt")
    assert out.ok
    assert "inside" in out.output
    assert "planted" not in out.output
    refused = _run(ws, home, "read_file", buffers, path=str(outside))
    assert not refused.ok
    assert "outside the workspace" in refused.output
    assert outside.read_text() == "outside\n"
