"""The editor's buffers, through the Python SDK's client side (its ``fs/read_text_file``
and ``fs/write_text_file`` callbacks): unsaved text counts for read_file and edit_file,
the approved diff is the buffer's, the change is journaled against the buffer (``/undo``
puts back what the editor showed) and handed to the editor; paths outside the workspace
are never asked about, and a client that answers badly is the disk. With the client's
``terminal/*`` callbacks (real processes here), an approved ``run_cmd`` runs in its
terminal, shown in the tool call, with harness's clean environment and its timeout."""

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
    CreateTerminalResponse,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
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
        self.terminals: dict[str, Any] = {}
        self.started: list[tuple[list[str], str | None]] = []
        self.calls: list[str] = []

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

    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, **kw: Any
    ) -> CreateTerminalResponse:
        argv = [command, *(args or [])]
        self.started.append((argv, kw.get("cwd")))
        self.calls.append("create")
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=kw.get("cwd"),
            # like a terminal nobody types into: input stays open, and never comes
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        tid = f"term{len(self.terminals) + 1}"
        out = bytearray()

        async def collect() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(4096):
                out.extend(chunk)

        self.terminals[tid] = (proc, out, asyncio.ensure_future(collect()))
        return CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        self.calls.append("wait")
        self.changed()  # a test may be waiting for this call, not for an update
        proc, _, reader = self.terminals[terminal_id]
        code = await proc.wait()
        await reader
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        self.calls.append("output")
        proc, out, _ = self.terminals[terminal_id]
        status = None if proc.returncode is None else TerminalExitStatus(exit_code=proc.returncode)
        return TerminalOutputResponse(output=out.decode(), truncated=False, exit_status=status)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> KillTerminalResponse:
        self.calls.append("kill")
        proc, _, reader = self.terminals[terminal_id]
        os.killpg(proc.pid, 9)
        await proc.wait()
        await reader
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> ReleaseTerminalResponse:
        self.calls.append("release")
        return ReleaseTerminalResponse()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedAgent]:
    # a secret in harness's environment, which no command may see
    env = {"DEPLOY_TOKEN": "tok-not-for-commands"}
    s = SharedAgent(tmp_path_factory.mktemp("acp-editor-home"), Editor(), env)
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
    rec.terminals.clear()
    rec.started.clear()
    rec.calls.clear()
    return rec


async def _session(conn: Any, workspace: Path, fs: FileSystemCapabilities) -> str:
    await conn.initialize(
        protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs)
    )
    return (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id


BOTH = FileSystemCapabilities(read_text_file=True, write_text_file=True)


def _tool_results(shared: SharedAgent) -> list[str]:
    # the tool results the last model request carried (the whole turn's)
    return [
        m["content"]
        for m in shared.requests()[-1]["messages"]
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
    (workspace / "big.txt").write_text("on disk 4\n")
    rec = _editor(shared)
    rec.buffers[os.path.realpath(workspace / "nul.txt")] = "bad\x00buffer"
    rec.buffers[os.path.realpath(workspace / "big.txt")] = "bad" + "é" * (2 * 1024 * 1024)
    shared.model.add(
        reply(
            "",
            call("read_file", path="nul.txt"),
            call("read_file", path="fails.txt"),
            call("read_file", path="plain.txt"),
            call("read_file", path="big.txt"),
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
    assert len(rec.reads) == 4
    seen = "\n".join(_tool_results(shared))
    for n in (1, 2, 3, 4):
        assert f"on disk {n}" in seen
    assert "bad" not in seen


def test_run_cmd_runs_in_the_editors_terminal(shared: SharedAgent, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    rec = _editor(shared, ["allow", "allow", "allow", "allow"])
    shared.model.add(
        reply(
            "",
            call(
                "run_cmd", command="echo in-$(basename $PWD) tok=$DEPLOY_TOKEN; exit 3", cwd="sub"
            ),
        ),
        reply("", call("run_cmd", command="sleep 30", timeout=1)),
        reply("", call("run_cmd", command="pwd", cwd="..")),  # the jail: the shell worker's
        # a command that asks gets no input at once, not its timeout
        reply("", call("run_cmd", command="read -r x && echo got=$x || echo no-input", timeout=20)),
        reply("ran"),
    )

    async def main(conn: Any) -> None:
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(fs=BOTH, terminal=True),
        )
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("run things")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    # three commands ran in the editor, the one outside the workspace never reached it
    assert len(rec.started) == 3
    argv, cwd = rec.started[0]
    assert cwd == os.path.realpath(workspace / "sub")
    assert argv[:2] == ["env", "-i"]
    assert argv[-3:-1] == ["bash", "-c"]
    assert "tok-not-for-commands" not in " ".join(argv)
    ran = ["create", "wait", "output", "release"]
    timed_out = ["create", "wait", "kill", "output", "release"]
    assert rec.calls == [*ran, *timed_out, *ran]
    results = _tool_results(shared)
    assert "in-sub tok=\n[exit code 3]" in results[0]
    assert "[timed out after 1 s" in results[1]
    assert "outside the workspace" in results[2]
    assert "no-input\n[exit code 0]" in results[3]
    # the tool call showed the terminal while it ran, and when it ended
    shown = [
        u.tool_call_id
        for u in rec.of("tool_call_update")
        if any(getattr(c, "type", "") == "terminal" for c in u.content or ())
    ]
    first = rec.of("tool_call")[0].tool_call_id
    assert shown.count(first) == 2


def test_a_cancelled_prompt_kills_the_command_in_the_terminal(
    shared: SharedAgent, workspace: Path
) -> None:
    rec = _editor(shared, ["allow"])
    shared.model.add(reply("", call("run_cmd", command="sleep 30")), reply("after"))

    async def main(conn: Any) -> None:
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(terminal=True),
        )
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        running = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        # cancelled while the command runs: once harness waits on it, not merely created
        await rec.wait_for(lambda: "wait" in rec.calls)
        await conn.cancel(session_id=sid)
        assert (await running).stop_reason == "cancelled"
        # the session goes on
        await conn.prompt(session_id=sid, prompt=[text_block("again")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert rec.calls == ["create", "wait", "kill", "release"]
    proc, _, _ = rec.terminals["term1"]
    assert proc.returncode == -9
    assert rec.text().endswith("after")


def test_a_command_run_without_asking_runs_in_the_terminal_too(
    shared: SharedAgent, workspace: Path
) -> None:
    rec = _editor(shared)
    shared.model.add(reply("", call("run_cmd", command="echo auto")), reply("ran"))

    async def main(conn: Any) -> None:
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(terminal=True),
        )
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await conn.prompt(session_id=sid, prompt=[text_block("run it")])

    shared.run(main(shared.conn))
    assert rec.bad == []
    assert rec.asked == []
    assert rec.calls == ["create", "wait", "output", "release"]
    assert "auto\n[exit code 0]" in _tool_results(shared)[0]
