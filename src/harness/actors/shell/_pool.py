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

from harness.actors.protocol.tools import ToolOutcome
from harness.actors.shell._clean import CappedText
from harness.actors.shell._config import ShellConfig
from harness.actors.shell._detect import CpuIdleSampler, proc_waiting
from harness.actors.shell._env import command_env
from harness.actors.shell._format import CallResult, error_outcome, outcome
from harness.actors.shell._ids import SessionIds
from harness.actors.shell._kill import SESSION_VAR, session_processes
from harness.actors.shell._sandbox import bwrap_argv, find_bwrap, sandbox_problem
from harness.actors.shell._session import Session

__all__ = ["SessionPool"]

# A /proc verdict of "waiting" must hold this long, with no output between, before it
# is believed: a process woken by input just written may not have left read() yet.
_CONFIRM = 0.02
# No /proc look before this much silence: most commands print or exit sooner.
_FIRST_LOOK = 0.02
_MAX_TICK = 0.25


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
    ) -> ToolOutcome:
        """Start *command* with ``bash -c`` under a pty and drive it (see the module doc)."""
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
        if cfg.sandbox == "workspace-write":
            argv = bwrap_argv(
                argv,
                workspace=ws,
                cwd=where,
                network=cfg.sandbox_network,
                hide=self._hide,
                bwrap=find_bwrap(self._environ.get("PATH")) or "bwrap",
            )
        env = command_env(self._environ, {SESSION_VAR: token})
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
        self._sessions[sid] = session
        return await self._call(session, notes)

    async def send_input(self, session: str, text: str) -> ToolOutcome:
        """Type *text* (plus a newline) into a waiting session; drive it again.

        An empty *text* types nothing and only collects more output.
        """
        s = self._sessions.get(session)
        if s is None:
            return self._unknown(session)
        if s.busy:
            return error_outcome(f"session {session} is busy with another call; try again")
        if text:
            if not text.endswith("\n"):
                text += "\n"
            try:
                s.write(text.encode("utf-8"))
            except OSError as exc:
                if not s.poll_exit():
                    return error_outcome(f"could not write to session {session}: {exc}")
        return await self._call(s, [])

    async def end_process(self, session: str) -> ToolOutcome:
        """Stop a session's command and everything it started."""
        s = self._sessions.get(session)
        if s is None:
            return self._unknown(session)
        capture = CappedText(self.config.head_chars, self.config.tail_chars)
        self._absorb(s, capture, s.read_available())
        capture.append(s.cleaner.flush_line())
        survivors = await self._destroy(s)
        text, cut_chars, cut_lines = capture.render()
        result = CallResult("ended", s.id, s.command, text, cut_chars, cut_lines)
        _note_survivors(result, survivors)
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
            result = await self._drive(s)
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

    async def _drive(self, s: Session) -> CallResult:
        cfg = self.config
        capture = CappedText(cfg.head_chars, cfg.tail_chars)
        start = trio.current_time()
        deadline = start + s.timeout
        last_output = start
        confirm_from: float | None = None
        use_proc = cfg.detector != "fallback"
        sampler: CpuIdleSampler | None = None
        certain = True
        while True:
            data = s.read_available()
            now = trio.current_time()
            if data:
                self._absorb(s, capture, data)
                last_output = now
                confirm_from = None
                if sampler is not None:
                    sampler.reset()
                if now < deadline:
                    continue
            if s.closed:
                return self._finish(s, capture, "ended")
            if s.poll_exit():
                return await self._exited(s, capture)
            if now >= deadline:
                self._absorb(s, capture, _drain(s))
                survivors = await self._destroy(s)
                result = self._finish(s, capture, "timeout")
                _note_survivors(result, survivors)
                return result
            silence = now - last_output
            verdict: bool | None = None
            if silence >= _FIRST_LOOK and not s.eof:
                if use_proc:
                    verdict = proc_waiting(s.fd, s.slave_rdev, s.pid)
                    if verdict is None and cfg.detector == "proc":
                        verdict = False
                if verdict is None:
                    if sampler is None:
                        sampler = CpuIdleSampler(s.pid, cfg.fallback_grace)
                    sampler.sample(now)
                    verdict = silence >= cfg.fallback_grace and sampler.idle(now)
                    certain = False
                else:
                    certain = True
            if verdict:
                if confirm_from is None:
                    confirm_from = now
                elif now - confirm_from >= _CONFIRM:
                    confirm_from = None
                    if s.answers:
                        capture.append(s.cleaner.flush_line())
                        s.write((s.answers.pop(0) + "\n").encode("utf-8"))
                        last_output = now
                        if sampler is not None:
                            sampler.reset()
                        continue
                    result = self._finish(s, capture, "waiting")
                    result.certain = certain
                    return result
            else:
                confirm_from = None
            tick = _CONFIRM if confirm_from is not None else min(_MAX_TICK, 0.01 + silence / 8)
            tick = max(0.0, min(tick, deadline - now))
            if s.eof:
                # The terminal is closed; what is left is the leader's exit.
                if s.pidfd is None:
                    await trio.sleep(min(tick, 0.0005 + silence / 50))
                else:
                    with trio.move_on_after(tick):
                        await trio.lowlevel.wait_readable(s.pidfd)
                continue
            with trio.move_on_after(tick):
                try:
                    await trio.lowlevel.wait_readable(s.fd)
                except trio.ClosedResourceError:
                    return self._finish(s, capture, "ended")

    async def _exited(self, s: Session, capture: CappedText) -> CallResult:
        """The leader exited: collect the last output, stop what it left behind."""
        self._absorb(s, capture, _drain(s))
        # Inline, not in a thread: only processes newer than the leader are read, a
        # handful, and a thread hop would cost more than the scan.
        leftovers = session_processes(s.pid, s.pid, s.token, group_is_ours=False)
        notes = []
        if leftovers:
            survivors = await self._destroy(s)
            notes.append(
                f"the command left {len(leftovers)} process(es) running in the background; "
                "they were stopped (commands may not outlive their call)"
            )
            result = self._finish(s, capture, "exited")
            _note_survivors(result, survivors)
        else:
            self._absorb(s, capture, _drain(s))
            s.close()
            result = self._finish(s, capture, "exited")
        result.notes[:0] = notes
        self._sessions.pop(s.id, None)
        return result

    def _finish(self, s: Session, capture: CappedText, status: str) -> CallResult:
        if status != "waiting":
            tail = s.decoder.decode(b"", final=True)
            capture.append(s.cleaner.feed(tail))
        capture.append(s.cleaner.flush_line())
        text, cut_chars, cut_lines = capture.render()
        result = CallResult(
            status,
            s.id,
            s.command,
            text,
            cut_chars,
            cut_lines,
            exit_code=s.exit_code,
            exit_signal=s.exit_signal,
            timeout=s.timeout,
            data={"pid": s.pid},
        )
        if s.answers and status != "waiting":
            result.notes.append(f"{len(s.answers)} stdin line(s) were not used")
        if s.decoder.switched:
            result.notes.append(f"the output was not UTF-8; it was decoded as {s.decoder.fallback}")
        return result

    def _absorb(self, s: Session, capture: CappedText, data: bytes) -> None:
        if data:
            capture.append(s.cleaner.feed(s.decoder.decode(data)))

    async def _destroy(self, s: Session) -> list[int]:
        """Kill a session's tree (bounded, in a thread) and forget it."""
        self._sessions.pop(s.id, None)
        if s.closed:
            return []
        with trio.CancelScope(shield=True):
            survivors = await trio.to_thread.run_sync(s.kill, self.config.kill_grace)
            trio.lowlevel.notify_closing(s.fd)
            if s.pidfd is not None:
                trio.lowlevel.notify_closing(s.pidfd)
            s.close()
        return survivors


def _drain(s: Session) -> bytes:
    chunks = []
    for _ in range(64):  # bounded: a flood after exit cannot hold the call
        data = s.read_available()
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _note_survivors(result: CallResult, survivors: list[int]) -> None:
    if survivors:
        result.notes.append(
            f"{len(survivors)} process(es) could not be stopped: pids "
            + ", ".join(map(str, survivors))
        )
        result.data["survivors"] = survivors


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
