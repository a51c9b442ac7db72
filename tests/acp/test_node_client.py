"""The TypeScript ACP SDK (``@agentclientprotocol/sdk``, from ``tests/acp/node``,
installed by ``make install`` with ``npm ci``) drives ``harness acp``: an edit approved
through ``session/request_permission`` (made to the editor's buffer, through
``fs/read_text_file`` and ``fs/write_text_file``), cancel, a prompt after it, and load."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp.conftest import env_for, flags
from tests.scripted import ScriptedModel, call, reply

NODE_DIR = Path(__file__).parent / "node"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_typescript_sdk_runs_a_whole_session(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    if not (NODE_DIR / "node_modules" / "@agentclientprotocol" / "sdk").is_dir():
        pytest.fail("tests/acp/node is not installed: run `npm ci` there (make install does)")
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("Editing.", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("Edited."),
        reply("a stalling answer", stall=30.0, chunk=4),
        reply("back again"),
    )
    harness = [sys.executable, "-m", "harness", "acp", *flags(model)]
    proc = subprocess.run(
        ["node", str(NODE_DIR / "client.mjs"), str(workspace), *harness],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    # the edit was made to the editor's buffer (its unsaved line kept) and handed back
    assert (workspace / "a.txt").read_text() == "bye\nunsaved in the editor\n"
    assert got["reads"] == [got["edited"]] * 2  # the approval's preview, then the edit
    assert got["writes"] == [{"path": got["edited"], "content": "bye\nunsaved in the editor\n"}]
    assert got["loadSession"] is True
    assert set(got["modes"]) >= {"ask", "auto", "plan"}
    assert got["stops"] == ["end_turn", "cancelled", "end_turn"]
    assert got["cancelMs"] < 500
    assert got["asked"][0]["options"] == ["allow_once", "allow_always", "reject_once"]
    assert got["asked"][0]["id"] == got["toolCalls"][0]["toolCallId"]
    assert got["toolCalls"][0]["kind"] == "edit"
    assert got["toolCalls"][0]["content"][0]["type"] == "diff"
    assert "tool_call_update" in got["kinds"]
    assert got["text"].startswith("Editing.Edited.")
    assert got["text"].endswith("back again")
    # every update on the wire passed the SDK's schema and reached the handler
    assert got["rawUpdates"] == got["parsedUpdates"] > 0
    assert got["loadedUser"] == "change a.txttalkagain"
    assert "Edited." in got["loadedText"]
