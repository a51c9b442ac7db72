"""Working memory: a compact, derived record of what a session is about.

The goal, settled decisions, constraints, files read and changed, tasks done and
pending, unresolved problems. File activity is exact, taken from the tool events as
they happen; the rest comes from at most one bounded model request after a completed
run (:data:`UPDATE_TIMEOUT` seconds, in the background so it never delays the answer,
skipped on any failure). It is kept in ``working_memory.json`` beside the session's
log, versioned and written atomically; it is derived, so losing it loses nothing else
(a missing, corrupt or other-version file is started afresh).

After a compaction its text follows the summary, so a long session keeps its thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import attrs
import orjson

from harness._atomic import read_json, write_json_atomic
from harness.conversation import events as ev

__all__ = [
    "MEMORY_FILE",
    "UPDATE_SYSTEM",
    "UPDATE_TIMEOUT",
    "VERSION",
    "WorkingMemory",
    "WorkingMemoryKeeper",
]

MEMORY_FILE = "working_memory.json"
VERSION = 1
UPDATE_TIMEOUT = 10.0
_MOST = 12  # items kept per list: a compact record, not a transcript
_CHARS = 300  # characters kept per item

_READS = frozenset({"read_file", "get_code_skeleton", "query_ast"})
_CHANGES = frozenset(
    {"write_file", "edit_file", "delete_path", "move_file", "copy_file", "create_dir"}
)
_SEMANTIC = ("goal", "decisions", "constraints", "done", "pending", "problems")

UPDATE_SYSTEM = (
    "You keep the working memory of a coding session: a compact record of its goal, "
    "settled decisions, constraints the user set, tasks done, tasks pending and unresolved "
    "problems. Given the record so far and the latest exchange, answer with the updated "
    'record as one JSON object: {"goal": "...", "decisions": [...], "constraints": [...], '
    '"done": [...], "pending": [...], "problems": [...]}. Short phrases; at most 12 items '
    "a list; drop what is no longer true. JSON only."
)

Ask = Callable[[str, str], Awaitable[str | None]]


def _items(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(v).strip()[:_CHARS] for v in value if str(v).strip()][-_MOST:]


@attrs.define
class WorkingMemory:
    """The record (see the module's docstring)."""

    goal: str = ""
    decisions: list[str] = attrs.field(factory=list)
    constraints: list[str] = attrs.field(factory=list)
    files_read: list[str] = attrs.field(factory=list)
    files_changed: list[str] = attrs.field(factory=list)
    done: list[str] = attrs.field(factory=list)
    pending: list[str] = attrs.field(factory=list)
    problems: list[str] = attrs.field(factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, **attrs.asdict(self)}

    @classmethod
    def from_json(cls, doc: Any) -> WorkingMemory:
        """The record in *doc*; an empty one when *doc* is not this version's."""
        if not isinstance(doc, dict) or doc.get("version") != VERSION:
            return cls()
        fields = {f.name for f in attrs.fields(cls)}
        kw: dict[str, Any] = {k: _items(doc.get(k)) for k in fields if k != "goal"}
        return cls(goal=str(doc.get("goal") or "")[:_CHARS], **kw)

    def merge_semantic(self, doc: Any) -> bool:
        """Take the model's answer (the semantic fields only); whether it was usable."""
        if not isinstance(doc, dict) or not any(k in doc for k in _SEMANTIC):
            return False
        if isinstance(doc.get("goal"), str) and doc["goal"].strip():
            self.goal = doc["goal"].strip()[:_CHARS]
        for name in _SEMANTIC[1:]:
            if name in doc:
                setattr(self, name, _items(doc[name]))
        return True

    def text(self) -> str:
        """The record as notes for the model ("" when it holds nothing)."""
        lines: list[str] = []
        if self.goal:
            lines.append(f"Goal: {self.goal}")
        for label, items in (
            ("Decisions", self.decisions),
            ("Constraints", self.constraints),
            ("Files read", self.files_read),
            ("Files changed", self.files_changed),
            ("Done", self.done),
            ("Pending", self.pending),
            ("Unresolved", self.problems),
        ):
            if items:
                lines.append(f"{label}: " + "; ".join(items))
        return "\n".join(lines)


def _note(items: list[str], path: str) -> None:
    if path in items:
        items.remove(path)
    items.append(path)
    del items[:-_MOST]


def _json_in(text: str) -> Any:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return orjson.loads(text[start : end + 1])
    except orjson.JSONDecodeError:
        return None


class WorkingMemoryKeeper:
    """Keeps one session's working memory: a listener for its events, and the update
    after each completed run.

    Args:
        path: the record's file (``None``: kept in memory only, for unrecorded sessions).
        ask: sends one quiet model request, ``(system, content)`` -> the answer's text,
            ``None`` on failure or timeout.
    """

    def __init__(self, path: Path | None, ask: Ask) -> None:
        self.path = path
        self._ask = ask
        self._calls: dict[str, tuple[str, str]] = {}
        self._prompt = ""
        self._answer = ""
        self.memory = WorkingMemory()
        if path is not None:
            with contextlib.suppress(ValueError, OSError):
                self.memory = WorkingMemory.from_json(read_json(path, None))

    def __call__(self, event: ev.ConversationEvent) -> None:
        """Note what *event* says (file activity, the run's prompt and answer)."""
        match event:
            case ev.UserMessage(source="prompt"):
                self._prompt, self._answer = event.text, ""
            case ev.ToolCallRequested():
                self._calls[event.call_id] = (event.name, event.main_argument)
            case ev.ToolCallFinished(ok=True):
                name, path = self._calls.pop(event.call_id, (event.name, ""))
                if path and name in _READS:
                    _note(self.memory.files_read, path)
                elif path and name in _CHANGES:
                    _note(self.memory.files_changed, path)
                    self.save()
            case ev.AssistantMessage() if event.text.strip():
                self._answer = event.text
            case _:
                pass

    def memory_text(self) -> str:
        """The record as notes for the model (what follows a compaction's summary)."""
        return self.memory.text()

    def save(self) -> None:
        """Write the record (atomically); a failure to write loses only the record."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                write_json_atomic(self.path, self.memory.to_json(), mode=0o600)

    async def update(self) -> bool:
        """One bounded model request for the semantic part, after a completed run;
        whether the record changed."""
        if not self._prompt:
            return False
        content = (
            f"The record so far:\n{orjson.dumps(self.memory.to_json()).decode()}\n\n"
            f"The user asked:\n{self._prompt[:3000]}\n\nThe answer:\n{self._answer[:3000]}"
        )
        answer = await self._ask(UPDATE_SYSTEM, content)
        if answer is None or not self.memory.merge_semantic(_json_in(answer)):
            return False
        self.save()
        return True
