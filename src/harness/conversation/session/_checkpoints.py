"""A session's prompts as checkpoints: going back to one, and a new session from one.

Every prompt the user sends is a checkpoint: the conversation before it, and the files
as they were when it was sent (its event's time; the tools worker's undo journal names
each AI change by the time it was made and the session that made it). Going back
(:meth:`Checkpoints.rewind`) restores the files through the tools worker, then writes
one ``rewound`` event to the log (flushed to disk) and starts the history again from
the events before that prompt; reading the log applies the event the same way, so a
resumed session has the rewound conversation. A fork (:meth:`Checkpoints.fork`) is a
new log holding a copy of this one's conversation; this one is not touched.

What commands did cannot be restored: the plan names the commands (and MCP tools) run
since the prompt, and the tools worker names the files changed since that no file
tool changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from harness.conversation import events as ev
from harness.conversation._history import cut_before, effective, is_prompt, rebuild_history
from harness.conversation.events import Rewound, SessionForked
from harness.conversation.session._store import (
    SessionInfo,
    SessionLog,
    SessionNotFound,
    SessionStore,
    read_events,
)
from harness.errors import SessionError
from harness.messages.tools import Rewind, RewindResult, RewindSpan

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation
    from harness.conversation.workers import Workers

__all__ = [
    "Checkpoint",
    "Checkpoints",
    "RewindOutcome",
    "RewindPlan",
    "fork_session",
]

# Executors whose calls run programs: what they changed the journal never saw.
_RUNS_PROGRAMS = frozenset({"shell", "mcp"})
_TIMEOUT = 300.0  # restoring a large backup is disk work, not a hang


@attrs.frozen
class Checkpoint:
    """One prompt of the conversation as it stands.

    Attributes:
        number: its number, from 1, in the order the prompts were sent.
        text: the prompt.
        ts: when it was sent (epoch seconds): the files' checkpoint.
    """

    number: int
    text: str
    ts: float


@attrs.frozen
class RewindPlan:
    """What going back to before prompt ``checkpoint.number`` would change.

    Attributes:
        checkpoint: the prompt.
        files: the tools worker's answer: each path the files' rewind changes, the
            paths changed since that it cannot restore, and notes.
        commands: the commands (and MCP tool calls) run since the prompt, whose
            changes cannot be restored.
    """

    checkpoint: Checkpoint
    files: RewindResult
    commands: tuple[str, ...]


@attrs.frozen
class RewindOutcome:
    """What a rewind did. ``ok`` false: nothing changed, and ``message`` says why.

    Attributes:
        conversation: whether the conversation went back.
        files: the files' rewind (``None``: the files were left as they are).
    """

    ok: bool
    message: str
    checkpoint: Checkpoint
    conversation: bool
    files: RewindResult | None
    commands: tuple[str, ...] = ()


def checkpoints_of(events: Sequence[ev.ConversationEvent]) -> list[Checkpoint]:
    """The prompts of *events* (the conversation as it stands), numbered from 1."""
    prompts = [e for e in events if isinstance(e, ev.UserMessage) and is_prompt(e)]
    return [Checkpoint(n, e.text, e.ts) for n, e in enumerate(prompts, 1)]


def _index(events: Sequence[ev.ConversationEvent], number: int) -> int:
    seen = 0
    for i, event in enumerate(events):
        if is_prompt(event):
            seen += 1
            if seen == number:
                return i
    raise ValueError(f"there is no prompt {number} in this session (it has {seen})")


def spans_since(
    events: Sequence[ev.ConversationEvent], number: int, session_id: str
) -> tuple[RewindSpan, ...]:
    """Whose file changes going back to prompt *number* undoes: this session's since the
    prompt and, for a prompt a parent session ran before this one was forked from it,
    the parent's from the prompt until the fork (and so on up the line)."""
    index = _index(events, number)
    since = events[index].ts
    spans: list[RewindSpan] = []
    for event in events[index:]:
        if isinstance(event, SessionForked):
            spans.append(RewindSpan(event.parent, since, event.ts))
            since = event.ts
    spans.append(RewindSpan(session_id, since))
    return tuple(spans)


def commands_since(events: Sequence[ev.ConversationEvent], number: int) -> tuple[str, ...]:
    """The calls that ran programs from prompt *number* on, as the user would know them."""
    later = events[_index(events, number) :]
    ran = {
        e.call_id
        for e in later
        if isinstance(e, ev.ToolCallStarted) and e.executor in _RUNS_PROGRAMS
    }
    out = []
    for e in later:
        if isinstance(e, ev.ToolCallRequested) and e.call_id in ran:
            command = e.arguments.get("command") if e.name == "run_cmd" else None
            out.append(str(command) if command else f"{e.name}({e.main_argument})")
    return tuple(out)


