"""The editor's buffers, through the Python SDK's client side (its ``fs/read_text_file``
and ``fs/write_text_file`` callbacks): unsaved text counts for read_file and edit_file,
the approved diff is the buffer's, the change is journaled against the buffer (``/undo``
puts back what the editor showed) and handed to the editor; paths outside the workspace
are never asked about, and a client that answers badly is the disk."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp.exceptions import RequestError
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    WriteTextFileResponse,
)

from acp import PROTOCOL_VERSION, text_block
from tests.acp.conftest import Recorder, SharedAgent
from tests.scripted import call, reply


class Editor(Recorder):
    """The client, with open buffers by absolute path."""

    def __init__(self) -> None:
        super().__init__()
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        if path.endswith("fails.txt"):
            raise RequestError.internal_error({"details": "the editor broke"})
        # a file not open in the editor: what it reads from disk
        return ReadTextFileResponse(content=await asyncio.to_thread(Path(path).read_text))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedAgent]:
    s = SharedAgent(tmp_path_factory.mktemp("acp-editor-home"), Editor())
    try:
        yield s
    finally:
        s.close()


def _editor(shared: SharedAgent, answers: list[str] | None = None) -> Editor:
    rec = shared.use(answers)
    assert isinstance(rec, Editor)
    rec.buffers.clear()
    rec.reads.clear()
    rec.writes.clear()
    return rec


async def _session(conn: Any, workspace: Path, fs: FileSystemCapabilities) -> str:
    await conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs)
    )
    return (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id


BOTH = FileSystemCapabilities(read_text_file=True, write_text_file=True)


def _tool_results(shared: SharedAgent) -> list[str]:
    return [
        m["content"]
        for r in shared.requests()
        for m in r["messages"]
        if m.get("role") == "tool" and isinstance(m.get("content"), str)
    ]


def test_read_file_sees_the_unsaved_buffer(shared: SharedAgent, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    rec = _editor(shared)
    real = os.path.realpath(workspace / "a.py")
    rec.buffers[real] = "x = 2  # unsaved\n"
    shared.model.add(reply("", call("read_file", path="a.py")), reply("read"))

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace, BOTH)
        await conn.prompt(session_id=sid, prompt=[text_block("read a.py")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert rec.reads == [real]
    assert "x = 2  # unsaved" in _tool_results(shared)[-1]
    assert (workspace / "a.py").read_text() == "x = 1\n"
    assert rec.writes == []


def test_an_edit_of_the_buffer_is_approved_written_shown_and_undone(
    shared: SharedAgent, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    rec = _editor(shared, ["allow"])
    real = os.path.realpath(workspace / "a.txt")
    rec.buffers[real] = "hello\nunsaved line\n"  # the edit's old text is only in the buffer
    shared.model.add(
        reply("", call("edit_file", path="a.txt", old_text="unsaved line", new_text="AI line")),
        reply("edited"),
    )

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace, BOTH)
        await conn.prompt(session_id=sid, prompt=[text_block("change a.txt")])
        assert (workspace / "a.txt").read_text() == "hello\nAI line\n"
        await conn.prompt(session_id=sid, prompt=[text_block("/undo")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    # the diff the user approved is against the buffer
    diff = rec.asked[0].tool_call.content[0]
    assert diff.type == "diff"
    assert (diff.old_text, diff.new_text) == ("hello\nunsaved line", "hello\nAI line")
    # the editor got the new text, and /undo put back the buffer's text on disk
    assert rec.writes[0] == (real, "hello\nAI line\n")
    assert (workspace / "a.txt").read_text() == "hello\nunsaved line\n"
    assert rec.writes[-1] == (real, "hello\nunsaved line\n")


def test_paths_outside_the_workspace_are_never_asked_about(
    shared: SharedAgent, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not-for-the-model\n")
    (workspace / "link.txt").symlink_to(outside)
    (workspace / ".env").write_text("KEY=1\n")
    rec = _editor(shared)
    shared.model.add(
        reply(
            "",
            call("read_file", path=str(outside)),
            call("read_file", path="../outside.txt"),
            call("read_file", path="link.txt"),
            call("read_file", path=".env"),
            call("read_file", path="."),
        ),
        reply("refused"),
    )

    async def main(conn: Any) -> None:
        sid = await _session(conn, workspace, BOTH)
        await conn.prompt(session_id=sid, prompt=[text_block("read around")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert rec.reads == []
    results = _tool_results(shared)
    assert len(results) == 5
    assert not any("not-for-the-model" in r for r in results)


def test_a_client_that_answers_badly_is_the_disk(shared: SharedAgent, workspace: Path) -> None:
    (workspace / "nul.txt").write_text("on disk 1\n")
    (workspace / "fails.txt").write_text("on disk 2\n")
    (workspace / "plain.txt").write_text("on disk 3\n")
    rec = _editor(shared)
    rec.buffers[os.path.realpath(workspace / "nul.txt")] = "bad\x00buffer"
    shared.model.add(
        reply(
            "",
            call("read_file", path="nul.txt"),
            call("read_file", path="fails.txt"),
            call("read_file", path="plain.txt"),
        ),
        reply("read"),
    )

    async def main(conn: Any) -> None:
        # reads offered, writes not: no fs/write_text_file is ever sent
        fs = FileSystemCapabilities(read_text_file=True, write_text_file=False)
        sid = await _session(conn, workspace, fs)
        await conn.prompt(session_id=sid, prompt=[text_block("read them")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert len(rec.reads) == 3
    seen = "\n".join(_tool_results(shared))
    for n in (1, 2, 3):
        assert f"on disk {n}" in seen
    assert "bad" not in seen
