"""The pool of live commands behind ``run_cmd``, ``send_input`` and ``end_process``.

A call drives its session until one of three things happens: the command exits, it
waits for input, or the call's timeout ends (then its whole tree is killed). A command
waiting for input stays in the pool as an idle session until the model answers it,
ends it, or a new command needs its place.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

import trio

from harness.actors.shell._clean import CappedText
from harness.actors.shell._config import ShellConfig
from harness.actors.shell._drive import absorb, destroy, drive, note_survivors
from harness.actors.shell._env import command_env
from harness.actors.shell._format import CallResult, error_outcome, outcome
from harness.actors.shell._ids import SessionIds
from harness.actors.shell._kill import SESSION_VAR
from harness.actors.shell._sandbox import (
    bwrap_argv,
    find_bwrap,
    read_only_bwrap,
    sandbox_problem,
)
from harness.actors.shell._session import Session
from harness.messages.tools import ToolOutcome

__all__ = ["SessionPool"]


class SessionPool:
    """Live commands, at most ``config.max_sessions`` of them.

    Args:
        config: limits, detector, sandbox.
        environ: the environment commands start from (secrets are removed); default
            the worker's own.
        ids: where session ids come from.
        hide: folders a sandboxed command must not see (harness's own state).
    """

    def __init__(
        self,
        config: ShellConfig | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        ids: SessionIds | None = None,
        hide: Sequence[str] = (),
    ) -> None:
        self.config = config or ShellConfig()
        self._environ = dict(os.environ if environ is None else environ)
        # Filtered once: the secret patterns cost a regex per variable.
        self._command_env = command_env(self._environ)
        self._ids = ids or SessionIds()
        self._hide = tuple(hide)
        self._sessions: dict[str, Session] = {}
        self._owner = f"{os.getpid()}.{time.time_ns()}"

    # ---------------------------------------------------------------- the tools

    async def run_cmd(
        self,
        command: str,
        *,
        stdin: str | Sequence[str] | None = None,
        timeout: float | None = None,
        cwd: str | None = None,
        workspace: str | None = None,
        read_only: bool = False,
    ) -> ToolOutcome:
        """Start *command* with ``bash -c`` under a pty and drive it (see the module doc).

        With *read_only* (plan mode) the command runs under bwrap with the whole file
        system read-only and no network, where bwrap works; elsewhere it runs as it is
        (the permission engine let only a strict reader through).
        """
        cfg = self.config
        if not command.strip():
            return error_outcome("run_cmd needs a command")
        notes: list[str] = []
        if timeout is None:
            timeout = cfg.default_timeout
        elif not timeout > 0:
            return error_outcome(f"timeout must be above 0 seconds, got {timeout!r}")
        elif timeout > cfg.max_timeout:
            notes.append(f"timeout {timeout:g} s is above the limit; {cfg.max_timeout:g} s used")
            timeout = cfg.max_timeout
        place = _resolve_cwd(workspace, cwd)
        if isinstance(place, ToolOutcome):
            return place
        ws, where = place
        problem = sandbox_problem(cfg.sandbox, search_path=self._environ.get("PATH"))
        if problem is not None:
            return error_outcome(problem, sandbox=cfg.sandbox)
        answers = _answers(stdin)
        room = await self._make_room()
        if isinstance(room, ToolOutcome):
            return room
        notes += room
        sid = self._ids.next()
        token = f"{self._owner}.{sid}"
        argv = ["bash", "-c", command]
        bwrap = read_only_bwrap(self._environ.get("PATH")) if read_only else None
        if bwrap is not None:
            argv = bwrap_argv(
                argv,
                workspace=ws,
                cwd=where,
                network=False,
                hide=self._hide,
                bwrap=bwrap,
                read_only=True,
            )
        elif cfg.sandbox == "workspace-write":
            argv = bwrap_argv(
                argv,
                workspace=ws,
                cwd=where,
                network=cfg.sandbox_network,
                hide=self._hide,
                bwrap=find_bwrap(self._environ.get("PATH")) or "bwrap",
            )
        env = dict(self._command_env)
        env[SESSION_VAR] = token
        try:
            session = Session(
                sid,
                command,
                argv,
                cwd=where,
                env=env,
                token=token,
                timeout=timeout,
                answers=answers,
                rows=cfg.rows,
                cols=cfg.cols,
                fallback_encoding=cfg.fallback_encoding,
                spawner=cfg.spawner,
            )
        except Exception as exc:  # pexpect raises plain exceptions for spawn failures
            return error_outcome(f"could not start the command: {exc}")
        session.read_only = read_only
        self._sessions[sid] = session
        return await self._call(session, notes)

    async def send_input(self, session: str, text: str, *, read_only: bool = False) -> ToolOutcome:
        """Type *text* (plus a newline) into a waiting session; drive it again.

        An empty *text* types nothing and only collects more output. With *read_only*
        (plan mode) only a session started in plan mode takes text: one started before
        could run anything typed into it.
        """
        s = self._sessions.get(session)
        if s is None:
            return self._unknown(session)
        if read_only and text and not s.read_only:
            return error_outcome(
                f"session {session} was started outside plan mode, so plan mode does not "
                "type into it; end it with end_process, or submit a plan first",
                session=session,
            )
        if s.busy:
            return error_outcome(f"session {session} is busy with another call; try again")
        if text:
            if not text.endswith("\n"):
                text += "\n"
            s.busy = True  # no second call may type into it meanwhile
            try:
                await s.write(text.encode("utf-8"))
            except OSError as exc:
                if not s.poll_exit():
                    return error_outcome(f"could not write to session {session}: {exc}")
            finally:
                s.busy = False
        return await self._call(s, [])

    async def end_process(self, session: str) -> ToolOutcome:
        """Stop a session's command and everything it started."""
        s = self._sessions.get(session)
        if s is None:
            return self._unknown(session)
        capture = CappedText(self.config.head_chars, self.config.tail_chars)
        absorb(s, capture, s.read_available())
        capture.append(s.cleaner.flush_line())
        survivors = await self._destroy(s)
        text, cut_chars, cut_lines = capture.render()
        result = CallResult("ended", s.id, s.command, text, cut_chars, cut_lines)
        note_survivors(result, survivors)
        return outcome(result)

    async def shutdown(self) -> None:
        """End every live session (the worker is stopping)."""
        async with trio.open_nursery() as nursery:
            for s in list(self._sessions.values()):
                nursery.start_soon(self._destroy, s)

    def live(self) -> list[str]:
        """Ids of the live sessions, oldest first."""
        return list(self._sessions)

    def session_pids(self) -> dict[str, int]:
        """Each live session's leader pid (for status displays and tests)."""
        return {sid: s.pid for sid, s in self._sessions.items()}

    # ---------------------------------------------------------------- internals

    def _unknown(self, sid: str) -> ToolOutcome:
        if self._ids.issued_here(sid):
            why = f"session {sid} has already ended"
        else:
            why = (
                f"there is no live session {sid}: it was lost when the shell worker "
                "restarted (its processes were stopped), or it never existed"
            )
        return error_outcome(f"{why}; start the command again with run_cmd", session=sid)

    async def _make_room(self) -> list[str] | ToolOutcome:
        """End the oldest idle sessions until one more fits."""
        notes: list[str] = []
        limit = self.config.max_sessions
        while len(self._sessions) >= limit:
            idle = [s for s in self._sessions.values() if not s.busy]
            if not idle:
                return error_outcome(
                    f"{limit} commands are already running (the most at once); wait for "
                    "one to finish or stop one with end_process"
                )
            oldest = min(idle, key=lambda s: s.last_used)
            await self._destroy(oldest)
            notes.append(
                f"session {oldest.id} ({_short(oldest.command)}) was waiting idle and was "
                f"ended to make room: at most {limit} commands may be live"
            )
        return notes

    async def _call(self, s: Session, notes: list[str]) -> ToolOutcome:
        s.busy = True
        done = False
        try:
            result = await drive(s, self.config)
            result.notes[:0] = notes
            done = True
        finally:
            s.busy = False
            s.last_used = time.monotonic()
            if not done:  # cancelled, or a bug: never leave the tree behind
                with trio.CancelScope(shield=True):
                    await self._destroy(s)
        if result.status in ("exited", "timeout", "ended"):
            self._sessions.pop(s.id, None)
        return outcome(result)

    async def _destroy(self, s: Session) -> list[int]:
        """Kill a session's tree and forget it."""
        self._sessions.pop(s.id, None)
        return await destroy(s, self.config.kill_grace)


def _short(command: str, width: int = 40) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return f"`{line[:width]}{'...' if len(line) > width else ''}`"


def _answers(stdin: str | Sequence[str] | None) -> list[str]:
    if stdin is None or stdin == "":
        return []
    if isinstance(stdin, str):
        return stdin.splitlines() or [""]
    return [str(line) for line in stdin]


def _resolve_cwd(workspace: str | None, cwd: str | None) -> tuple[str, str] | ToolOutcome:
    workspace = os.path.realpath(workspace or os.getcwd())
    if not os.path.isdir(workspace):
        return error_outcome(f"the workspace {workspace} is not a folder")
    if not cwd:
        return workspace, workspace
    where = os.path.realpath(os.path.join(workspace, cwd))
    if os.path.commonpath([where, workspace]) != workspace:
        return error_outcome(f"cwd {cwd!r} is outside the workspace {workspace}")
    if not os.path.isdir(where):
        return error_outcome(f"cwd {cwd!r} is not a folder in the workspace")
    return workspace, where
