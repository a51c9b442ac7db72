"""Durable sessions: one ``events.jsonl`` per session, under the workspace's folder.

Layout::

    $HARNESS_HOME/projects/<workspace-key>/sessions/<id>/events.jsonl
    $HARNESS_HOME/projects/<workspace-key>/sessions/<id>/meta.json   (title, times, first prompt)

The log is the source of truth. Each durable event is one line, written with
``write()`` on an ``O_APPEND`` descriptor: as it happens, or, once
:meth:`SessionLog.write_behind` runs, as soon as the loop next waits (for the
model or a worker), the lines that came since in one ``write()``. Either way a
kill -9 of harness loses at most the lines of that moment, and resume repairs a
call left without its result; the file is fsynced at the end of every run.
Reading skips a torn or undecodable line and reports it, never fails on it.
``meta.json`` is only an index for listing sessions, written atomically.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import orjson

from harness._atomic import read_json, write_atomic, write_json_atomic
from harness.conversation import events as ev
from harness.conversation._history import cut_before, effective, is_prompt, rebuild_history
from harness.conversation.events import SessionForked
from harness.conversation.session._log import SessionLog
from harness.errors import SessionError
from harness.ipc import ProtocolError
from harness.messages.model import ChatMessage

__all__ = [
    "LoadedSession",
    "SessionInfo",
    "SessionLog",
    "SessionNotFound",
    "SessionStore",
    "workspace_key",
]


def workspace_key(workspace: str | Path) -> str:
    """A folder name for *workspace*: its base name and a hash of its full path."""
    path = str(Path(workspace).resolve())
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).name or "root").strip("-") or "root"
    return f"{base[:40]}-{hashlib.sha256(path.encode()).hexdigest()[:12]}"


def new_session_id() -> str:
    """A sortable unique id: ``20261130-012800-3fa9c1``."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class SessionNotFound(SessionError, LookupError):
    """No session with that id or title in this workspace."""


@attrs.frozen
class SessionInfo:
    """One row of the session list."""

    id: str
    title: str
    created: float
    updated: float
    first_prompt: str
    path: Path


@attrs.frozen
class LoadedSession:
    """A session read back from its log.

    Attributes:
        events: every durable event that decoded, in order.
        history: the model history rebuilt from them (well-formed).
        problems: one sentence per line that was skipped (torn or undecodable).
    """

    id: str
    path: Path
    events: list[ev.ConversationEvent]
    history: list[ChatMessage]
    problems: list[str]
    title: str = ""
    tags: list[str] = attrs.field(factory=list)


_HISTORY_TAGS = frozenset(
    {
        "user_message",
        "assistant_message",
        "tool_call_finished",
        "compacted",
        "title_changed",
        "rewound",
        "session_forked",
    }
)