class Checkpoints:
    """The checkpoints of one open session (``Session.checkpoints``).

    Args:
        conversation: the session's loop.
        workers: its workers (the tools worker restores the files).
        log: its log (``None``: not recorded, so there is nothing to go back to).
        store: the workspace's sessions.
    """

    def __init__(
        self,
        conversation: Conversation,
        workers: Workers,
        log: SessionLog | None,
        store: SessionStore,
    ) -> None:
        self._conv = conversation
        self._workers = workers
        self._log = log
        self._store = store

    def _events(self) -> list[ev.ConversationEvent]:
        if self._log is None:
            raise SessionError("this session is not recorded: it has no checkpoints")
        self._log.flush()  # what the log writes behind must be read too
        return effective(read_events(self._log.path)[0])

    def list(self) -> list[Checkpoint]:
        """The prompts of the conversation as it stands, oldest first (none when the
        session is not recorded)."""
        if self._log is None:
            return []
        return checkpoints_of(self._events())

    def _point(self, events: Sequence[ev.ConversationEvent], number: int) -> Checkpoint:
        points = checkpoints_of(events)
        if not 1 <= number <= len(points):
            raise ValueError(f"there is no prompt {number} in this session (it has {len(points)})")
        return points[number - 1]

    async def _files(self, spans: tuple[RewindSpan, ...], apply: bool) -> RewindResult:
        request = Rewind(workspace=self._conv.workspace, spans=spans, apply=apply)
        return await self._workers.call("tools", request, RewindResult, timeout=_TIMEOUT)

    async def plan(self, number: int) -> RewindPlan:
        """What going back to before prompt *number* would change; nothing changes.

        Raises:
            ValueError: no such prompt.
            SessionError: the session is not recorded.
        """
        events = self._events()
        point = self._point(events, number)
        spans = spans_since(events, number, self._conv.session_id)
        files = await self._files(spans, apply=False)
        return RewindPlan(point, files, commands_since(events, number))

    async def rewind(
        self, number: int, *, conversation: bool = True, files: bool = True
    ) -> RewindOutcome:
        """Go back to before prompt *number*: the files the AI changed since (*files*),
        the conversation (*conversation*), or both.

        The files go first: if they cannot be restored, the conversation is left as it
        is. Killed half-way, the same rewind run again gives the same result.

        Raises:
            ValueError: no such prompt, or neither part asked for.
            RuntimeError: a prompt is running.
            SessionError: the session is not recorded.
        """
        if not (conversation or files):
            raise ValueError("a rewind restores the conversation, the files, or both")
        if self._conv.running:
            raise RuntimeError("a prompt is running: cancel it before going back")
        events = self._events()
        point = self._point(events, number)
        commands = commands_since(events, number)
        restored: RewindResult | None = None
        if files:
            restored = await self._files(spans_since(events, number, self._conv.session_id), True)
            if not restored.ok:
                return RewindOutcome(False, restored.message, point, False, restored, commands)
        paths = tuple(f.path for f in restored.files if f.restorable) if restored else ()
        self._conv.emit(
            Rewound(
                session_id=self._conv.session_id,
                prompt=number,
                conversation=conversation,
                files=files,
                paths=paths,
            )
        )
        if conversation:
            history = rebuild_history(cut_before(events, number))
            self._conv.transcript.rewind(history)
            self._conv.seen_files.restart(history)
        said = [f"back to before prompt {number}"]
        if restored is not None:
            said.append(restored.message)
        return RewindOutcome(True, ": ".join(said), point, conversation, restored, commands)

    def fork(self, before_prompt: int | None = None) -> SessionInfo:
        """A new session holding this one's conversation (only what came before prompt
        *before_prompt*, when given); this one is left as it is. Resume it by its id.

        Raises:
            ValueError: no such prompt.
            SessionError: the session is not recorded.
        """
        if self._log is None:
            raise SessionError("this session is not recorded: there is nothing to fork")
        self._log.flush()
        return self._store.fork(self._conv.session_id, before_prompt or 0)


def fork_session(
    workspace: str | Path, home: Path, session: str | None = None, before_prompt: int = 0
) -> SessionInfo:
    """Fork a session of *workspace* without opening it (``--fork-session``): the one
    *session* names by id or title, or the latest; see :meth:`SessionStore.fork`.

    Raises:
        SessionNotFound: no such session (or none at all).
    """
    store = SessionStore(home, workspace)
    if session:
        source = store.find(session)
    else:
        latest = store.latest()
        if latest is None:
            raise SessionNotFound("there is no earlier session in this workspace to fork")
        source = latest
    return store.fork(source.id, before_prompt)
