"""The editor's buffers and terminals as the session's editor port
(``fs/read_text_file``, ``fs/write_text_file``, ``terminal/*``).

When the client's ``initialize`` offers ``fs.readTextFile``, harness's file tools
read a file's text from the editor, so unsaved edits count; with
``fs.writeTextFile``, a change the tools made is handed to the editor, so its
buffer shows it. What decides where a path may lead, what needs approval and what
``/undo`` puts back stays in the session (see
:mod:`harness.conversation`'s ``EditorPort``): this is only the wire. An error from
the client, an answer that does not parse, or a client that went away is "no
buffer": the disk is read as without an editor. With ``terminal``, ``run_cmd`` runs
in the editor's terminals (:mod:`harness.acp._terminal`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import trio
from acp.exceptions import RequestError
from acp.schema import (
    FileSystemCapabilities,
    ReadTextFileRequest,
    ReadTextFileResponse,
    WriteTextFileRequest,
)
from pydantic import ValidationError

from harness.acp._rpc import Connection, ConnectionClosed
from harness.acp._terminal import run_in_terminal
from harness.conversation import TerminalRun

__all__ = ["EditorFiles"]

# how long a command waits for its tool call to reach the client before it goes to the
# shell worker instead (a sub-agent's calls never reach it)
_ANNOUNCE_WAIT = 0.5


class EditorFiles:
    """One session's files as the client's editor holds them.

    Args:
        conn: the connection to the client.
        fs: what the client offered in ``initialize``.
        terminal: whether it offered terminals.

    Attributes:
        session_id: the ACP session the requests name (set once the session is open).
        shown: whether the client was told of a tool call (set with the session): only
            such a call's command runs in a terminal, which its tool call shows.
    """

    def __init__(
        self, conn: Connection, fs: FileSystemCapabilities, terminal: bool = False
    ) -> None:
        self.conn = conn
        self.reads = bool(fs.read_text_file)
        self.writes = bool(fs.write_text_file)
        self.terminal = bool(terminal)
        self.session_id = ""
        self.shown: Callable[[str], bool] = lambda call_id: False
        self._waiting: dict[str, trio.Event] = {}

    @property
    def offered(self) -> bool:
        """Whether the client offered any of the methods."""
        return self.reads or self.writes or self.terminal

    @property
    def runs_commands(self) -> bool:
        """Whether ``run_cmd`` runs in the editor's terminals."""
        return self.terminal and bool(self.session_id)

    def announced(self, call_id: str) -> None:
        """The client has been told of call *call_id* (its ``tool_call`` was sent)."""
        event = self._waiting.get(call_id)
        if event is not None:
            event.set()

    async def _known(self, call_id: str) -> bool:
        # a call run without approval can reach here before its tool_call is sent
        if not self.shown(call_id):
            event = self._waiting.setdefault(call_id, trio.Event())
            with trio.move_on_after(_ANNOUNCE_WAIT):
                await event.wait()
            self._waiting.pop(call_id, None)
        return self.shown(call_id)

    async def run_command(
        self, call_id: str, argv: list[str], cwd: str, timeout: float
    ) -> TerminalRun | None:
        """Run *argv* in a terminal of the editor (``None``: it could not start, or the
        client does not know the call, such as a sub-agent's)."""
        if not self.runs_commands or not await self._known(call_id):
            return None
        return await run_in_terminal(self.conn, self.session_id, call_id, argv, cwd, timeout)

    async def read_text(self, path: str) -> str | None:
        """The editor's text of *path* (``None`` when it was not offered or failed)."""
        if not self.reads or not self.session_id:
            return None
        request = ReadTextFileRequest(session_id=self.session_id, path=path)
        try:
            answer = await self.conn.request("fs/read_text_file", request)
            return ReadTextFileResponse.model_validate(answer).content
        except (ConnectionClosed, RequestError, ValidationError):
            return None

    async def write_text(self, path: str, text: str) -> None:
        """Give the editor *text* as the content of *path* (nothing when not offered;
        a failure is said on stderr: the file on disk already holds the change)."""
        if not self.writes or not self.session_id:
            return
        request = WriteTextFileRequest(session_id=self.session_id, path=path, content=text)
        try:
            await self.conn.request("fs/write_text_file", request)
        except (ConnectionClosed, RequestError) as exc:
            self.conn.log(f"fs/write_text_file {path} failed: {exc}")

    async def show_files(self, workspace: str, paths: Sequence[str]) -> None:
        """Hand the editor the text on disk of *paths* (workspace-relative: what
        ``/undo`` put back), so its buffers do not keep the undone change."""
        if not self.writes:
            return
        for real, text in await trio.to_thread.run_sync(_texts, workspace, list(paths)):
            await self.write_text(real, text)


def _texts(workspace: str, paths: list[str]) -> list[tuple[str, str]]:
    # the real path and text of each path that is a text file inside the workspace
    root = os.path.realpath(workspace)
    out: list[tuple[str, str]] = []
    for rel in paths:
        real = os.path.realpath(os.path.join(root, rel))
        if not real.startswith(root + os.sep) or not os.path.isfile(real):
            continue  # removed by the undo, or not the workspace's
        try:
            with open(real, encoding="utf-8") as f:
                out.append((real, f.read()))
        except (OSError, UnicodeDecodeError):
            continue
    return out