def read_records(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The log's lines as dicts (JSON only, not structured) and one sentence per skipped line.

    A line must be a JSON object with a ``type`` and a ``session_id``; the events
    the history is rebuilt from are structured fully (so a wrong shape is caught
    here), the rest are kept as they are, which keeps resume fast.
    """
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return records, [f"{path} does not exist"]
    lines = raw.split(b"\n")
    last = len(lines) - 1
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = orjson.loads(line)
            if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                raise ProtocolError("not an event")
            if data["type"] in _HISTORY_TAGS:
                data = {"event": ev.decode_event(data), **data}
            elif data["type"] not in _TAGS:
                raise ProtocolError(f"unknown event type {data['type']!r}")
            records.append(data)
        except (orjson.JSONDecodeError, ProtocolError) as exc:
            where = "the last line (torn by a crash)" if n - 1 >= last - 1 else f"line {n}"
            problems.append(f"skipped {where} of {path.name}: {str(exc)[:120]}")
    return records, problems


_TAGS = frozenset(ev.event_types())


def read_events(path: Path) -> tuple[list[ev.ConversationEvent], list[str]]:
    """The events in a log file and one sentence per line skipped."""
    events: list[ev.ConversationEvent] = []
    problems: list[str] = []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return events, [f"{path} does not exist"]
    lines = raw.split(b"\n")
    last = len(lines) - 1
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            events.append(ev.decode_event(orjson.loads(line)))
        except (orjson.JSONDecodeError, ProtocolError) as exc:
            where = "the last line (torn by a crash)" if n - 1 >= last - 1 else f"line {n}"
            problems.append(f"skipped {where} of {path.name}: {str(exc)[:120]}")
    return events, problems


class SessionStore:
    """The sessions of one workspace under ``$HARNESS_HOME``."""

    def __init__(self, home: Path, workspace: str | Path) -> None:
        self.home = Path(home)
        self.workspace = Path(workspace).resolve()
        self.root = self.home / "projects" / workspace_key(self.workspace) / "sessions"

    def create(self, session_id: str | None = None) -> SessionLog:
        """A new session's log."""
        sid = session_id or new_session_id()
        return SessionLog(self.root / sid, sid)

    def open_log(self, session_id: str) -> SessionLog:
        """The log of an existing session, to append to it (resume)."""
        if not (self.root / session_id / "events.jsonl").exists():
            raise SessionNotFound(f"no session {session_id!r} in this workspace")
        return SessionLog(self.root / session_id, session_id)

    def list(self) -> list[SessionInfo]:
        """Every session of the workspace, newest activity first."""
        out: list[SessionInfo] = []
        if not self.root.is_dir():
            return out
        for d in self.root.iterdir():
            if not (d / "events.jsonl").exists():
                continue
            try:
                meta = read_json(d / "meta.json", {})
            except ValueError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            mtime = (d / "events.jsonl").stat().st_mtime
            out.append(
                SessionInfo(
                    id=d.name,
                    title=str(meta.get("title", "")),
                    created=float(meta.get("created", mtime)),
                    updated=max(float(meta.get("updated", mtime)), mtime),
                    first_prompt=str(meta.get("first_prompt", "")),
                    path=d,
                )
            )
        out.sort(key=lambda s: (s.updated, s.id), reverse=True)
        return out

    def latest(self) -> SessionInfo | None:
        """The session with the newest activity (``--continue``)."""
        sessions = self.list()
        return sessions[0] if sessions else None

    def find(self, id_or_title: str) -> SessionInfo:
        """A session by exact id, exact title, then unique id prefix or title (case-insensitive).

        Raises:
            SessionNotFound: none matches, or several do (the message lists them).
        """
        sessions = self.list()
        for s in sessions:
            if s.id == id_or_title:
                return s
        for s in sessions:
            if s.title and s.title == id_or_title:
                return s
        low = id_or_title.lower()
        hits = [s for s in sessions if s.id.startswith(id_or_title) or s.title.lower() == low]
        if len(hits) == 1:
            return hits[0]
        if hits:
            names = ", ".join(f"{s.id} ({s.title})" if s.title else s.id for s in hits[:5])
            raise SessionNotFound(f"{id_or_title!r} matches several sessions: {names}")
        raise SessionNotFound(f"no session with id or title {id_or_title!r} in this workspace")

    def load(self, session_id: str, *, events: bool = True) -> LoadedSession:
        """Read a session back: its rebuilt history, title, any skipped lines, and
        (with *events*) every event structured; resume passes ``events=False``,
        which structures only what the history is rebuilt from."""
        d = self.root / session_id
        if not (d / "events.jsonl").exists():
            raise SessionNotFound(f"no session {session_id!r} in this workspace")
        if events:
            all_events, problems = read_events(d / "events.jsonl")
            needed = all_events
            tags = [e.TAG for e in all_events]
        else:
            records, problems = read_records(d / "events.jsonl")
            all_events = []
            needed = [r["event"] for r in records if "event" in r]
            tags = [r["type"] for r in records]
        title = ""
        for e in needed:
            if isinstance(e, ev.TitleChanged):
                title = e.title
        return LoadedSession(
            id=session_id,
            path=d,
            events=all_events,
            history=rebuild_history(needed),
            problems=problems,
            title=title,
            tags=tags,
        )

    def fork(self, source_id: str, before_prompt: int = 0) -> SessionInfo:
        """A new session holding *source_id*'s conversation as it stands (only what came
        before its prompt *before_prompt*, when given), then a ``session_forked`` mark;
        its title is the source's with `` (fork)``. The source is not touched.

        The new log is written whole under a temporary name and renamed, so a crash
        leaves either no fork or a whole one.

        Raises:
            SessionNotFound: no such session.
            ValueError: it has fewer prompts than *before_prompt*.
        """
        path = self.root / source_id / "events.jsonl"
        if not path.exists():
            raise SessionNotFound(f"no session {source_id!r} in this workspace")
        kept = effective(read_events(path)[0])
        if before_prompt:
            kept = cut_before(kept, before_prompt)
        new_id = new_session_id()
        titles = [e.title for e in kept if isinstance(e, ev.TitleChanged)]
        title = f"{titles[-1]} (fork)" if titles and titles[-1] else ""
        tail: list[ev.ConversationEvent] = [
            SessionForked(session_id=new_id, parent=source_id, prompt=before_prompt)
        ]
        if title:
            tail.append(ev.TitleChanged(session_id=new_id, title=title))
        lines = b"".join(orjson.dumps(ev.encode_event(e)) + b"\n" for e in [*kept, *tail])
        d = self.root / new_id
        write_atomic(d / "events.jsonl", lines, mode=0o600)
        first = next((e.text for e in kept if is_prompt(e) and isinstance(e, ev.UserMessage)), "")
        now = time.time()
        meta = {
            "id": new_id,
            "title": title,
            "created": now,
            "updated": now,
            "first_prompt": first[:200],
            "forked_from": source_id,
        }
        write_json_atomic(d / "meta.json", meta, mode=0o600)
        return SessionInfo(new_id, title, now, now, first[:200], d)

    def iter_events(self, session_id: str) -> Iterator[ev.ConversationEvent]:
        """The durable events of a session, in order."""
        yield from read_events(self.root / session_id / "events.jsonl")[0]


def export_json(loaded: LoadedSession) -> bytes:
    """The session as one JSON document: id, title, messages and events."""
    doc = {
        "id": loaded.id,
        "title": loaded.title,
        "messages": [
            {k: v for k, v in _message_dict(m).items() if v not in (None, "", [], ())}
            for m in loaded.history
        ],
        "events": [ev.encode_event(e) for e in loaded.events],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


def _message_dict(m: ChatMessage) -> dict[str, Any]:
    return {
        "role": m.role,
        "content": m.content,
        "tool_calls": [attrs.asdict(c) for c in m.tool_calls],
        "tool_call_id": m.tool_call_id,
        "name": m.name,
    }


def export_markdown(loaded: LoadedSession) -> str:
    """The session as readable Markdown: prompts, answers, tool calls and results."""
    out = [f"# {loaded.title or 'Session ' + loaded.id}", "", f"Session `{loaded.id}`", ""]
    for m in loaded.history:
        if m.role == "user":
            out += ["## User", "", m.content, ""]
        elif m.role == "assistant":
            out += ["## Assistant", ""]
            if m.content:
                out += [m.content, ""]
            for c in m.tool_calls:
                out += [
                    f"**Tool call** `{c.name}`",
                    "",
                    "```json",
                    orjson.dumps(c.arguments, option=orjson.OPT_INDENT_2).decode(),
                    "```",
                    "",
                ]
        elif m.role == "tool":
            fence = "````" if "```" in m.content else "```"
            out += [f"**Result** of `{m.name}`", "", fence, m.content, fence, ""]
    return "\n".join(out)
